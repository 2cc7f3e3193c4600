// The hot queries read the indexes made for them, on both engines: a station's reads for every
// board, the Line page's window, and the audit log's pages and capped counts. Each plan must name
// its index, so dropping one fails here rather than on a line a year later (docs/decisions.md,
// "The audit log at a million records").
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditQuerySchema, type AuditQuery } from '../../../src/core/audit/records';
import {
  lineSql,
  searchSql,
  stationSql,
  type SearchDialect,
} from '../../../src/core/audit/record-rows';
import {
  SQLITE_SEARCH,
  SQLITE_VIA,
  STATION as SQLITE_STATION,
} from '../../../src/core/audit/sqlite-dialect';
import {
  PG_VIA,
  STATION as PG_STATION,
  TRIGRAM_SEARCH,
} from '../../../src/core/audit/postgres-dialect';
import { usePostgres } from '../../helpers/postgres';
import { ENGINES, PRODUCT, reserveInput, tempStore, type TempStore } from './fixture';

const postgres = usePostgres();

/** Each hot query, its parameters and the index its plan must use. */
function hotQueries(
  station: ReturnType<typeof stationSql>,
  line: ReturnType<typeof lineSql>,
  dialect: SearchDialect,
  fts: string,
): { name: string; sql: string; params: unknown[]; index: string }[] {
  const search = (query: AuditQuery, count: boolean) => {
    const statements = searchSql(auditQuerySchema.parse(query), dialect);
    return count ? statements.count : statements.page;
  };
  const after = { createdAt: 1, id: 1 };
  return [
    {
      name: 'busy board',
      sql: station.busyBoard,
      params: [PRODUCT.id, 'c2'],
      index: 'busy_board',
    },
    { name: 'PSDI holder', sql: station.holder, params: [PRODUCT.id, 'x'], index: 'held_psdi' },
    {
      name: 'PSDI recorded',
      sql: station.wasRecorded,
      params: [PRODUCT.id, 'x'],
      index: 'provisioning_records_product',
    },
    {
      name: 'returned PSDIs',
      sql: station.returned,
      params: [PRODUCT.id],
      index: 'returned_psdis',
    },
    { name: 'unfinished', sql: station.unfinished, params: [], index: 'records_unfinished' },
    {
      name: 'verified PSDI of a board',
      sql: station.verifiedPsdi,
      params: [PRODUCT.id, 'b'],
      index: 'provisioning_records_board',
    },
    { name: 'Line: stations', sql: line.stations, params: [], index: 'station_updated' },
    { name: 'Line: verified', sql: line.verified, params: [0], index: 'verified_at' },
    { name: 'Line: failed', sql: line.failed, params: [0], index: 'failed_at' },
    { name: 'Line: in flight', sql: line.inFlight, params: [], index: 'busy_board' },
    {
      name: 'verified count',
      ...search({ states: ['verified'] }, true),
      index: 'state_created',
    },
    {
      name: 'product page',
      ...search({ productId: PRODUCT.id, after }, false),
      index: 'product_created',
    },
    { name: 'newest page', ...search({ after }, false), index: 'records_created' },
    { name: 'text search', ...search({ text: 'DB-0001' }, true), index: fts },
    {
      name: "one board's records",
      ...search({ productId: PRODUCT.id, boardAddress: 'c2:8e:10:00:00:01' }, false),
      index: 'records_address',
    },
  ];
}

describe.each(ENGINES)('query plans on %s', (engine) => {
  let t: TempStore;
  let explain: (sql: string, params: unknown[]) => Promise<string>;
  let done: () => Promise<void>;
  beforeAll(async () => {
    t = await tempStore(engine, postgres);
    for (let i = 1; i <= 40; i++) {
      t.now.value += 1000;
      const r = await t.store.reserve(reserveInput(i, `DB-${String(i).padStart(4, '0')}`));
      if (i % 2) await t.store.markWritten(r.id);
    }
    if (t.location.kind === 'local') {
      const db = new Database(t.location.file, { readonly: true });
      explain = async (sql, params) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n');
      done = async () => {
        db.close();
      };
    } else {
      const client = new pg.Client({ connectionString: t.location.url });
      await client.connect();
      await client.query('ANALYZE provisioning_records');
      // A 40-row table is cheapest to read whole; the question is which index a large one uses.
      await client.query('SET enable_seqscan = off');
      explain = async (sql, params) =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      done = () => client.end();
    }
  }, 60_000);
  afterAll(async () => {
    await done?.();
    await t?.cleanup();
  });

  const queries =
    engine === 'sqlite'
      ? hotQueries(
          SQLITE_STATION,
          lineSql(() => '?', SQLITE_VIA),
          SQLITE_SEARCH,
          'audit_text',
        )
      : hotQueries(
          PG_STATION,
          lineSql((n) => `$${n}`, PG_VIA),
          TRIGRAM_SEARCH,
          'provisioning_records_text',
        );
  it.each(queries)('$name reads $index', async ({ sql, params, index }) => {
    const plan = await explain(sql, params);
    expect(plan, plan).toContain(index);
    if (engine === 'sqlite')
      expect(plan, plan).not.toMatch(/SCAN provisioning_records\b(?! USING)/);
  });
});
