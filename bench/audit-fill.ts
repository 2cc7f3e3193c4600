// An audit log as a year on a line leaves it, written straight into the tables with bulk SQL
// (not through reserve(), which would take hours at 10⁶): 5 products, 8 stations, 30 days up to
// now, 2 % failed — half before the commit (PSDI returned and handed out again to the product's
// next board), half after it (held; released by an operator and reissued unless from the last
// day, which stays for reconcile) — and the last few boards still in flight. `bench -- line`
// and `bench -- audit-scale` read it (docs/decisions.md, "The audit log at a million records").
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { RECORD_COLUMNS } from '../src/core/audit/record-rows';
import { RETURNED_POOL_BACKFILL } from '../src/core/audit/schema';
import type { AuditLocation } from '../src/core/audit/open-store';
import {
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
} from '../src/core/platform/things/schema';

export const FILL_PRODUCTS = 5;
const FILL_STATIONS = 8;
const DAY_MS = 86_400_000;
const SPAN_MS = 30 * DAY_MS;
const PSDI_WIDTH = 8;

export function fillProductId(k: number): string {
  return `300000000${k}`;
}

export function fillPrefix(k: number): string {
  return `P${k}-`;
}

export function fillPsdi(k: number, n: number): string {
  return fillPrefix(k) + String(n).padStart(PSDI_WIDTH, '0');
}

export function fillAddress(i: number): string {
  const hex = i.toString(16).padStart(8, '0');
  return `c2:8e:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}:${hex.slice(6, 8)}`;
}

export const FILL_PSDI_WIDTH = PSDI_WIDTH;

/** One firmware image per product, as a line that flashes before provisioning records it. */
const FILL_IMAGE_HASHES = Array.from({ length: FILL_PRODUCTS }, (_, k) =>
  createHash('sha256').update(`image-${k}`).digest('hex'),
);

/** Record i of a log of `size`, as the values of RECORD_COLUMNS. */
/** `row`, refused unless it has one value per column (a short row would shift every later one). */
function checkedRow(i: number, size: number, end: number): unknown[] {
  const values = row(i, size, end);
  if (values.length !== RECORD_COLUMNS.length)
    throw new Error(`fill row ${i}: ${values.length} values for ${RECORD_COLUMNS.length} columns`);
  return values;
}

function row(i: number, size: number, end: number): unknown[] {
  const k = i % FILL_PRODUCTS;
  const step = SPAN_MS / size;
  const created = Math.round(end - SPAN_MS + i * step);
  // Failures: i ≡ 7 (mod 100) before the commit, i ≡ 57 after it; each reissued five records on.
  const before = i % 100 === 7;
  const after = i % 100 === 57;
  const reissues = i >= 5 && (i - 5) % 100 === 7;
  const releasedAfter = i >= 5 && (i - 5) % 100 === 57 && end - (created - 5 * step) > DAY_MS;
  const n =
    reissues || releasedAfter
      ? Math.floor((i - 5) / FILL_PRODUCTS) + 1
      : Math.floor(i / FILL_PRODUCTS) + 1;
  const psdi = fillPsdi(k, n);
  const hex = i.toString(16).padStart(8, '0');
  const base = [
    created,
    created + 4_000,
    fillProductId(k),
    `Product ${k}`,
    `9d5e00004a1b4c8e9f0d00000000000${k}`,
    PLATFORM_PSDI_SERVICE_UUID,
    PLATFORM_PSDI_CHARACTERISTIC_UUID,
    `c28e${hex}`,
    fillAddress(i),
    psdi,
    'tool',
    'devicebench-v1',
    `station-${i % FILL_STATIONS}`,
    i % 3 === 0 ? `Sensor ${hex.slice(4)}` : null,
    // The adapter the board was heard through: most stations one dongle, some a second.
    i % 5 === 0 ? 'serial:/dev/ttyACM1' : 'serial:/dev/ttyACM0',
    // Most boards arrive with factory firmware; a line that flashes first records the image.
    i % 4 === 0 ? FILL_IMAGE_HASHES[k] : null,
  ];
  if (i >= size - 4)
    return [...base, i % 2 ? 'written' : 'reserved', 1, null, null, 1, null, null, null, 0, '[]'];
  if (before) return [...base, 'failed', 0, 'connect', 'link lost', 3, null, null, null, 1, '[]'];
  if (after) {
    const old = end - created > DAY_MS;
    const history = old
      ? JSON.stringify([
          {
            at: created + 3_600_000,
            step: 'verify',
            attempt: 3,
            kind: 'released',
            message: 'board checked: blank',
            by: 'operator',
            station: `station-${i % FILL_STATIONS}`,
          },
        ])
      : '[]';
    return [
      ...base,
      old ? 'released' : 'failed',
      old ? 0 : 1,
      'verify',
      'not seen after the commit',
      3,
      created + 2_000,
      null,
      null,
      old ? 1 : 0,
      history,
    ];
  }
  return [...base, 'verified', 1, null, null, 1, created + 2_000, created + 4_000, null, 0, '[]'];
}

/** The counters a sequence continues from: past every number the fill used. */
function counters(size: number): [string, string, number][] {
  return Array.from({ length: FILL_PRODUCTS }, (_, k) => [
    fillProductId(k),
    `sequence:${fillPrefix(k)}`,
    Math.floor(size / FILL_PRODUCTS) + 2,
  ]);
}

/** Fills a migrated, empty log with `size` records ending at `end`. */
export async function fillLog(location: AuditLocation, size: number, end: number): Promise<void> {
  if (location.kind === 'local') fillSqlite(location.file, size, end);
  else await fillPostgres(location.url, size, end);
}

function fillSqlite(file: string, size: number, end: number): void {
  const db = new Database(file);
  try {
    // As on PostgreSQL: the triggers give way to one rebuild of the text index and one backfill
    // of the pool, which is what the migration does on a log that already has records.
    const triggers = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'provisioning_records'",
      )
      .all() as { name: string; sql: string }[];
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    const insert = db.prepare(
      `INSERT INTO provisioning_records (${RECORD_COLUMNS.join(', ')}) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})`,
    );
    const chunk = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) insert.run(...checkedRow(i, size, end));
    });
    for (let from = 0; from < size; from += 50_000) chunk(from, Math.min(size, from + 50_000));
    const counter = db.prepare(
      'INSERT INTO psdi_counters (product_id, key, value) VALUES (?, ?, ?)',
    );
    for (const c of counters(size)) counter.run(...c);
    db.exec(`INSERT INTO audit_text (audit_text) VALUES ('rebuild'); ${RETURNED_POOL_BACKFILL};`);
    for (const t of triggers) db.exec(t.sql);
  } finally {
    db.close();
  }
}

async function fillPostgres(url: string, size: number, end: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The trigram index is built once after the rows, not grown row by row; the pool trigger
    // gives way to one backfill, as the migration builds it.
    const { rows } = await client.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'provisioning_records_text'",
    );
    if (rows[0]) await client.query('DROP INDEX provisioning_records_text');
    await client.query('ALTER TABLE provisioning_records DISABLE TRIGGER USER');
    const per = Math.floor(60_000 / RECORD_COLUMNS.length);
    for (let from = 0; from < size; from += per) {
      const to = Math.min(size, from + per);
      const values: unknown[] = [];
      const tuples: string[] = [];
      for (let i = from; i < to; i++) {
        const start = values.length;
        values.push(...checkedRow(i, size, end));
        tuples.push(`(${RECORD_COLUMNS.map((_, c) => `$${start + c + 1}`).join(', ')})`);
      }
      await client.query(
        `INSERT INTO provisioning_records (${RECORD_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`,
        values,
      );
    }
    await client.query('ALTER TABLE provisioning_records ENABLE TRIGGER USER');
    await client.query(RETURNED_POOL_BACKFILL);
    for (const c of counters(size))
      await client.query(
        'INSERT INTO psdi_counters (product_id, key, value) VALUES ($1, $2, $3)',
        c,
      );
    if (rows[0]) await client.query(rows[0].indexdef);
    // A log that has been in use has been vacuumed: its visibility map lets counts read the
    // index alone, as autovacuum leaves it; a log just filled in bulk has none yet.
    await client.query('VACUUM ANALYZE');
    // And its pages are on disk: the fill's dirty buffers are not left to the checkpointer to
    // write while a benchmark times the commits' fsyncs on the same disk.
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** A new database `name` on the server of `serverUrl`, and its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
