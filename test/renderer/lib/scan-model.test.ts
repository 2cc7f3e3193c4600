// The scan list's filter compares service UUIDs by the core's rule (docs/decisions.md,
// "Hardening"): a board advertising a 16-bit UUID is found by its 128-bit form and the other way
// round.
import { describe, expect, it } from 'vitest';
import type { ScannedDevice } from '../../../src/core/usecases/bench/bench-schema';
import { matches, NO_FILTER } from '../../../src/renderer/lib/scan-model';

function entry(serviceUuids: string[]) {
  const device = {
    id: 'd1',
    address: 'aa:bb:cc:dd:ee:ff',
    rssi: -50,
    serviceUuids,
    rssiSamples: [],
  } as unknown as ScannedDevice;
  return { device, history: [] };
}

const BATTERY_128 = '0000180f-0000-1000-8000-00805f9b34fb';

describe('scan filter', () => {
  it('expands 16-bit UUIDs as the core does, in either direction', () => {
    expect(matches(entry(['180f']), { ...NO_FILTER, serviceUuid: BATTERY_128 })).toBe(true);
    expect(
      matches(entry([BATTERY_128.replace(/-/g, '')]), { ...NO_FILTER, serviceUuid: '180F' }),
    ).toBe(true);
    expect(matches(entry(['180a']), { ...NO_FILTER, serviceUuid: BATTERY_128 })).toBe(false);
  });

  it('an advertised value that is no UUID matches nothing and throws nothing', () => {
    expect(matches(entry(['not-a-uuid', '180f']), { ...NO_FILTER, serviceUuid: '180f' })).toBe(
      true,
    );
    expect(matches(entry(['not-a-uuid']), { ...NO_FILTER, serviceUuid: '180f' })).toBe(false);
    expect(matches(entry(['not-a-uuid']), NO_FILTER)).toBe(true);
  });
});
