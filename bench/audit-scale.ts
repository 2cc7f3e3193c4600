// The audit log after a year on a line: each engine filled to 10⁴, 10⁵ and 10⁶ records
// (bench/audit-fill.ts), then the calls a station makes for every board, the calls the UI makes,
// a CSV export and the event loop while the Line page polls — all through the public store API,
// as the app calls it. Targets at the largest size: station calls p99 <= 20 ms, UI calls p99 <=
// 50 ms, no stall over 50 ms, export within 100 MiB of its process's baseline, and each station
// call's p99 at most 2× the smallest size's (docs/decisions.md, "The audit log at a million
// records"). `-- audit-scale --sizes 1e4,1e5` for a quicker run.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { InvalidRunError, type Benchmark } from './benchmark';
import {
  createDatabase,
  fillAddress,
  fillLog,
  fillPrefix,
  fillProductId,
  fillPsdi,
  FILL_PRODUCTS,
  FILL_PSDI_WIDTH,
} from './audit-fill';
import { count, ms, table } from './format';
import { startLocalPostgres, type LocalPostgres } from '../scripts/local-postgres';
import { openAuditStore, type AuditLocation } from '../src/core/audit/open-store';
import type { ReserveInput } from '../src/core/audit/store';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import {
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
} from '../src/core/platform/things/schema';

const run = promisify(execFile);

const DEFAULT_SIZES = [1e4, 1e5, 1e6];
const BOARDS = 1_000;
const UI_REPEATS = 40;
const POLL_MS = 2_000;
const TARGET = { stationP99: 20, uiP99: 50, stallMs: 50, exportMiB: 100, ratio: 2 };

type Engine = 'sqlite' | 'postgres';

interface Result {
  engine: Engine;
  size: number;
  fillS: number;
  reserve: Percentiles;
  complete: Percentiles;
  ui: Record<string, Percentiles>;
  exportMs: number;
  exportMiB: number;
  exportRows: number;
  stallMs: number;
}

interface Percentiles {
  p50: number;
  p99: number;
}

export const auditScale: Benchmark = {
  name: 'audit-scale',
  summary:
    'the audit log at 10⁴/10⁵/10⁶ records on both engines: station and UI call p99, export memory, event-loop stalls (--sizes 1e4,1e5)',
  async run(print, flags = {}) {
    const sizes = parseSizes(flags.sizes);
    const engines = (flags.engines ?? 'sqlite,postgres').split(',') as Engine[];
    if (engines.some((e) => e !== 'sqlite' && e !== 'postgres'))
      throw new InvalidRunError(`--engines: sqlite, postgres or both (got "${flags.engines}")`);
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-audit-'));
    const pgDir = mkdtempSync(join(tmpdir(), 'devicebench-bench-audit-pg-'));
    let server: LocalPostgres | undefined;
    try {
      server = await startLocalPostgres({ dir: pgDir });
      print(
        `audit-scale: sizes ${sizes.map(count).join(', ')}; ${BOARDS} boards reserved + completed ` +
          `per size, ${UI_REPEATS} of each UI call; load average ${(loadavg()[0] ?? 0).toFixed(2)} at start`,
      );
      const results: Result[] = [];
      for (const engine of engines)
        for (const size of sizes) {
          const location: AuditLocation =
            engine === 'sqlite'
              ? { kind: 'local', file: join(dir, `audit-${size}.sqlite`) }
              : { kind: 'postgres', url: await createDatabase(server.url, `audit_${size}`) };
          const result = await measure(engine, size, location, dir);
          results.push(result);
          printResult(print, result);
          if (engine === 'sqlite')
            rmSync(location.kind === 'local' ? location.file : '', { force: true });
        }
      printVerdicts(print, results, sizes, engines);
    } finally {
      await server?.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      rmSync(pgDir, { recursive: true, force: true });
    }
  },
};

function parseSizes(value: string | undefined): number[] {
  if (value === undefined) return DEFAULT_SIZES;
  const sizes = value.split(',').map((s) => Number(s.trim()));
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 1_000 || n > 1e7))
    throw new InvalidRunError(
      `--sizes: whole numbers from 1e3 to 1e7, e.g. 1e4,1e5 (got "${value}")`,
    );
  return sizes;
}

function product(k: number): ReserveInput['product'] {
  return {
    id: fillProductId(k),
    name: `Product ${k}`,
    serviceUuid: `9d5e00004a1b4c8e9f0d00000000000${k}`,
    psdiServiceUuid: PLATFORM_PSDI_SERVICE_UUID,
    psdiCharacteristicUuid: PLATFORM_PSDI_CHARACTERISTIC_UUID,
  };
}

async function measure(
  engine: Engine,
  size: number,
  location: AuditLocation,
  dir: string,
): Promise<Result> {
  // Open once so the schema is migrated, fill behind the store's back, then open as a station
  // does (SQLite's PRAGMA optimize on open sees the filled tables).
  await (await openAuditStore({ location, station: 'setup' })).close();
  const filling = performance.now();
  const end = Date.now();
  await fillLog(location, size, end);
  const fillS = (performance.now() - filling) / 1000;
  const store = await openAuditStore({ location, station: 'bench-0' });
  try {
    const allocators = Array.from({ length: FILL_PRODUCTS }, (_, k) =>
      createPsdiAllocator({ kind: 'sequence', prefix: fillPrefix(k), width: FILL_PSDI_WIDTH }, 20),
    );
    // The event loop while a station provisions and the Line page polls every 2 s.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await store.lineStatus();
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    const reserve: number[] = [];
    const complete: number[] = [];
    for (let b = 0; b < BOARDS; b++) {
      await nextRequest();
      const k = b % FILL_PRODUCTS;
      let at = performance.now();
      const record = await store.reserve({
        product: product(k),
        board: { id: `bench${b}`, address: fillAddress(size + 1_000 + b) },
        profileId: 'devicebench-v1',
        psdiSource: 'tool',
        psdi: allocators[k]!,
      });
      reserve.push(performance.now() - at);
      at = performance.now();
      await store.markWritten(record.id, 1);
      await nextRequest();
      await store.markVerified(record.id, 1);
      complete.push(performance.now() - at);
    }
    // Each UI call, timed alone.
    const k = 2;
    const known = Math.floor(size / 2);
    const psdiText = fillPsdi(k, Math.floor(known / FILL_PRODUCTS) + 1).slice(1);
    const address = fillAddress(known - (known % FILL_PRODUCTS) + k);
    const ui: Record<string, Percentiles> = {};
    const calls: Record<string, () => Promise<unknown>> = {
      'search PSDI text': () => store.search({ text: psdiText }),
      'search product + address': () =>
        store.search({ productId: fillProductId(k), boardAddress: address, limit: 500 }),
      'verified count': () => store.search({ states: ['verified'], limit: 1 }),
      'product page 3': async () => {
        let page = await store.search({ productId: fillProductId(k) });
        for (let i = 0; i < 2 && page.next; i++)
          page = await store.search({ productId: fillProductId(k), after: page.next });
      },
      'Line status': () => store.lineStatus(),
      'next PSDI': () => store.peekPsdi(fillProductId(k), allocators[k]!),
    };
    for (const [name, call] of Object.entries(calls)) {
      const times: number[] = [];
      for (let i = 0; i < UI_REPEATS; i++) {
        await nextRequest();
        const at = performance.now();
        await call();
        times.push(performance.now() - at);
      }
      ui[name] = percentiles(times);
    }
    polling = false;
    await poller;
    loop.disable();
    const stallMs = loop.max / 1e6;
    const found = await store.search({ productId: fillProductId(k), text: address });
    if (found.items.length !== 1)
      throw new InvalidRunError(
        `${engine} ${size}: the search for ${address} found ${found.items.length} records`,
      );
    const exported = await exportInChild(
      location,
      fillProductId(k),
      join(dir, `export-${engine}-${size}.csv`),
    );
    return {
      engine,
      size,
      fillS,
      reserve: percentiles(reserve),
      complete: percentiles(complete),
      ui,
      exportMs: exported.ms,
      exportMiB: exported.peakMiB - exported.baselineMiB,
      exportRows: Math.round(size / FILL_PRODUCTS),
      stallMs,
    };
  } finally {
    await store.close();
  }
}

async function exportInChild(
  location: AuditLocation,
  productId: string,
  file: string,
): Promise<{ ms: number; baselineMiB: number; peakMiB: number }> {
  const script = new URL('./audit-export-child.ts', import.meta.url).pathname;
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', script, JSON.stringify(location), productId, file],
    { maxBuffer: 1024 * 1024 },
  );
  rmSync(file, { force: true });
  return JSON.parse(stdout) as { ms: number; baselineMiB: number; peakMiB: number };
}

/**
 * Each call arrives as its own task, as IPC and HTTP hand them in: without this, a synchronous
 * engine's calls would chain as microtasks and the event loop would never get a turn to be
 * measured in.
 */
function nextRequest(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

function printResult(print: (line: string) => void, r: Result): void {
  print(`audit-scale: ${r.engine}, ${count(r.size)} records (filled in ${r.fillS.toFixed(1)} s)`);
  table([
    ['call', 'p50 ms', 'p99 ms'],
    ['reserve', ms(r.reserve.p50), ms(r.reserve.p99)],
    ['written + verified', ms(r.complete.p50), ms(r.complete.p99)],
    ...Object.entries(r.ui).map(([name, p]) => [name, ms(p.p50), ms(p.p99)]),
  ]).forEach((line) => print(line));
  print(
    `  export of one product (${count(r.exportRows)} rows): ${ms(r.exportMs)} ms, peak ` +
      `+${r.exportMiB.toFixed(0)} MiB over its process's baseline; longest event-loop stall ` +
      `while the Line page polled: ${ms(r.stallMs)} ms`,
  );
}

function verdict(value: number, target: number): string {
  return `${ms(value)} / ${target} = ${(value / target).toFixed(2)} ${value <= target ? 'PASS' : 'FAIL'}`;
}

function printVerdicts(
  print: (line: string) => void,
  results: Result[],
  sizes: number[],
  engines: Engine[],
): void {
  const largest = Math.max(...sizes);
  const smallest = Math.min(...sizes);
  for (const engine of engines) {
    const big = results.find((r) => r.engine === engine && r.size === largest);
    const small = results.find((r) => r.engine === engine && r.size === smallest);
    if (!big || !small) throw new InvalidRunError(`${engine}: a size did not run`);
    const at = `audit-scale: ${engine} at ${count(largest)}:`;
    print(`${at} station p99 (reserve) ms ${verdict(big.reserve.p99, TARGET.stationP99)}`);
    print(
      `${at} station p99 (written + verified) ms ${verdict(big.complete.p99, TARGET.stationP99)}`,
    );
    for (const [name, p] of Object.entries(big.ui))
      print(`${at} ${name} p99 ms ${verdict(p.p99, TARGET.uiP99)}`);
    print(`${at} longest stall ms ${verdict(big.stallMs, TARGET.stallMs)}`);
    print(`${at} export peak over baseline MiB ${verdict(big.exportMiB, TARGET.exportMiB)}`);
    if (largest !== smallest) {
      const ratio = (a: number, b: number) => a / Math.max(b, 0.05);
      print(
        `${at} reserve p99 ratio ${count(largest)}/${count(smallest)} ` +
          verdict(ratio(big.reserve.p99, small.reserve.p99), TARGET.ratio),
      );
      print(
        `${at} written + verified p99 ratio ${count(largest)}/${count(smallest)} ` +
          verdict(ratio(big.complete.p99, small.complete.p99), TARGET.ratio),
      );
    }
  }
}
