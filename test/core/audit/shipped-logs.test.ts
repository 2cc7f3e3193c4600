// Logs made by the release before the shared schema (fixtures/: a SQLite file at version 7 and a
// PostgreSQL dump at version 8, each with records in every state, a copied record, a sequence
// counter, a returned PSDI and a dry run) open unchanged and keep working; and a log made fresh
// today has the very schema those releases made, table by table, index by index.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PsdiTakenError } from '../../../src/core/audit/errors';
import { openAuditStore, type AuditLocation } from '../../../src/core/audit/open-store';
import type { AuditStore, ReserveInput } from '../../../src/core/audit/store';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { usePostgres } from '../../helpers/postgres';
import { PRODUCT } from './fixture';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const postgres = usePostgres();

const board = (n: number): ReserveInput['board'] => ({
  id: `c28e1000010${n}`,
  address: `c2:8e:10:00:01:0${n}`,
});
const reserve = (n: number, psdi: ReserveInput['psdi']): ReserveInput => ({
  product: PRODUCT,
  board: board(n),
  profileId: 'devicebench-v1',
  psdiSource: 'tool',
  psdi,
});

/** What a log made by the earlier release holds, read and extended through today's store. */
async function checkShippedLog(store: AuditStore): Promise<void> {
  const all = await store.search({ limit: 50 });
  expect(all.total).toBe(7);
  const byPsdi = new Map(all.items.map((r) => [r.psdi, r]));
  expect(byPsdi.get('OLD-0001')).toMatchObject({
    state: 'verified',
    adapter: 'sim',
    imageHash: 'ab'.repeat(32),
    boardName: 'DB 1',
    station: 'bench-old',
  });
  expect(byPsdi.get('OLD-0001')?.history).toHaveLength(1);
  expect(byPsdi.get('OLD-0004')).toMatchObject({ state: 'failed', psdiHeld: true, attempts: 2 });
  expect(byPsdi.get('OLD-0005')).toMatchObject({ psdiHeld: false, psdiReturned: true });
  // A copy of a reservation from another log, keeping its state.
  expect(byPsdi.get('OLD-0099')).toMatchObject({ state: 'reserved', psdiHeld: true });
  expect((await store.listUnfinished()).map((r) => r.psdi)).toEqual([
    'OLD-0002',
    'OLD-0003',
    'OLD-0004',
    'OLD-0099',
    'SEQ-0001',
  ]);
  expect((await store.search({ text: 'ld-000' })).total).toBe(5);
  expect(await store.verifiedPsdi(PRODUCT.id, 'c28e10000001')).toBe('OLD-0001');

  // The sequence goes on from its counter; a returned PSDI is handed out again; a held one is not.
  const sequence = createPsdiAllocator({ kind: 'sequence', prefix: 'SEQ-', width: 4 }, 32);
  expect((await store.reserve(reserve(1, sequence))).psdi).toBe('SEQ-0002');
  const old = createPsdiAllocator({ kind: 'sequence', prefix: 'OLD-', width: 4 }, 32);
  expect((await store.reserve(reserve(2, old))).psdi).toBe('OLD-0005');
  await expect(store.reserve(reserve(3, 'OLD-0004'))).rejects.toBeInstanceOf(PsdiTakenError);
  // An unfinished board from before is still busy.
  await expect(
    store.reserve({ ...reserve(4, 'NEW-1'), board: { id: 'x', address: 'c2:8e:10:00:00:03' } }),
  ).rejects.toThrow(/c2:8e:10:00:00:03/);
  const written = await store.markWritten((byPsdi.get('OLD-0003') as { id: number }).id);
  expect((await store.markVerified(written.id)).state).toBe('verified');

  const runs = await store.scenarioRuns();
  const { items } = await runs.list();
  expect(items).toHaveLength(1);
  const read = await runs.read((items[0] as { id: number }).id);
  expect(read?.run).toMatchObject({ bench: 'sim', status: 'finished' });
  expect(read?.events).toEqual([{ kind: 'connecting', at: 1, cycle: 1 }]);
}

describe('a SQLite log from the release before the shared schema', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'devicebench-shipped-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Every table, index and trigger as the file declares it, spaces aside. */
  const schemaOf = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')
        .all() as { sql: string | null }[];
      return {
        version: db.pragma('user_version', { simple: true }),
        objects: rows.map((r) => ({ ...r, sql: r.sql?.replace(/\s+/g, ' ') })),
      };
    } finally {
      db.close();
    }
  };

  it('opens at its version and keeps working', async () => {
    const file = join(dir, 'audit.sqlite');
    copyFileSync(join(FIXTURES, 'sqlite-v7.db'), file);
    const store = await openAuditStore({ location: { kind: 'local', file }, station: 'bench-new' });
    try {
      await checkShippedLog(store);
    } finally {
      await store.close();
    }
    expect(schemaOf(file).version).toBe(7);
  });

  it('is what a fresh log is made as today', async () => {
    const file = join(dir, 'fresh.sqlite');
    const store = await openAuditStore({ location: { kind: 'local', file } });
    await (await store.scenarioRuns()).list();
    await store.close();
    expect(schemaOf(file)).toEqual(schemaOf(join(FIXTURES, 'sqlite-v7.db')));
  });
});

describe('a PostgreSQL log from the release before the shared schema', () => {
  /** A database restored from the release's dump (psql's own commands left out). */
  async function restored(): Promise<string> {
    const url = await postgres.database();
    const dump = readFileSync(join(FIXTURES, 'postgres-v8.sql'), 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(dump);
    await client.end();
    return url;
  }

  /** Columns, indexes, constraints, triggers, the pool function and the versions applied. */
  async function schemaOf(url: string) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = async (sql: string) => (await client.query(sql)).rows;
      return {
        columns: await rows(`SELECT table_name, column_name, ordinal_position, data_type,
            is_nullable, column_default FROM information_schema.columns
          WHERE table_schema = 'public' ORDER BY 1, 3`),
        indexes: await rows(`SELECT indexname, indexdef FROM pg_indexes
          WHERE schemaname = 'public' ORDER BY 1`),
        constraints: await rows(`SELECT conrelid::regclass::text AS tbl, conname,
            pg_get_constraintdef(oid) AS def FROM pg_constraint
          WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`),
        triggers: await rows(`SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger
          WHERE NOT tgisinternal ORDER BY 1`),
        pool: (
          await rows(`SELECT prosrc FROM pg_proc WHERE proname = 'devicebench_returned_pool'`)
        ).map((r: { prosrc: string }) => r.prosrc.replace(/\s+/g, ' ')),
        versions: await rows('SELECT version FROM devicebench_migrations ORDER BY 1'),
      };
    } finally {
      await client.end();
    }
  }

  const open = (url: string) =>
    openAuditStore({ location: { kind: 'postgres', url } as AuditLocation, station: 'bench-new' });

  it('opens at its version and keeps working', async () => {
    const url = await restored();
    const store = await open(url);
    try {
      await checkShippedLog(store);
    } finally {
      await store.close();
    }
    expect((await schemaOf(url)).versions).toHaveLength(8);
  });

  it('is what a fresh log is made as today', async () => {
    const fresh = await postgres.database();
    await (await open(fresh)).close();
    expect(await schemaOf(fresh)).toEqual(await schemaOf(await restored()));
  });
});
