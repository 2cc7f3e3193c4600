// Provisioning throughput over several simulated adapters at once: a station with 1, 2 and 4
// virtual controllers, each holding a few links, provisions a tray of boards that grows with the
// adapters. Adding adapters should add links and so boards per minute in proportion: the ratio
// of each station's boards/min to N × the one-adapter station's is printed against the target.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { percent, table } from './format';
import { parseAdapterSpec } from '../src/core/ble/adapter-spec';
import { openAdapters } from '../src/core/ble/radio/open-adapters';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../src/core/ble/sim/board-schema';
import { openAuditStore } from '../src/core/audit/open-store';
import { builtInProfiles, gattProfiles } from '../src/core/provisioning/profiles';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import type { ProductTarget } from '../src/core/provisioning/steps';
import { startBatch } from '../src/core/provisioning/batch';

const TARGET = 0.9;
const ADAPTERS = [1, 2, 4];
/** Links each virtual controller holds: the limit that makes more adapters worth having. */
const LINKS_PER_ADAPTER = 2;
/** Boards per adapter in the tray, so every station runs as long. */
const BOARDS_PER_ADAPTER = 8;

const PRODUCT: ProductTarget = {
  id: '3000000002',
  name: 'Bench sensor',
  serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000002',
  psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
  psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
};
const profile = gattProfiles(builtInProfiles()).find((p) => p.id === 'devicebench-v1');

// The provisioning benchmark's typical prototype, no jitter.
const tray = (count: number): BoardSpecInput => ({
  name: 'Bench Multi {n}',
  address: 'c6:00:00:00:00:01',
  count,
  advertising: { intervalMs: 100, rssi: { mean: -55, noise: 0 } },
  latency: { connectMs: 40, perOperationMs: 8, jitterMs: 0 },
  provisioning: { profile: 'devicebench-v1', rebootMs: 200 },
});

export const adapters: Benchmark = {
  name: 'adapters',
  summary: `batch boards/min over ${ADAPTERS.join(', ')} simulated adapters of ${LINKS_PER_ADAPTER} links each, ÷ N × one adapter's (target >= ${TARGET})`,
  async run(print) {
    if (!profile) throw new Error('the devicebench-v1 profile is missing');
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-adapters-'));
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const rows: { n: number; boards: number; perMinute: number }[] = [];
      for (const n of ADAPTERS) rows.push(await measure(dir, n));
      const one = rows[0]!.perMinute;
      print(
        `adapters: devicebench-v1 batches on one simulated bench heard by N virtual controllers ` +
          `(${LINKS_PER_ADAPTER} links each, batch concurrency N × ${LINKS_PER_ADAPTER}, ` +
          `${BOARDS_PER_ADAPTER} boards per adapter); load average ${loadBefore.toFixed(2)} at start`,
      );
      table([
        ['adapters', 'boards', 'boards/min', 'linear boards/min', 'of linear'],
        ...rows.map((r) => [
          String(r.n),
          String(r.boards),
          r.perMinute.toFixed(0),
          (one * r.n).toFixed(0),
          percent(r.perMinute / (one * r.n)),
        ]),
      ]).forEach((line) => print(line));
      const worst = Math.min(...rows.slice(1).map((r) => r.perMinute / (one * r.n)));
      // Floored so the printed ratio never reads as passing when the exact one does not.
      print(
        `adapters: boards/min ÷ linear = ${(Math.floor(worst * 1000) / 1000).toFixed(3)} at worst ` +
          `(target >= ${TARGET}) ${worst >= TARGET ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

async function measure(
  dir: string,
  n: number,
): Promise<{ n: number; boards: number; perMinute: number }> {
  const boards = BOARDS_PER_ADAPTER * n;
  const bench = new SimulatedBench({ seed: n });
  bench.addBoard(tray(boards));
  const central = await openAdapters(
    Array.from({ length: n }, () => parseAdapterSpec('sim')),
    { bench, simProfile: { maxConnections: LINKS_PER_ADAPTER } },
  );
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `adapters-${n}.db`) },
    station: 'bench',
  });
  try {
    const summary = await startBatch({
      central,
      store,
      profile: profile!,
      product: PRODUCT,
      psdi: createPsdiAllocator({ kind: 'sequence', prefix: `M${n}-`, width: 4 }, 20),
      concurrency: n * LINKS_PER_ADAPTER,
      idleMs: 300,
    }).done;
    if (summary.ok !== boards)
      throw new InvalidRunError(
        `${n} adapters: ${summary.ok} of ${boards} boards verified, ${summary.failed} failed`,
      );
    return { n, boards, perMinute: summary.boardsPerMinute };
  } finally {
    await central.close();
    bench.close();
    await store.close();
  }
}
