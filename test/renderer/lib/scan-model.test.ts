// The scan list's filter compares service UUIDs by the core's rule (docs/decisions.md,
// "Hardening"): a board advertising a 16-bit UUID is found by its 128-bit form and the other way
// round.
import { describe, expect, it } from 'vitest';
import type { ScannedDevice } from '../../../src/core/usecases/bench/bench-schema';
import {
  matches,
  mergeBatch,
  NO_FILTER,
  PRIVATE_ROW_AGE_OUT_MS,
  type ScanMap,
} from '../../../src/renderer/lib/scan-model';

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

/** A board heard at `address` (noble's id is the address without colons) at `at`. */
function heard(address: string, at: number, rssi: number, formerIds?: string[]): ScannedDevice {
  return {
    id: address.replace(/:/g, ''),
    address,
    serviceUuids: [],
    connectable: true,
    rssi,
    rssiSamples: [{ at, rssi }],
    lastSeen: at,
    ...(formerIds && { formerIds }),
  };
}

describe('one row per board across its private addresses', () => {
  const T = 1_700_000_000_000;
  const OLD = '4a:00:00:00:00:01';
  const NEW = '5b:00:00:00:00:02';
  const PUBLIC = 'c2:00:00:00:00:03';

  it('folds the rows of a board’s earlier private addresses into the one that follows it', () => {
    let rows: ScanMap = mergeBatch(new Map(), [heard(OLD, T, -60), heard(PUBLIC, T, -70)], T);
    rows = mergeBatch(rows, [heard(NEW, T + 1000, -55, [OLD.replace(/:/g, '')])], T + 1000);
    expect([...rows.keys()].sort()).toEqual([NEW, PUBLIC].map((a) => a.replace(/:/g, '')));
    // Its signal's history goes on from the earlier row.
    expect(rows.get(NEW.replace(/:/g, ''))?.history).toEqual([-60, -55]);
  });

  it('ages out a private address no longer heard, and keeps any other address', () => {
    let rows: ScanMap = mergeBatch(new Map(), [heard(OLD, T, -60), heard(PUBLIC, T, -70)], T);
    const later = T + PRIVATE_ROW_AGE_OUT_MS;
    rows = mergeBatch(rows, [heard(NEW, later, -55)], later);
    expect(rows.has(OLD.replace(/:/g, ''))).toBe(true);
    rows = mergeBatch(rows, [heard(NEW, later + 1, -55)], later + 1);
    expect([...rows.keys()].sort()).toEqual([NEW, PUBLIC].map((a) => a.replace(/:/g, '')));
  });
});
