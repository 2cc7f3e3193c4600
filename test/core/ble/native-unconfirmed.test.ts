// On `native`, noble's OS bindings report success for a write the board refused (docs/decisions.md,
// "Native bindings"). A noble that behaves that way, under a NobleCentral opened as the `native`
// adapter: the dry run's write is marked not confirmed, the JUnit report and console note say so,
// and the same run over an HCI spec is marked confirmed. The marking comes from the adapter
// spec, carried on the connection; the central itself is built with its defaults.
import { EventEmitter } from 'node:events';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import { describe, expect, it } from 'vitest';
import { junitReport, unconfirmedNote } from '../../../src/cli/junit';
import { parseAdapterSpec } from '../../../src/core/ble/adapter-spec';
import { MultiCentral } from '../../../src/core/ble/radio/multi-adapter-central';
import { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import { wallClock } from '../../../src/core/async/clock';
import { startDryRun } from '../../../src/core/scenario/engine';
import type { RunnableSet, TimelineEvent } from '../../../src/core/scenario/schema';

const SERVICE = 'a3c800007f2e4b619c0d5e1f2a3b4c5d';
const LED = 'a3c800037f2e4b619c0d5e1f2a3b4c5d';

/**
 * A board behind an OS binding: it refuses every write (its value stays 00), and the binding
 * reports each write as done, as CoreBluetooth's and WinRT's do.
 */
function refusingNativeNoble(): NobleInstance {
  const noble = new EventEmitter() as EventEmitter & Record<string, unknown>;
  let value = Buffer.of(0);
  const characteristic = {
    uuid: LED,
    properties: ['read', 'write'],
    readAsync: async () => value,
    writeAsync: async (data: Buffer) => {
      // The board answers Write Not Permitted; the binding never looks.
      void data;
      value = Buffer.from(value);
    },
  };
  const service = {
    uuid: SERVICE,
    characteristics: [] as unknown[],
    discoverCharacteristicsAsync: async () => {
      service.characteristics = [characteristic];
      return service.characteristics;
    },
  };
  const peripheral = Object.assign(new EventEmitter(), {
    id: 'c0ffee000001',
    address: 'c0:ff:ee:00:00:01',
    advertisement: { localName: 'Native Board', serviceUuids: [SERVICE] },
    rssi: -50,
    connectable: true,
    mtu: 23,
    connectAsync: async () => undefined,
    cancelConnect: () => undefined,
    disconnectAsync: async () => void queueMicrotask(() => peripheral.emit('disconnect', 0x16)),
    discoverServicesAsync: async () => [service],
  });
  noble._state = 'poweredOn';
  // Advertises every 20 ms while noble scans.
  let advertising: NodeJS.Timeout | undefined;
  noble.startScanningAsync = async () =>
    void (advertising = setInterval(() => noble.emit('discover', peripheral), 20));
  noble.stopScanningAsync = async () => clearInterval(advertising);
  return noble as unknown as NobleInstance;
}

const SET: RunnableSet = {
  autoClose: true,
  suppressionInterval: 100,
  revision: 0,
  scenarios: [
    {
      id: 'led',
      trigger: { type: 'IMMEDIATE' },
      actions: [
        {
          type: 'GATT_WRITE',
          serviceUuid: SERVICE,
          characteristicUuid: LED,
          data: Buffer.of(1).toString('base64'),
        },
      ],
    },
  ],
};

async function dryRunOn(spec: string): Promise<TimelineEvent[]> {
  const central = new MultiCentral([
    {
      spec: parseAdapterSpec(spec),
      central: new NobleCentral(refusingNativeNoble()),
      linkCapacity: 5,
    },
  ]);
  try {
    let seen: (id: string) => void = () => undefined;
    const heard = new Promise<string>((resolve) => (seen = resolve));
    const scan = await central.startScan({}, (ad) => seen(ad.id));
    const deviceId = await heard;
    await scan.stop();
    const events: TimelineEvent[] = [];
    const run = startDryRun({
      central,
      deviceId,
      set: SET,
      clock: wallClock(),
      cycles: 1,
      onEvent: (e) => events.push(e),
    });
    await run.done;
    return events;
  } finally {
    await central.close();
  }
}

describe('writes over the native adapter', () => {
  it('are marked not confirmed by the board, where an HCI adapter confirms them', async () => {
    const native = await dryRunOn('native');
    expect(native.find((e) => e.kind === 'connected')).toMatchObject({
      adapter: 'native',
      writesConfirmed: false,
    });
    const write = native.find((e) => e.kind === 'action' && e.type === 'GATT_WRITE');
    expect(write).toMatchObject({ writeConfirmed: false });
    expect(write).not.toHaveProperty('error', expect.anything());

    const hci = await dryRunOn('hci0');
    const confirmed = hci.find((e) => e.kind === 'action' && e.type === 'GATT_WRITE');
    expect(confirmed).toMatchObject({ writeConfirmed: true });

    const end = native.find((e) => e.kind === 'scenario-end');
    if (end?.kind !== 'scenario-end') throw new Error('the scenario did not end');
    const xml = junitReport({
      suite: 'native',
      board: 'Native Board',
      runs: [{ run: 1, result: end.result, unconfirmedWrites: 1 }],
    });
    expect(xml).toContain('<property name="writesConfirmed" value="false"/>');
    expect(xml).toContain('1 write not confirmed by the board');
    expect(unconfirmedNote(2)).toMatch(/^2 writes not confirmed by the board/);
  });
});
