// Provisioning on the simulated bench through noble's own HCI stack and the virtual controller,
// as the tool runs it (audit store on disk with synchronous=FULL, verify by read-back).
// Overhead: the tool's wall time for one board over the time the link model allows for the same
// path: the same provisioning run on a clock that moves only when the sim schedules something, so
// the tool's own work takes no time and what remains is connection events × interval, the
// board's answers, its reboot and its advertising. Throughput: a batch of boards per minute at
// several concurrencies, against the ideal the model allows and the adapter's connection limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { ms, percent, table } from './format';
import { createSimulatedCentral } from '../src/core/ble/noble';
import { DEFAULT_ADAPTER_PROFILE } from '../src/core/ble/sim/adapter-profile';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import type { Clock, Timer } from '../src/core/async/clock';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import type { BoardSpecInput } from '../src/core/ble/sim/board-schema';
import type { Advertisement, BleCentral } from '../src/core/ble/port';
import { openAuditStore } from '../src/core/audit/open-store';
import { builtInProfiles, gattProfiles } from '../src/core/provisioning/profiles';
import { createPsdiAllocator } from '../src/core/provisioning/psdi';
import type { ProductTarget } from '../src/core/provisioning/steps';
import { provisionBoard } from '../src/core/provisioning/workflow';
import { startBatch } from '../src/core/provisioning/batch';

const TARGET_OVERHEAD = 1.1;
const OVERHEAD_BOARDS = 12;
const BATCH_BOARDS = 24;
/** Up to the adapter's connection limit: past it the controller refuses links (0x09). */
const CONCURRENCY = [1, 2, 4, DEFAULT_ADAPTER_PROFILE.maxConnections];
const REBOOT_MS = 200;
// A typical nRF52/ESP32 prototype; no jitter, so the modelled time of a path is exact.
const spec = (address: string, count: number): BoardSpecInput => ({
  name: 'Bench Prov {n}',
  address,
  count,
  advertising: { intervalMs: 100, rssi: { mean: -55, noise: 0 } },
  latency: { connectMs: 40, perOperationMs: 8, jitterMs: 0 },
  provisioning: { profile: 'devicebench-v1', rebootMs: REBOOT_MS },
});

const PRODUCT: ProductTarget = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
  psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
  psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
};
const profile = gattProfiles(builtInProfiles()).find((p) => p.id === 'devicebench-v1');

/**
 * The sim's default clock is Node's timers, which fire up to a millisecond or two late: on a
 * path of twenty 8 ms operations that is the sim's error, not the tool's overhead. This clock
 * sleeps on a timer until 2 ms before the deadline and then yields with setImmediate until it
 * is due, so each modelled latency lasts what the model says, to a tenth of a millisecond.
 */
function preciseClock(): Clock {
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
    if (!profile) throw new Error('the devicebench-v1 profile is missing');
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
  const model = await provisionEach(dir, 'model', new ManualSimClock(Date.now()));
  const real = await provisionEach(dir, 'real', preciseClock());
  return real.map((r, i) => {
    const m = model[i]!;
    return { toolMs: r.ms, modelledMs: m.ms, events: m.events, ratio: r.ms / m.ms };
  });
}

async function provisionEach(
  dir: string,
  label: string,
  clock: Clock,
): Promise<{ ms: number; events: number }[]> {
  const manual = clock instanceof ManualSimClock ? clock : undefined;
  const bench = new SimulatedBench({ seed: 1, clock });
  const boards = bench.addBoard(spec('c4:00:00:00:00:01', OVERHEAD_BOARDS));
  let events = 0;
  const central = createSimulatedCentral(bench, {
    trace: (direction, packet) => {
      // Number Of Completed Packets marks each connection event that carried the host's data.
      if (direction === 'received' && packet[0] === 0x04 && packet[1] === 0x13) events++;
    },
  });
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `overhead-${label}.db`) },
    station: 'bench',
  });
  const psdi = createPsdiAllocator({ kind: 'sequence', prefix: 'OVH-', width: 4 }, 20);
  // On the model's clock time moves only here, in steps of 0.1 ms, while the tool waits.
  const drive = async <T>(promise: Promise<T>): Promise<T> => {
    if (!manual) return promise;
    let done = false;
    const tracked = promise.finally(() => (done = true));
    tracked.catch(() => undefined);
    while (!done) await manual.advance(0.1);
    return tracked;
  };
  const results: { ms: number; events: number }[] = [];
  try {
    for (const board of boards) {
      const ad = await drive(advertisement(central, board.address, clock));
      const start = clock.now();
      const before = events;
      const { durationMs } = await drive(
        provisionBoard({ central, store, profile: profile!, product: PRODUCT, board: ad, psdi }),
      );
      results.push({ ms: manual ? clock.now() - start : durationMs, events: events - before });
    }
    return results;
  } finally {
    await drive(central.close());
    bench.close();
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
      profile: profile!,
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

function advertisement(central: BleCentral, address: string, clock: Clock): Promise<Advertisement> {
  return new Promise((resolve, reject) => {
    let timer: Timer | undefined;
    const scan = central.startScan({ serviceUuids: [profile!.service] }, (ad) => {
      if (ad.address !== address || !timer) return;
      clock.clearTimeout(timer);
      timer = undefined;
      void scan.then((s) => s.stop()).then(() => resolve(ad), reject);
    });
    timer = clock.setTimeout(() => reject(new Error(`${address} did not advertise`)), 5_000);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
