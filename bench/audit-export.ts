// The audit log's CSV export at 10⁵ and 10⁶ records on SQLite (through its worker thread) and
// PostgreSQL on loopback: time, rows and the process's peak RSS above its baseline while one
// product's records (a fifth of the log) stream into a file; and the longest stall of this
// thread's event loop during the export and during a text search that reads the whole log
// (docs/decisions.md, "Audit log off the window's thread, exports as streams"). Targets: peak
// within 100 MiB of the baseline; no stall over 50 ms.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { InvalidRunError, type Benchmark } from './benchmark';
import { count, ms, table } from './format';
import { startLocalPostgres } from '../scripts/local-postgres';
import { writeCsvFile } from '../src/core/audit/csv-export';
import { openAuditStore, type AuditLocation } from '../src/core/audit/open-store';

const SIZES = [100_000, 1_000_000];
const PRODUCTS = 5;
const TARGET_MIB = 100;
const TARGET_STALL_MS = 50;
const MIB = 1024 * 1024;

interface Measured {
  engine: string;
  size: number;
  rows: number;
  exportMs: number;
  peakMib: number;
  exportStallMs: number;
  searchMs: number;
  searchStallMs: number;
}

/** One generated row per n: 5 products, 8 stations, 30 days, 2 % failed, as a line's year. */
const ROW_SQL = (n: string) => `
  '300000000' || (${n} % ${PRODUCTS}), 'Product ' || (${n} % ${PRODUCTS}),
  '9d5e00004a1b4c8e9f0d000000000001', 'e625601e9e554597a59876018a0d293d',
  '26e2b12b85f04f3f9fdd91d114270e6e', 'board' || ${n}, 'addr:' || ${n}, 'PSDI-' || ${n}, 'tool',
  'devicebench-v1', 'station-' || (${n} % 8),
  CASE WHEN ${n} % 50 = 0 THEN 'failed' ELSE 'verified' END, 0, 1`;
const COLUMNS = `created_at, updated_at, product_id, product_name, service_uuid, psdi_service_uuid,
  psdi_characteristic_uuid, board_id, board_address, psdi, psdi_source, profile_id, station, state,
  psdi_held, attempts`;
const DAY0 = Date.UTC(2026, 0, 1);
const SPAN_MS = 30 * 86_400_000;

async function fillSqlite(file: string, size: number): Promise<void> {
  // The store creates and migrates the file; the rows go in by one statement, as a bulk load.
  await (await openAuditStore({ location: { kind: 'local', file } })).close();
  const db = new Database(file);
  db.exec(`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${size})
    INSERT INTO provisioning_records (${COLUMNS})
    SELECT ${DAY0} + n * ${Math.floor(SPAN_MS / size)}, ${DAY0} + n * ${Math.floor(SPAN_MS / size)},
      ${ROW_SQL('n')} FROM s`);
  db.close();
}

async function fillPostgres(url: string, size: number): Promise<void> {
  await (await openAuditStore({ location: { kind: 'postgres', url } })).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`INSERT INTO provisioning_records (${COLUMNS})
      SELECT ${DAY0} + n::bigint * ${Math.floor(SPAN_MS / size)}, ${DAY0} + n::bigint * ${Math.floor(SPAN_MS / size)},
        ${ROW_SQL('n')} FROM generate_series(1, ${size}) AS n`);
    await client.query('ANALYZE provisioning_records');
  } finally {
    await client.end();
  }
}

/** Runs `work` while sampling RSS and this thread's event-loop delay. */
async function watched<T>(work: () => Promise<T>) {
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  try {
    const value = await work();
    return {
      value,
      ms: performance.now() - started,
      peakMib: (Math.max(peak, process.memoryUsage().rss) - baseline) / MIB,
      stallMs: delay.max / 1e6,
    };
  } finally {
    clearInterval(sampler);
    delay.disable();
  }
}

async function measure(
  engine: string,
  location: AuditLocation,
  size: number,
  dir: string,
): Promise<Measured> {
  const store = await openAuditStore({ location, station: 'bench' });
  try {
    const file = join(dir, `${engine}-${size}.csv`);
    const exported = await watched(() =>
      writeCsvFile(store.exportCsv({ productId: '3000000001' }), file),
    );
    if (exported.value.rows !== size / PRODUCTS)
      throw new InvalidRunError(`${engine} ${size}: exported ${exported.value.rows} rows`);
    if (statSync(file).size < exported.value.rows * 100)
      throw new InvalidRunError(`${engine} ${size}: the file is too small`);
    rmSync(file);
    const searched = await watched(() => store.search({ text: 'no-such-board' }));
    return {
      engine,
      size,
      rows: exported.value.rows,
      exportMs: exported.ms,
      peakMib: exported.peakMib,
      exportStallMs: exported.stallMs,
      searchMs: searched.ms,
      searchStallMs: searched.stallMs,
    };
  } finally {
    await store.close();
  }
}

export const auditExport: Benchmark = {
  name: 'audit-export',
  summary: `CSV export of one product at ${SIZES.map(count).join(' and ')} records on SQLite and PostgreSQL: time, peak RSS over baseline (target <= ${TARGET_MIB} MiB), event-loop stall (target <= ${TARGET_STALL_MS} ms)`,
  async run(print) {
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-export-'));
    const pgDir = mkdtempSync(join(tmpdir(), 'devicebench-bench-export-pg-'));
    const server = await startLocalPostgres({ dir: pgDir });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const results: Measured[] = [];
      for (const size of SIZES) {
        const file = join(dir, `export-${size}.sqlite`);
        await fillSqlite(file, size);
        results.push(await measure('sqlite', { kind: 'local', file }, size, dir));
        rmSync(file, { force: true });
        const database = `export_${size}`;
        await admin.query(`CREATE DATABASE ${database}`);
        const url = server.url.replace(/\/[^/]*$/, `/${database}`);
        await fillPostgres(url, size);
        results.push(await measure('postgres', { kind: 'postgres', url }, size, dir));
        await admin.query(`DROP DATABASE ${database}`);
      }
      print(
        `audit-export: one product (a fifth of the log) streamed to a file; RSS sampled every 10 ms; ` +
          `load average ${loadBefore.toFixed(2)} at start${global.gc ? '' : ' (no --expose-gc: baseline not collected)'}`,
      );
      table([
        ['engine', 'records', 'rows', 'export ms', 'peak MiB', 'stall ms', 'search ms', 'stall ms'],
        ...results.map((r) => [
          r.engine,
          count(r.size),
          count(r.rows),
          ms(r.exportMs),
          r.peakMib.toFixed(0),
          ms(r.exportStallMs),
          ms(r.searchMs),
          ms(r.searchStallMs),
        ]),
      ]).forEach((l) => print(l));
      for (const r of results.filter((r) => r.size === Math.max(...SIZES))) {
        const stall = Math.max(r.exportStallMs, r.searchStallMs);
        print(
          `audit-export: ${r.engine} ${count(r.size)}: peak ${r.peakMib.toFixed(0)} MiB / target ${TARGET_MIB} MiB = ` +
            `${(r.peakMib / TARGET_MIB).toFixed(2)} ${r.peakMib <= TARGET_MIB ? 'PASS' : 'FAIL'}`,
        );
        print(
          `audit-export: ${r.engine} ${count(r.size)}: longest stall ${ms(stall)} ms / target ${TARGET_STALL_MS} ms = ` +
            `${(stall / TARGET_STALL_MS).toFixed(2)} ${stall <= TARGET_STALL_MS ? 'PASS' : 'FAIL'}`,
        );
      }
    } finally {
      await admin.end().catch(() => undefined);
      await server.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      rmSync(pgDir, { recursive: true, force: true });
    }
  },
};
