// PSDI reservations on a production line: stations reserving back to back from one sequence
// against PostgreSQL on loopback (a server of its own, default durability: fsync on), beside the
// SQLite store on disk (synchronous=FULL) in the same run. Reservations per second and p99
// latency with 1, 4 and 8 stations, and one SQLite station with a batch's 5 and 10 reservations
// under way at once; each row beside its target and its ratio to it. Each station is its own
// connection pool or worker, all driven from this one process (docs/decisions.md, "Production
// line", "Reservations fast again"). Each engine runs on an empty log and
// on one filled as a line leaves it (bench/audit-fill.ts; `--filled 1e5` by default), reserving
// from a product the log already holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { createDatabase, fillLog, fillPrefix, fillProductId, FILL_PSDI_WIDTH } from './audit-fill';
import { count as counted, ms, table } from './format';
import { lineAgainst, rowKey, type AgainstTarget } from './line-against';
import { startLocalPostgres } from '../scripts/local-postgres';
import { openAuditStore, type AuditLocation } from '../src/core/audit/open-store';
import type { AuditStore, ReserveInput } from '../src/core/audit/store';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import {
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
} from '../src/core/platform/things/schema';

const STATIONS = [1, 4, 8];
/** One station reserving for a batch: this many boards at once (concurrency 5, several adapters). */
const BATCH = [5, 10];
const RUN_MS = 3_000;

/** What a row must reach: at least `perSecond`, at most `p99Ms` (either may be open). */
interface Target {
  perSecond?: number;
  p99Ms?: number;
}

/**
 * The line's targets (docs/decisions.md, "Reservations fast again"): eight stations on a
 * PostgreSQL log a line has used for a while; one SQLite station alone, and with a batch's five
 * reservations at once. The empty PostgreSQL log keeps the first target the line had.
 */
function targetOf(r: Pick<Measured, 'engine' | 'filled' | 'stations' | 'concurrent'>): Target {
  if (r.engine === 'postgres' && r.stations === 8)
    return r.filled ? { perSecond: 900, p99Ms: 15 } : { perSecond: 500, p99Ms: 20 };
  if (r.engine === 'sqlite' && r.stations === 1 && r.concurrent === 1)
    return { perSecond: 1_000, p99Ms: 5 };
  if (r.engine === 'sqlite' && r.stations === 1 && r.concurrent === 5) return { p99Ms: 15 };
  // Four stores on one file, as four stations of one process open it (issue 46).
  if (r.engine === 'sqlite' && !r.filled && r.stations === 4 && r.concurrent === 1)
    return { p99Ms: 15 };
  return {};
}

/**
 * `--against`: each row's own target, and one SQLite station on an empty log at least 0.95 of
 * the other revision's reservations/s, whatever the machine gives both (issue 46; the other
 * revision's rows match by key, bench/line-against.ts).
 */
function againstTargetOf(filled: number): (key: string) => AgainstTarget {
  const targets = new Map<string, AgainstTarget>();
  for (const engine of ['postgres', 'sqlite'] as const)
    for (const log of [0, filled])
      for (const shape of shapes(engine)) {
        const row = { engine, filled: log, ...shape };
        const sqliteAlone =
          engine === 'sqlite' && !log && shape.stations === 1 && shape.concurrent === 1;
        targets.set(keyOf(row), {
          ...targetOf(row),
          ...(sqliteAlone ? { minRateRatio: 0.95 } : {}),
        });
      }
  return (key) => targets.get(key) ?? {};
}

/** How the table says which log a row ran on. */
const logOf = (filled: number) => (filled ? `${counted(filled)} records` : 'empty');

const keyOf = (r: Pick<Measured, 'engine' | 'filled' | 'stations' | 'concurrent'>) =>
  rowKey({
    engine: r.engine,
    log: logOf(r.filled),
    stations: String(r.stations),
    concurrent: String(r.concurrent),
  });

const PRODUCT: ReserveInput['product'] = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e00004a1b4c8e9f0d000000000001',
  psdiServiceUuid: PLATFORM_PSDI_SERVICE_UUID,
  psdiCharacteristicUuid: PLATFORM_PSDI_CHARACTERISTIC_UUID,
};

interface Measured {
  engine: 'postgres' | 'sqlite';
  /** Records in the log before the run (0: empty). */
  filled: number;
  stations: number;
  /** Reservations each station has under way at once. */
  concurrent: number;
  perSecond: number;
  p99Ms: number;
}

/** The rows to run on one log: stations one reservation at a time, then one station's batches. */
function shapes(engine: Measured['engine']): { stations: number; concurrent: number }[] {
  const lines = STATIONS.map((stations) => ({ stations, concurrent: 1 }));
  if (engine === 'postgres') return lines;
  return [...lines, ...BATCH.map((concurrent) => ({ stations: 1, concurrent }))];
}

export const line: Benchmark = {
  name: 'line',
  summary: `PSDI reservations/s and p99 latency with ${STATIONS.join(', ')} stations on PostgreSQL and SQLite, and one SQLite station with ${BATCH.join(' and ')} at once; each row against its target (--filled N; --against REV [--rounds N]: beside another revision's, back to back)`,
  async run(print, flags = {}) {
    const filled = Number(flags.filled ?? 1e5);
    if (!Number.isInteger(filled) || filled < 1_000)
      throw new InvalidRunError(`--filled: a record count of at least 1e3 (got "${flags.filled}")`);
    if ('rounds' in flags && !('against' in flags))
      throw new InvalidRunError('--rounds: only with --against REV (runs per side)');
    if ('against' in flags) {
      const { against, rounds, ...own } = flags;
      return lineAgainst(print, { against, rounds, flags: own, targetOf: againstTargetOf(filled) });
    }
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-line-'));
    const pgDir = mkdtempSync(join(tmpdir(), 'devicebench-bench-line-pg-'));
    const server = await startLocalPostgres({ dir: pgDir });
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const results: Measured[] = [];
      for (const shape of shapes('postgres'))
        results.push(
          await measure(
            'postgres',
            { kind: 'postgres', url: server.url },
            shape,
            `pg${results.length}`,
          ),
        );
      const pgFilled: AuditLocation = {
        kind: 'postgres',
        url: await createDatabase(server.url, 'line_filled'),
      };
      await fill(pgFilled, filled);
      for (const shape of shapes('postgres'))
        results.push(await measure('postgres', pgFilled, shape, `pgf${results.length}`, filled));
      // Stopped before the SQLite rows, its shutdown checkpoint waited for: otherwise the
      // server's checkpointer writes the fill and the rows out in the background, on the disk
      // whose fsyncs the SQLite rows time (issue 46).
      await server.stop('fast');
      for (const shape of shapes('sqlite'))
        results.push(
          await measure(
            'sqlite',
            { kind: 'local', file: join(dir, `line-${results.length}.sqlite`) },
            shape,
            `sq${results.length}`,
          ),
        );
      const sqFilled: AuditLocation = { kind: 'local', file: join(dir, 'line-filled.sqlite') };
      await fill(sqFilled, filled);
      for (const shape of shapes('sqlite'))
        results.push(await measure('sqlite', sqFilled, shape, `sqf${results.length}`, filled));
      print(
        `line: back-to-back sequence reservations for ${RUN_MS / 1000} s per row; PostgreSQL ` +
          `on loopback (fsync on), SQLite on disk (synchronous=FULL); load average ` +
          `${loadBefore.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end`,
      );
      table([
        [
          'engine',
          'log',
          'stations',
          'at once',
          'reservations/s',
          'target',
          'ratio',
          'p99 ms',
          'target',
          'ratio',
          '',
        ],
        ...results.map((r) => {
          const target = targetOf(r);
          const rate = target.perSecond;
          const p99 = target.p99Ms;
          const pass =
            (rate === undefined || r.perSecond >= rate) && (p99 === undefined || r.p99Ms <= p99);
          return [
            r.engine,
            logOf(r.filled),
            String(r.stations),
            String(r.concurrent),
            r.perSecond.toFixed(0),
            rate === undefined ? '-' : `>= ${rate}`,
            rate === undefined ? '-' : (r.perSecond / rate).toFixed(2),
            ms(r.p99Ms),
            p99 === undefined ? '-' : `<= ${p99}`,
            p99 === undefined ? '-' : (r.p99Ms / p99).toFixed(2),
            rate === undefined && p99 === undefined ? '' : pass ? 'PASS' : 'FAIL',
          ];
        }),
      ]).forEach((l) => print(l));
    } finally {
      await server.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      rmSync(pgDir, { recursive: true, force: true });
    }
  },
};

/** A migrated log filled with `size` records as a line leaves it. */
async function fill(location: AuditLocation, size: number): Promise<void> {
  await (await openAuditStore({ location, station: 'setup' })).close();
  await fillLog(location, size, Date.now());
}

async function measure(
  engine: Measured['engine'],
  location: AuditLocation,
  shape: { stations: number; concurrent: number },
  run: string,
  filled = 0,
): Promise<Measured> {
  const stores: AuditStore[] = [];
  for (let i = 0; i < shape.stations; i++)
    stores.push(await openAuditStore({ location, station: `${run}-${i}` }));
  // On a filled log, the sequence of a product it holds, continued past the fill's numbers.
  const product = { ...PRODUCT, id: filled ? fillProductId(0) : run };
  const allocator = filled
    ? createPsdiAllocator({ kind: 'sequence', prefix: fillPrefix(0), width: FILL_PSDI_WIDTH }, 20)
    : createPsdiAllocator({ kind: 'sequence', prefix: 'L-', width: 7 }, 20);
  const latencies: number[] = [];
  const psdis = new Set<string>();
  let board = 0;
  const until = performance.now() + RUN_MS;
  const started = performance.now();
  try {
    const reservers = stores.flatMap((store) => Array<AuditStore>(shape.concurrent).fill(store));
    await Promise.all(
      reservers.map(async (store) => {
        while (performance.now() < until) {
          const n = ++board;
          const at = performance.now();
          const record = await store.reserve({
            product,
            board: { id: `${run}-b${n}`, address: `${run}-board-${n}` },
            profileId: 'devicebench-v1',
            psdiSource: 'tool',
            psdi: allocator,
          });
          latencies.push(performance.now() - at);
          psdis.add(record.psdi);
        }
      }),
    );
  } finally {
    for (const store of stores) await store.close();
  }
  const elapsed = performance.now() - started;
  if (psdis.size !== latencies.length)
    throw new InvalidRunError(`${engine}: ${latencies.length - psdis.size} PSDIs handed out twice`);
  latencies.sort((a, b) => a - b);
  return {
    engine,
    filled,
    ...shape,
    perSecond: (latencies.length * 1000) / elapsed,
    p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
  };
}
