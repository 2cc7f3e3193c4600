// PSDI reservations on a production line: stations reserving back to back from one sequence
// against PostgreSQL on loopback (a server of its own, default durability: fsync on), beside the
// SQLite store on disk (synchronous=FULL) in the same run. Reservations per second and p99
// latency with 1, 4 and 8 stations; each station is its own connection pool, all driven from
// this one process (docs/decisions.md, "Production line"). Each engine runs on an empty log and
// on one filled as a line leaves it (bench/audit-fill.ts; `--filled 1e5` by default), reserving
// from a product the log already holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { createDatabase, fillLog, fillPrefix, fillProductId, FILL_PSDI_WIDTH } from './audit-fill';
import { count as counted, ms, table } from './format';
import { startLocalPostgres } from '../scripts/local-postgres';
import { openAuditStore, type AuditLocation } from '../src/core/audit/open-store';
import type { AuditStore, ReserveInput } from '../src/core/audit/store';
import { createPsdiAllocator } from '../src/core/provisioning/psdi';
import {
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
} from '../src/core/platform/things/schema';

const STATIONS = [1, 4, 8];
const RUN_MS = 3_000;
const TARGET_PER_SECOND = 500;
const TARGET_P99_MS = 20;

const PRODUCT: ReserveInput['product'] = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e00004a1b4c8e9f0d000000000001',
  psdiServiceUuid: PLATFORM_PSDI_SERVICE_UUID,
  psdiCharacteristicUuid: PLATFORM_PSDI_CHARACTERISTIC_UUID,
};

interface Measured {
  engine: string;
  log: string;
  stations: number;
  perSecond: number;
  p99Ms: number;
}

export const line: Benchmark = {
  name: 'line',
  summary: `PSDI reservations/s and p99 latency with ${STATIONS.join(', ')} stations on PostgreSQL (target >= ${TARGET_PER_SECOND}/s, p99 <= ${TARGET_P99_MS} ms at 8) and SQLite`,
  async run(print, flags = {}) {
    const filled = Number(flags.filled ?? 1e5);
    if (!Number.isInteger(filled) || filled < 1_000)
      throw new InvalidRunError(`--filled: a record count of at least 1e3 (got "${flags.filled}")`);
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-line-'));
    const pgDir = mkdtempSync(join(tmpdir(), 'devicebench-bench-line-pg-'));
    const server = await startLocalPostgres({ dir: pgDir });
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const results: Measured[] = [];
      for (const stations of STATIONS)
        results.push(
          await measure(
            'postgres',
            { kind: 'postgres', url: server.url },
            stations,
            `pg${stations}`,
          ),
        );
      const pgFilled: AuditLocation = {
        kind: 'postgres',
        url: await createDatabase(server.url, 'line_filled'),
      };
      await fill(pgFilled, filled);
      for (const stations of STATIONS)
        results.push(await measure('postgres', pgFilled, stations, `pgf${stations}`, filled));
      for (const stations of STATIONS)
        results.push(
          await measure(
            'sqlite',
            { kind: 'local', file: join(dir, `line-${stations}.sqlite`) },
            stations,
            `sq${stations}`,
          ),
        );
      const sqFilled: AuditLocation = { kind: 'local', file: join(dir, 'line-filled.sqlite') };
      await fill(sqFilled, filled);
      for (const stations of STATIONS)
        results.push(await measure('sqlite', sqFilled, stations, `sqf${stations}`, filled));
      print(
        `line: back-to-back sequence reservations for ${RUN_MS / 1000} s per row; PostgreSQL ` +
          `on loopback (fsync on), SQLite on disk (synchronous=FULL); load average ` +
          `${loadBefore.toFixed(2)} at start`,
      );
      table([
        ['engine', 'log', 'stations', 'reservations/s', 'p99 ms'],
        ...results.map((r) => [
          r.engine,
          r.log,
          String(r.stations),
          r.perSecond.toFixed(0),
          ms(r.p99Ms),
        ]),
      ]).forEach((l) => print(l));
      for (const log of ['empty', `${counted(filled)} records`]) {
        const eight = results.find(
          (r) => r.engine === 'postgres' && r.stations === 8 && r.log === log,
        );
        if (!eight)
          throw new InvalidRunError(`no PostgreSQL run with 8 stations on the ${log} log`);
        print(
          `line: PostgreSQL, 8 stations, ${log} log: ${eight.perSecond.toFixed(0)} reservations/s / target ${TARGET_PER_SECOND} = ` +
            `${(eight.perSecond / TARGET_PER_SECOND).toFixed(2)} ${eight.perSecond >= TARGET_PER_SECOND ? 'PASS' : 'FAIL'}`,
        );
        print(
          `line: PostgreSQL, 8 stations, ${log} log: p99 ${ms(eight.p99Ms)} ms / target ${TARGET_P99_MS} ms = ` +
            `${(eight.p99Ms / TARGET_P99_MS).toFixed(2)} ${eight.p99Ms <= TARGET_P99_MS ? 'PASS' : 'FAIL'}`,
        );
      }
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
  engine: string,
  location: AuditLocation,
  count: number,
  run: string,
  filled = 0,
): Promise<Measured> {
  const stores: AuditStore[] = [];
  for (let i = 0; i < count; i++)
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
    await Promise.all(
      stores.map(async (store) => {
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
    log: filled ? `${counted(filled)} records` : 'empty',
    stations: count,
    perSecond: (latencies.length * 1000) / elapsed,
    p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
  };
}
