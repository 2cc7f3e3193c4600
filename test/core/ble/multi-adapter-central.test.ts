// Several adapters as one central: a board heard by two adapters is listed once, by the one
// that hears it best; links go through an adapter with a link free and spread over the
// adapters; a full station says which adapters are full. Routing runs over real noble stacks
// on two virtual controllers of one simulated bench.
import { describe, expect, it } from 'vitest';
import { parseAdapterSpec } from '../../../src/core/ble/adapter-spec';
import { MultiCentral, adapterTraceDir } from '../../../src/core/ble/radio/multi-adapter-central';
import { openAdapters } from '../../../src/core/ble/radio/open-adapters';
import {
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
} from '../../../src/core/ble/port';
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { sensorBoard } from './fixture';

/** An adapter whose advertisements the test hands in, to set what each adapter hears. */
class HeardCentral implements BleCentral {
  private listeners = new Set<(ad: Advertisement) => void>();
  state(): AdapterState {
    return 'poweredOn';
  }
  onStateChange(): () => void {
    return () => undefined;
  }
  async startScan(_filter: unknown, on: (ad: Advertisement) => void) {
    this.listeners.add(on);
    return { stop: async () => void this.listeners.delete(on) };
  }
  hear(id: string, rssi: number, seenAt: number): void {
    const ad: Advertisement = {
      id,
      address: id,
      serviceUuids: [],
      rssi,
      connectable: true,
      seenAt,
    };
    for (const on of this.listeners) on(ad);
  }
  async connect(): Promise<BleConnection> {
    throw new BleError('connect', 'not in this test');
  }
  async close(): Promise<void> {}
}

describe('MultiCentral', () => {
  it('lists a board once, by the adapter that hears it best', async () => {
    const [near, far] = [new HeardCentral(), new HeardCentral()];
    const multi = new MultiCentral([
      { spec: parseAdapterSpec('hci0'), central: far, linkCapacity: 5 },
      { spec: parseAdapterSpec('serial:/dev/ttyACM0'), central: near, linkCapacity: 5 },
    ]);
    const seen: Advertisement[] = [];
    await multi.startScan({}, (ad) => seen.push(ad));
    far.hear('a1', -80, 1_000);
    near.hear('a1', -50, 1_010);
    far.hear('a1', -79, 1_020);
    near.hear('a1', -51, 1_030);
    far.hear('b2', -60, 1_040);
    expect(seen.map((ad) => [ad.id, ad.adapter, ad.rssi])).toEqual([
      ['a1', 'hci0', -80],
      ['a1', 'serial:/dev/ttyACM0', -50],
      ['a1', 'serial:/dev/ttyACM0', -51],
      ['b2', 'hci0', -60],
    ]);
    // Once the near adapter has not heard it for a while, the far one lists it again.
    far.hear('a1', -78, 9_000);
    expect(seen.at(-1)).toMatchObject({ id: 'a1', adapter: 'hci0', rssi: -78 });
    await expect(multi.connect('c3')).rejects.toThrow(/has not been seen by a scan/);
  });

  it('routes each link to an adapter with a free link, and says when every one is full', async () => {
    const clock = new ManualSimClock(1_700_000_000_000);
    const bench = new SimulatedBench({ clock, seed: 3 });
    for (const n of [1, 2, 3])
      bench.addBoard(sensorBoard({ name: `Multi ${n}`, address: `c0:ff:ee:00:10:0${n}` }), 'test');
    const multi = await openAdapters([parseAdapterSpec('sim'), parseAdapterSpec('sim')], {
      bench,
      simProfile: { maxConnections: 1 },
      connectTimeoutMs: 2_000,
      operationTimeoutMs: 2_000,
    });
    const drive = async <T>(promise: Promise<T>): Promise<T> => {
      let done = false;
      const tracked = promise.finally(() => (done = true));
      tracked.catch(() => undefined);
      for (let t = 0; !done && t < 30_000; t += 5) await clock.advance(5);
      return tracked;
    };
    try {
      const heard = new Map<string, Advertisement>();
      const scan = await drive(multi.startScan({ name: 'Multi' }, (ad) => heard.set(ad.id, ad)));
      for (let t = 0; heard.size < 3 && t < 5_000; t += 10) await clock.advance(10);
      await drive(scan.stop());
      const [a, b, c] = [...heard.values()].sort((x, y) => x.address.localeCompare(y.address));
      expect(a!.adapter).toBe('sim');

      const first = await drive(multi.connect(a!.id));
      const second = await drive(multi.connect(b!.id));
      expect(multi.adapters().map((x) => [x.spec, x.linksInUse, x.linkCapacity])).toEqual([
        ['sim', 1, 1],
        ['sim', 1, 1],
      ]);
      // Both links work, each through its own virtual controller.
      expect((await drive(first.discover())).length).toBeGreaterThan(0);
      expect((await drive(second.discover())).length).toBeGreaterThan(0);
      expect(first.writesConfirmed && second.writesConfirmed).toBe(true);

      const full = await drive(multi.connect(c!.id)).catch((e: unknown) => e);
      expect(full).toBeInstanceOf(BleError);
      expect((full as Error).message).toMatch(
        /no link free for .*every adapter that hears it is using all its links \(sim 1\/1, sim 1\/1\)/,
      );
      await drive(first.disconnect());
      expect(multi.adapters().map((x) => x.linksInUse)).toEqual([0, 1]);
      const third = await drive(multi.connect(c!.id));
      expect(multi.adapters().map((x) => x.linksInUse)).toEqual([1, 1]);
      await drive(third.disconnect());
      await drive(second.disconnect());
    } finally {
      await drive(multi.close());
      bench.close();
    }
  });

  it('keeps each adapter’s trace in a folder a person can tell apart', () => {
    expect(adapterTraceDir('/data/traces', 0, 'sim')).toBe('/data/traces');
    expect(adapterTraceDir('/data/traces', 1, 'serial:/dev/ttyACM0')).toBe(
      '/data/traces/adapter-2-serial-dev-ttyACM0',
    );
  });
});
