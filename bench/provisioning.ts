// Provisioning on the simulated bench through noble's own HCI stack and the virtual controller,
// as the tool runs it (audit store on disk with synchronous=FULL, verify by read-back).
// Overhead: the tool's wall time for one board over the time the link model allows for the same
// path: the same provisioning run on a clock that moves only while the tool waits on the sim
// (bench/provisioning-model.ts), so neither the tool's own work nor its audit store's disk takes
// any time and what remains is connection events × interval, the board's answers, its reboot and
// its advertising. Throughput: a batch of boards per minute at
// several concurrencies, against the ideal the model allows and the adapter's connection limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { ms, percent, table } from './format';
import { benchProfile, PRODUCT, provisionEach, REBOOT_MS, spec } from './provisioning-model';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import { DEFAULT_ADAPTER_PROFILE } from '../src/core/ble/sim/adapter-profile';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import type { Clock, Timer } from '../src/core/async/clock';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import { openAuditStore } from '../src/core/audit/open-store';
import type { AuditStore } from '../src/core/audit/store';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import { startBatch } from '../src/core/provisioning/batch';

const TARGET_OVERHEAD = 1.1;
const OVERHEAD_BOARDS = 12;
const BATCH_BOARDS = 24;
/** Up to the adapter's connection limit: past it the controller refuses links (0x09). */
const CONCURRENCY = [1, 2, 4, DEFAULT_ADAPTER_PROFILE.maxConnections];

/**
 * The sim's default clock is Node's timers, which fire up to a millisecond or two late: on a
 * path of twenty 8 ms operations that is the sim's error, not the tool's overhead. This clock
 * sleeps on a timer until 2 ms before the deadline and then yields with setImmediate until it
 * is due, so each modelled latency lasts what the model says, to a tenth of a millisecond.
 */
export function preciseClock(): Clock {
  const now = () => performance.timeOrigin + performance.now();
  const live = new Set<number>();
  let next = 1;
  return {
    now,
    setTimeout(callback, ms) {
      const id = next++;
      const due = now() + ms;
      live.add(id);
      const check = () => {
        if (!live.has(id)) return;
        if (now() >= due) {
          live.delete(id);
          callback();
        } else setImmediate(check);
      };
      if (ms > 2) setTimeout(check, ms - 2);
      else setImmediate(check);
      return { id } as Timer;
    },
    clearTimeout(timer) {
      live.delete(timer.id);
    },
  };
}

export const provisioning: Benchmark = {
  name: 'provisioning',
  summary: `one board's tool time / the link model's time for the same path (target <= ${TARGET_OVERHEAD}); batch boards/min at concurrency ${CONCURRENCY.join(', ')}`,
  async run(print) {
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-prov-'));
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const overhead = await measureOverhead(dir);
      const perBoard = median(overhead.map((o) => o.modelledMs));
      const batches: { concurrency: number; perMinute: number; ideal: number }[] = [];
      for (const concurrency of CONCURRENCY) {
        const perMinute = await measureBatch(dir, concurrency);
        batches.push({ concurrency, perMinute, ideal: (concurrency * 60_000) / perBoard });
      }

      const p = DEFAULT_ADAPTER_PROFILE;
      print(
        `provisioning: devicebench-v1 over noble's HCI stack and the virtual controller ` +
          `(${p.connectionIntervalMs} ms connection interval, ${p.pdusPerEvent} PDUs per event, ` +
          `${p.maxConnections} links at most; boards: connect 40 ms, 8 ms per ATT answer, reboot ` +
          `${REBOOT_MS} ms, advertising every 100 ms, no jitter); audit store on disk, ` +
          `synchronous=FULL; load average ${loadBefore.toFixed(2)} at start`,
      );
      table([
        ['board', 'tool ms', 'link model ms', 'connection events', 'events × interval ms', 'ratio'],
        ...overhead.map((o, i) => [
          String(i + 1),
          ms(o.toolMs),
          ms(o.modelledMs),
          String(o.events),
          ms(o.events * p.connectionIntervalMs),
          o.ratio.toFixed(3),
        ]),
      ]).forEach((line) => print(line));
      table([
        ['concurrency', 'boards/min', 'ideal boards/min', 'of ideal'],
        ...batches.map((b) => [
          String(b.concurrency),
          b.perMinute.toFixed(0),
          b.ideal.toFixed(0),
          percent(b.perMinute / b.ideal),
        ]),
      ]).forEach((line) => print(line));
      // Judged on the median board: interference (other processes on the cores) only ever slows
      // a board, so the best one flatters the tool and the worst one measures the machine.
      const ratios = overhead.map((o) => o.ratio);
      const typical = median(ratios);
      // Ceiled so the printed ratio never reads as passing when the exact one does not.
      const shown = (n: number) => (Math.ceil(n * 1000) / 1000).toFixed(3);
      print(
        `provisioning: tool / link model time = ${shown(typical)} median, ${shown(Math.min(...ratios))} best, ` +
          `${shown(Math.max(...ratios))} worst of ${OVERHEAD_BOARDS} boards (target <= ${TARGET_OVERHEAD} for the median) ` +
          `${typical <= TARGET_OVERHEAD ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

interface Overhead {
  toolMs: number;
  modelledMs: number;
  events: number;
  ratio: number;
}

/** Each board provisioned twice, on identical benches: by the link model's clock, then for real. */
async function measureOverhead(dir: string): Promise<Overhead[]> {
  const model = await onStore(dir, 'model', (store) =>
    provisionEach(store, new ManualSimClock(Date.now()), OVERHEAD_BOARDS),
  );
  const real = await onStore(dir, 'real', (store) =>
    provisionEach(store, preciseClock(), OVERHEAD_BOARDS),
  );
  return real.map((r, i) => {
    const m = model[i]!;
    return { toolMs: r.ms, modelledMs: m.ms, events: m.events, ratio: r.ms / m.ms };
  });
}

/** The tool's audit store on disk, synchronous=FULL, as the app opens it. */
export async function onStore<T>(
  dir: string,
  label: string,
  use: (store: AuditStore) => Promise<T>,
): Promise<T> {
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `overhead-${label}.db`) },
    station: 'bench',
  });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

async function measureBatch(dir: string, concurrency: number): Promise<number> {
  const bench = new SimulatedBench({ seed: concurrency });
  bench.addBoard(spec('c5:00:00:00:00:01', BATCH_BOARDS));
  const central = createSimulatedCentral(bench);
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `batch-${concurrency}.db`) },
    station: 'bench',
  });
  try {
    const summary = await startBatch({
      central,
      store,
      profile: benchProfile(),
      product: PRODUCT,
      psdi: createPsdiAllocator({ kind: 'sequence', prefix: 'B-', width: 4 }, 20),
      concurrency,
      idleMs: 300,
    }).done;
    if (summary.ok !== BATCH_BOARDS)
      throw new InvalidRunError(
        `concurrency ${concurrency}: ${summary.ok} of ${BATCH_BOARDS} boards verified, ${summary.failed} failed`,
      );
    return summary.boardsPerMinute;
  } finally {
    await central.close();
    bench.close();
    await store.close();
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
