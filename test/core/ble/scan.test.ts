import { afterEach, describe, expect, it, vi } from 'vitest';
import { rig, board, type Rig } from './fixture';
import { BleError } from '../../../src/core/ble/port';

const PROVISIONING = '8f1d0000-6b4e-4c5a-9d3e-2a7c5b1e0f00';

function boards() {
  return [
    board({
      name: 'DB Blank',
      address: 'c2:00:00:00:00:01',
      provisioning: { profile: 'devicebench-v1' },
    }),
    board({
      name: 'Thermo B',
      address: 'c2:00:00:00:00:02',
      advertising: {
        intervalMs: 20,
        serviceUuids: ['180f'],
        manufacturerData: '5900aa',
        txPower: -4,
        rssi: { mean: -60, noise: 0 },
      },
    }),
    board({
      name: 'Far C',
      address: 'c2:00:00:00:00:03',
      advertising: { intervalMs: 50, rssi: { mean: -95, noise: 0 } },
    }),
  ];
}

let r: Rig;
afterEach(() => r.close());

const names = (ads: { localName?: string }[]) => [...new Set(ads.map((a) => a.localName))].sort();

describe('scan through noble over the simulated bench', () => {
  it('delivers every advertisement (duplicates included) with its data', async () => {
    r = rig(boards());
    const ads = await r.collect({}, 200);
    expect(names(ads)).toEqual(['DB Blank', 'Far C', 'Thermo B']);
    const thermo = ads.filter((a) => a.localName === 'Thermo B');
    expect(thermo.length).toBeGreaterThanOrEqual(9);
    expect(thermo[0]).toMatchObject({
      id: 'c20000000002',
      address: 'c2:00:00:00:00:02',
      serviceUuids: ['180f'],
      txPowerLevel: -4,
      rssi: -60,
      connectable: true,
    });
    expect(Buffer.from(thermo[0]!.manufacturerData!).toString('hex')).toBe('5900aa');
    expect(thermo[0]!.seenAt).toBeGreaterThanOrEqual(1_700_000_000_000);
  });

  it('filters by service UUID in any form, including the 128-bit form of a short UUID', async () => {
    r = rig(boards());
    expect(names(await r.collect({ serviceUuids: [PROVISIONING.toUpperCase()] }, 100))).toEqual([
      'DB Blank',
    ]);
    expect(
      names(await r.collect({ serviceUuids: ['0000180f-0000-1000-8000-00805f9b34fb'] }, 100)),
    ).toEqual(['Thermo B']);
    expect(names(await r.collect({ serviceUuids: ['180F', PROVISIONING] }, 100))).toEqual([
      'DB Blank',
      'Thermo B',
    ]);
  });

  it('filters by name substring, case-insensitively, and by minimum RSSI', async () => {
    r = rig(boards());
    expect(names(await r.collect({ name: 'therMO' }, 100))).toEqual(['Thermo B']);
    expect(names(await r.collect({ minRssi: -80 }, 100))).toEqual(['DB Blank', 'Thermo B']);
    expect(names(await r.collect({ name: 'b', minRssi: -55 }, 100))).toEqual(['DB Blank']);
  });

  it('runs several scans at once, each with its own filter, and scans only while one is open', async () => {
    r = rig(boards());
    const a: string[] = [];
    const b: string[] = [];
    const first = await r.drive(
      r.central.startScan({ name: 'blank' }, (ad) => a.push(ad.localName!)),
    );
    const second = await r.drive(
      r.central.startScan({ serviceUuids: ['180f'] }, (ad) => b.push(ad.localName!)),
    );
    await r.clock.advance(100);
    expect(new Set(a)).toEqual(new Set(['DB Blank']));
    expect(new Set(b)).toEqual(new Set(['Thermo B']));
    await r.drive(first.stop());
    const aBefore = a.length;
    const bBefore = b.length;
    await r.clock.advance(100);
    expect(a.length).toBe(aBefore);
    expect(b.length).toBeGreaterThan(bBefore);
    await r.drive(second.stop());
    // No scan open: the bench's advertising timers are gone.
    expect(r.clock.timerCount).toBe(0);
  });

  it('batches advertising: one timer per interval, however many boards', async () => {
    r = rig([
      board({ name: 'Tray {n}', count: 50, address: 'c2:10:00:00:00:01' }),
      board({ name: 'Slow', advertising: { intervalMs: 1000 } }),
    ]);
    const seen: string[] = [];
    const scan = await r.drive(r.central.startScan({}, (ad) => seen.push(ad.id)));
    expect(r.clock.timerCount).toBe(2);
    await r.clock.advance(100);
    expect(seen.length).toBe(250);
    expect(new Set(seen).size).toBe(50);
    await r.drive(scan.stop());
  });

  it('refuses a filter that is not a UUID, naming it', async () => {
    r = rig(boards());
    const err = await r
      .drive(r.central.startScan({ serviceUuids: ['not-a-uuid'] }, () => undefined))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BleError);
    expect(err).toMatchObject({
      step: 'scan',
      message: expect.stringContaining('"not-a-uuid" is not a UUID'),
    });
  });

  it('reports the adapter state and refuses to scan when it is off', async () => {
    r = rig(boards());
    await r.clock.advance(1);
    expect(r.central.state()).toBe('poweredOn');
    const states: string[] = [];
    r.central.onStateChange((s) => states.push(s));
    r.bench.setAdapterState('poweredOff');
    // noble's HCI layer polls the adapter once a second of real time, as on Linux.
    await vi.waitFor(() => expect(states).toEqual(['poweredOff']), { timeout: 2_500 });
    const err = await r.drive(r.central.startScan({}, () => undefined)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      name: 'BleError',
      step: 'scan',
      message: 'the Bluetooth adapter is poweredOff',
    });
  });
});
