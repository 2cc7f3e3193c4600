// The audit store through its public methods, the same suite on SQLite and on a PostgreSQL
// server of its own: transitions, the one-live-PSDI guarantee (also across stations and
// processes), search, CSV export, the line view, copies between logs and migrations.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import {
  BoardBusyError,
  InvalidTransitionError,
  PsdiTakenError,
  RecordNotFoundError,
} from '../../../src/core/audit/errors';
import { collectCsv, csvHeader } from '../../../src/core/audit/csv-export';
import { openAuditStore } from '../../../src/core/audit/open-store';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import type { AuditQuery } from '../../../src/core/audit/records';
import { bundled } from '../../helpers/bundled';
import { usePostgres } from '../../helpers/postgres';
import { ENGINES, fillLog, PRODUCT, reserveInput, tempStore, type TempStore } from './fixture';

const run = promisify(execFile);
const postgres = usePostgres();

describe.each(ENGINES)('audit store on %s', (engine) => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore(engine, postgres);
  }, 30_000);
  afterEach(() => t.cleanup());

  describe('provisioning record transitions', () => {
    it('goes reserved → written → verified with times, station and product fields', async () => {
      const reserved = await t.store.reserve(reserveInput(1, 'DB-0001'));
      expect(reserved).toMatchObject({
        state: 'reserved',
        result: 'pending',
        psdi: 'DB-0001',
        psdiHeld: true,
        productId: PRODUCT.id,
        productName: 'Bench sensor',
        serviceUuid: PRODUCT.serviceUuid,
        boardAddress: 'c2:8e:10:00:00:01',
        boardId: 'c28e10000001',
        profileId: 'devicebench-v1',
        station: 'bench-1',
        createdAt: t.now.value,
        writtenAt: null,
        verifiedAt: null,
      });
      t.now.value += 1500;
      const written = await t.store.markWritten(reserved.id, 2);
      expect(written).toMatchObject({ state: 'written', writtenAt: t.now.value, attempts: 2 });
      t.now.value += 700;
      const verified = await t.store.markVerified(reserved.id, 1);
      expect(verified).toMatchObject({
        state: 'verified',
        result: 'ok',
        verifiedAt: t.now.value,
        updatedAt: t.now.value,
        createdAt: reserved.createdAt,
      });
      expect(await t.store.listUnfinished()).toEqual([]);
    });

    it('a release before anything reached the board can return the PSDI to the pool', async () => {
      const kept = await t.store.reserve(reserveInput(1, 'K'));
      const given = await t.store.reserve(reserveInput(2, 'G'));
      expect(await t.store.release(kept.id, 'board lost')).toMatchObject({
        state: 'released',
        psdiHeld: false,
        psdiReturned: false,
      });
      expect(
        await t.store.release(given.id, 'stopped by the operator', { returnPsdi: true }),
      ).toMatchObject({ state: 'released', psdiHeld: false, psdiReturned: true });
    });

    it('refuses transitions the state does not allow, naming the record', async () => {
      const r = await t.store.reserve(reserveInput(1, 'DB-0001'));
      await expect(t.store.markVerified(r.id)).rejects.toThrow(InvalidTransitionError);
      await expect(t.store.markVerified(r.id)).rejects.toThrow(
        `record #${r.id} cannot go from reserved to verified`,
      );
      await t.store.markWritten(r.id);
      await t.store.markVerified(r.id);
      await expect(t.store.release(r.id, 'oops')).rejects.toThrow(
        'cannot go from verified to released',
      );
      await expect(
        t.store.markFailed(r.id, { step: 'verify', error: 'x', psdiHeld: true }),
      ).rejects.toThrow(InvalidTransitionError);
      await expect(t.store.markWritten(999)).rejects.toThrow(RecordNotFoundError);
    });

    it('keeps a failed record’s PSDI only when the board may carry it', async () => {
      const before = await t.store.reserve(reserveInput(1, 'DB-0001'));
      const failedEarly = await t.store.markFailed(before.id, {
        step: 'connect',
        error: 'connection refused',
        psdiHeld: false,
        attempts: 3,
      });
      expect(failedEarly).toMatchObject({
        state: 'failed',
        result: 'failed',
        failedStep: 'connect',
        error: 'connection refused',
        attempts: 3,
        psdiHeld: false,
      });
      // Never reached the board: the PSDI may go to another one.
      expect((await t.store.reserve(reserveInput(2, 'DB-0001'))).psdi).toBe('DB-0001');

      const after = await t.store.reserve(reserveInput(3, 'DB-0002'));
      await t.store.markFailed(after.id, { step: 'commit', error: 'no answer', psdiHeld: true });
      await expect(t.store.reserve(reserveInput(4, 'DB-0002'))).rejects.toThrow(PsdiTakenError);
      // A freed PSDI cannot be taken back by the record that let it go.
      await expect(t.store.markWritten(failedEarly.id)).rejects.toThrow('no longer holds its PSDI');
    });

    it('survives a reopen', async () => {
      const r = await t.store.reserve(reserveInput(1, 'DB-0001'));
      await t.store.markWritten(r.id);
      await t.reopen();
      expect(await t.store.listUnfinished()).toMatchObject([
        { id: r.id, state: 'written', psdi: 'DB-0001' },
      ]);
    });

    it('lists unfinished records oldest first, with failures that still hold their PSDI', async () => {
      const a = await t.store.reserve(reserveInput(1, 'A'));
      const b = await t.store.reserve(reserveInput(2, 'B'));
      const c = await t.store.reserve(reserveInput(3, 'C'));
      const d = await t.store.reserve(reserveInput(4, 'D'));
      const e = await t.store.reserve(reserveInput(5, 'E'));
      const f = await t.store.reserve(reserveInput(6, 'F'));
      await t.store.markWritten(b.id);
      await t.store.markWritten(c.id);
      await t.store.markVerified(c.id);
      await t.store.release(d.id, 'board lost');
      // The commit went unanswered and the board is gone: it may carry E, so E is reconciled.
      await t.store.markFailed(e.id, { step: 'commit', error: 'no answer', psdiHeld: true });
      await t.store.markFailed(f.id, { step: 'connect', error: 'refused', psdiHeld: false });
      expect((await t.store.listUnfinished()).map((r) => [r.id, r.state])).toEqual([
        [a.id, 'reserved'],
        [b.id, 'written'],
        [e.id, 'failed'],
      ]);
      expect(await t.store.get(d.id)).toMatchObject({
        state: 'released',
        psdiHeld: false,
        error: 'board lost',
      });
    });

    it('finds the PSDI a board was verified with, past the newest 500 records', async () => {
      const reserved = await t.store.reserve(reserveInput(1, 'V-0001'));
      await t.store.markWritten(reserved.id);
      const first = await t.store.markVerified(reserved.id);
      // 519 newer verified boards, loaded in one go.
      const newer = Array.from({ length: 519 }, (_, i) => ({
        ...first,
        id: i + 2,
        createdAt: first.createdAt + i + 1,
        boardId: reserveInput(i + 2, '').board.id,
        boardAddress: reserveInput(i + 2, '').board.address,
        psdi: `V-${String(i + 2).padStart(4, '0')}`,
      }));
      expect((await t.store.copyFrom('older-log', newer)).copied).toBe(519);
      expect(await t.store.verifiedPsdi(PRODUCT.id, 'c28e10000001')).toBe('V-0001');
      expect(await t.store.verifiedPsdi(PRODUCT.id, 'c28e10000208')).toBe('V-0520');
      expect(await t.store.verifiedPsdi('other', 'c28e10000001')).toBeUndefined();
    });
  });

  describe('one live record per product and PSDI', () => {
    it('refuses a held PSDI for the same product, allows it for another product', async () => {
      const first = await t.store.reserve(reserveInput(1, 'DB-0001'));
      await expect(t.store.reserve(reserveInput(2, 'DB-0001'))).rejects.toThrow(
        new PsdiTakenError(PRODUCT.id, 'DB-0001', first.id).message,
      );
      const other = { ...PRODUCT, id: '3000000002' };
      expect((await t.store.reserve(reserveInput(2, 'DB-0001', other))).psdi).toBe('DB-0001');
      await t.store.release(first.id, 'board lost');
      expect((await t.store.reserve(reserveInput(3, 'DB-0001'))).state).toBe('reserved');
    });

    it('refuses a second unfinished record for the same board', async () => {
      const first = await t.store.reserve(reserveInput(1, 'DB-0001'));
      await expect(t.store.reserve(reserveInput(1, 'DB-0002'))).rejects.toThrow(BoardBusyError);
      await expect(t.store.reserve(reserveInput(1, 'DB-0002'))).rejects.toThrow(
        `record #${first.id}`,
      );
      await t.store.markWritten(first.id);
      await t.store.markVerified(first.id);
      expect((await t.store.reserve(reserveInput(1, 'DB-0002'))).state).toBe('reserved');
    });

    it('holds across two stations racing for the same PSDI', async () => {
      const other = await t.open('bench-2');
      const results = await Promise.all(
        [t.store, other, t.store, other].map((s, i) =>
          s.reserve(reserveInput(10 + i, 'DB-7777')).then(
            (r) => r.station,
            (err: Error) => err.name,
          ),
        ),
      );
      expect(results.filter((r) => r.startsWith('bench-'))).toHaveLength(1);
      expect(results.filter((r) => r === 'PsdiTakenError')).toHaveLength(3);
    });

    it('hands each value of a list to one of two stations reserving at once', async () => {
      const other = await t.open('bench-2');
      const list = createPsdiAllocator(
        { kind: 'list', values: Array.from({ length: 40 }, (_, i) => `L-${i}`) },
        20,
      );
      const stations = [t.store, other];
      const records = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (stations[i % 2] as typeof t.store).reserve(reserveInput(100 + i, list)),
        ),
      );
      expect(new Set(records.map((r) => r.psdi)).size).toBe(40);
      expect(new Set(records.map((r) => r.station))).toEqual(new Set(['bench-1', 'bench-2']));
      await expect(t.store.reserve(reserveInput(999, list))).rejects.toThrow(
        'all 40 PSDIs in the list are taken',
      );
    });

    it('hands a list to a batch of 20 reservations at once from one station, a value each', async () => {
      const list = createPsdiAllocator(
        { kind: 'list', values: Array.from({ length: 25 }, (_, i) => `B-${i}`) },
        20,
      );
      const records = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.store.reserve(reserveInput(200 + i, list))),
      );
      // Each its own value, the first 20 of the list, none retried into exhaustion.
      expect(records.map((r) => r.psdi).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `B-${i}`).sort(),
      );
    });

    it('gives every one of three processes reserving at once distinct sequence PSDIs', async () => {
      await t.store.close();
      const worker = bundled('reserve-worker');
      const outputs = await Promise.all(
        [1, 2, 3].map((w) =>
          run(process.execPath, [worker, JSON.stringify(t.location), String(w), '40'], {
            timeout: 60_000,
          }),
        ),
      );
      const psdis = outputs.flatMap((o) => JSON.parse(o.stdout) as string[]);
      expect(psdis).toHaveLength(120);
      expect(new Set(psdis).size).toBe(120);
      expect([...psdis].sort()).toEqual(
        Array.from({ length: 120 }, (_, i) => `DB-${String(i + 1).padStart(5, '0')}`),
      );
      await t.reopen();
      expect((await t.store.search({ limit: 500 })).total).toBe(120);
    }, 90_000);
  });

  describe('search', () => {
    beforeEach(async () => {
      const other = { ...PRODUCT, id: '3000000002', name: 'Other' };
      const second = await t.open('bench-2');
      for (let i = 1; i <= 30; i++) {
        t.now.value += 60_000;
        const store = i % 5 === 0 ? second : t.store;
        const r = await store.reserve(
          reserveInput(i, `DB-${String(i).padStart(4, '0')}`, i % 3 === 0 ? other : PRODUCT),
        );
        if (i % 2 === 0) await t.store.markWritten(r.id);
      }
      await t.store.reserve({
        ...reserveInput(99, '50%_off'),
        board: { id: 'x', address: 'AA:BB:CC:DD:EE:FF' },
      });
    });

    it('filters by product and state, newest first, paged by a cursor, with a total', async () => {
      const page = await t.store.search({ productId: PRODUCT.id, states: ['written'], limit: 5 });
      expect(page.total).toBe(10); // even numbers not divisible by 3: 2,4,8,10,14,16,20,22,26,28
      expect(page.totalCapped).toBe(false);
      expect(page.items.map((r) => r.psdi)).toEqual([
        'DB-0028',
        'DB-0026',
        'DB-0022',
        'DB-0020',
        'DB-0016',
      ]);
      const next = await t.store.search({
        productId: PRODUCT.id,
        states: ['written'],
        limit: 5,
        after: page.next ?? undefined,
      });
      expect(next.items.map((r) => r.psdi)).toEqual([
        'DB-0014',
        'DB-0010',
        'DB-0008',
        'DB-0004',
        'DB-0002',
      ]);
      expect(next.next).toBeNull();
      // A last page holding no more than its limit still counts every match, not its own rows.
      expect(next.total).toBe(10);
      const whole = await t.store.search({ productId: PRODUCT.id, states: ['written'], limit: 10 });
      expect([whole.items.length, whole.total, whole.next]).toEqual([10, 10, null]);
    });

    it('filters by station', async () => {
      const page = await t.store.search({ station: 'bench-2', limit: 500 });
      expect(page.items.map((r) => r.psdi).sort()).toEqual([
        'DB-0005',
        'DB-0010',
        'DB-0015',
        'DB-0020',
        'DB-0025',
        'DB-0030',
      ]);
      expect((await t.store.search({ station: 'nowhere' })).total).toBe(0);
    });

    it('matches a PSDI or address substring without case, taking % and _ literally', async () => {
      expect((await t.store.search({ text: 'db-001' })).items.map((r) => r.psdi).sort()).toEqual([
        'DB-0010',
        'DB-0011',
        'DB-0012',
        'DB-0013',
        'DB-0014',
        'DB-0015',
        'DB-0016',
        'DB-0017',
        'DB-0018',
        'DB-0019',
      ]);
      expect((await t.store.search({ text: 'ee:ff' })).items.map((r) => r.psdi)).toEqual([
        '50%_off',
      ]);
      expect((await t.store.search({ text: '0%_' })).items.map((r) => r.psdi)).toEqual(['50%_off']);
      expect((await t.store.search({ text: '50%' })).total).toBe(1);
    });

    it("finds one board's records by its address: exact, any case or separator, never a substring", async () => {
      const psdis = async (query: AuditQuery) =>
        (await t.store.search(query)).items.map((r) => r.psdi);
      expect(await psdis({ boardAddress: 'c2:8e:10:00:00:0a' })).toEqual(['DB-0010']);
      expect(await psdis({ boardAddress: 'C2-8E-10-00-00-0A' })).toEqual(['DB-0010']);
      expect(await psdis({ boardAddress: 'aabbccddeeff' })).toEqual(['50%_off']);
      expect(await psdis({ boardAddress: 'c2:8e:10:00:00' })).toEqual([]);
      expect(await psdis({ boardAddress: 'c2:8e:10:00:00:03', productId: PRODUCT.id })).toEqual([]);
    });

    it('filters by a time range, both ends inclusive', async () => {
      const all = (await t.store.search({ limit: 500 })).items;
      const fifth = all.find((r) => r.psdi === 'DB-0005')!;
      const page = await t.store.search({
        from: fifth.createdAt,
        to: fifth.createdAt + 2 * 60_000,
      });
      expect(page.items.map((r) => r.psdi)).toEqual(['DB-0007', 'DB-0006', 'DB-0005']);
    });

    it('refuses a bad query with an error naming the field', async () => {
      const err = await t.store.search({ limit: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ZodError);
      expect((err as ZodError).issues[0]?.path).toEqual(['limit']);
      // The trigram index needs three characters; fewer would read the whole log.
      const short = await t.store.search({ text: ' db ' }).catch((e: unknown) => e);
      expect(short).toBeInstanceOf(ZodError);
      expect((short as ZodError).issues[0]).toMatchObject({
        path: ['text'],
        message: 'type at least 3 characters to search',
      });
    });

    it('shows the line: stations, boards in the hour, failures by step, who holds what', async () => {
      const last = (await t.store.search({ limit: 1 })).items[0]!;
      await t.store.markFailed(last.id, { step: 'commit', error: 'no answer', psdiHeld: true });
      const line = await t.store.lineStatus();
      expect(line.stations.map((s) => [s.station, s.inFlight])).toEqual([
        ['bench-1', 24],
        ['bench-2', 6],
      ]);
      expect(line.failuresByStep).toEqual([{ step: 'commit', count: 1 }]);
      expect(line.stations.map((s) => s.failedLastHour)).toEqual([1, 0]);
      // Every reserved or written record, and the failure that may be on its board.
      expect(line.unfinished).toHaveLength(31);
      expect(line.unfinishedCount).toBe(31);
      expect(line.unfinished.filter((r) => r.station === 'bench-2')).toHaveLength(6);
    });
  });

  describe('CSV export', () => {
    it('has a header row and one row per matching record, with the record’s values', async () => {
      const a = await t.store.reserve(reserveInput(1, 'DB-0001'));
      await t.store.markWritten(a.id);
      await t.store.markVerified(a.id);
      const b = await t.store.reserve({
        ...reserveInput(2, '=HYPERLINK("x")'),
        product: { ...PRODUCT, name: 'Sensor, rev "B"' },
      });
      await t.store.markFailed(b.id, {
        step: 'connect',
        error: 'refused, 3 times',
        psdiHeld: false,
        attempts: 3,
      });
      await t.store.reserve(reserveInput(3, 'DB-0003', { ...PRODUCT, id: 'elsewhere' }));

      const rows = parse(
        await collectCsv(t.store.exportCsv({ productId: PRODUCT.id })),
      ) as string[][];
      expect(rows[0]).toEqual(csvHeader);
      expect(rows).toHaveLength(3);
      const col = (row: string[], name: string) => row[csvHeader.indexOf(name)];
      const [, first, second] = rows as [string[], string[], string[]];
      expect(col(first, 'psdi')).toBe('DB-0001');
      expect(col(first, 'state')).toBe('verified');
      expect(col(first, 'result')).toBe('ok');
      expect(col(first, 'created_at')).toBe('2026-01-05T09:00:00.000Z');
      expect(col(first, 'board_address')).toBe('c2:8e:10:00:00:01');
      expect(col(first, 'station')).toBe('bench-1');
      expect(col(second, 'product_name')).toBe('Sensor, rev "B"');
      // A spreadsheet must not run it as a formula.
      expect(col(second, 'psdi')).toBe(`'=HYPERLINK("x")`);
      expect(col(second, 'failed_step')).toBe('connect');
      expect(col(second, 'error')).toBe('refused, 3 times');
      expect(col(second, 'attempts')).toBe('3');
      expect(col(second, 'psdi_held')).toBe('no');
    });

    it('exports only the header when nothing matches', async () => {
      await t.store.reserve(reserveInput(1, 'DB-0001'));
      expect(parse(await collectCsv(t.store.exportCsv({ states: ['verified'] })))).toEqual([
        csvHeader,
      ]);
    });

    it('streams a filtered export in chunks of 1,000 by keyset, ties on the time kept in id order', async () => {
      await fillLog(t.store, 1200);
      await t.store.reserve(reserveInput(9, 'OTHER-1', { ...PRODUCT, id: '3000000009' }));
      const sizes: number[] = [];
      const ids: number[] = [];
      for await (const chunk of t.store.exportCsv({ productId: PRODUCT.id })) {
        sizes.push(chunk.rows);
        if (chunk.rows) ids.push(...(parse(chunk.text) as string[][]).map((row) => Number(row[0])));
      }
      expect(sizes).toEqual([0, 1000, 200]);
      expect(ids).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));
    }, 60_000);
  });

  describe('copying records from another log', () => {
    it('copies each record once, keeping station, state and times, refusing held clashes', async () => {
      const local = await openAuditStore({
        location: { kind: 'local', file: `${t.dir}/local.sqlite` },
        station: 'laptop',
        now: () => t.now.value,
      });
      try {
        const v = await local.reserve(reserveInput(1, 'C-1'));
        await local.markWritten(v.id);
        await local.markVerified(v.id);
        await local.reserve(reserveInput(2, 'C-2'));
        await local.reserve(reserveInput(3, 'CLASH'));
        await t.store.reserve(reserveInput(4, 'CLASH'));
        const source = await local.sourceId();
        expect(await local.sourceId()).toBe(source);

        const records = await local.records(0, 100);
        const first = await t.store.copyFrom(source, records);
        expect(first).toMatchObject({ copied: 2, alreadyCopied: 0 });
        expect(first.refused).toEqual([
          { id: records[2]!.id, reason: 'PSDI "CLASH" is held here already' },
        ]);
        expect(await t.store.copyFrom(source, records)).toMatchObject({
          copied: 0,
          alreadyCopied: 2,
        });
        const copied = (await t.store.search({ station: 'laptop' })).items;
        expect(copied.map((r) => [r.psdi, r.state, r.createdAt])).toEqual([
          ['C-2', 'reserved', t.now.value],
          ['C-1', 'verified', t.now.value],
        ]);
      } finally {
        await local.close();
      }
    });
  });
});

describe('SQLite specifics', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore('sqlite', undefined);
  });
  afterEach(() => t.cleanup());
  const file = () => (t.location as { file: string }).file;

  it('keeps the file in WAL mode at the newest schema version', async () => {
    const raw = new Database(file(), { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(7);
    raw.close();
  });

  it('brings a version 1 file (before the line) up to date without losing records', async () => {
    const r = await t.store.reserve(reserveInput(1, 'OLD-1'));
    await t.store.close();
    const raw = new Database(file());
    raw.exec(`DROP TRIGGER provisioning_records_pool_insert;
      DROP TRIGGER provisioning_records_pool_update; DROP TRIGGER provisioning_records_text_insert;
      DROP TRIGGER provisioning_records_text_update; DROP TRIGGER provisioning_records_text_delete;
      DROP TABLE audit_text; DROP TABLE returned_psdis; DROP INDEX provisioning_records_busy_board;
      DROP INDEX provisioning_records_unfinished; DROP INDEX provisioning_records_product_created;
      DROP INDEX provisioning_records_state_created; DROP INDEX provisioning_records_station_updated;
      DROP INDEX provisioning_records_verified_at; DROP INDEX provisioning_records_failed_at;
      CREATE INDEX provisioning_records_state ON provisioning_records (state);
      DROP INDEX provisioning_records_board; DROP INDEX provisioning_records_station;
      DROP INDEX provisioning_records_origin; ALTER TABLE provisioning_records DROP COLUMN origin;
      DROP TABLE audit_meta; ALTER TABLE provisioning_records DROP COLUMN psdi_returned;
      ALTER TABLE provisioning_records DROP COLUMN history;
      ALTER TABLE provisioning_records DROP COLUMN board_name;
      ALTER TABLE provisioning_records DROP COLUMN adapter;
      ALTER TABLE provisioning_records DROP COLUMN image_hash;
      DROP INDEX provisioning_records_address; PRAGMA user_version = 1;`);
    raw.close();
    const store = await t.reopen();
    expect(await store.get(r.id)).toMatchObject({
      psdi: 'OLD-1',
      state: 'reserved',
      psdiReturned: false,
      history: [],
      imageHash: null,
    });
    expect(await store.sourceId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('enforces one held PSDI in the database itself, not only in the check', async () => {
    await t.store.reserve(reserveInput(1, 'DB-0001'));
    const raw = new Database(file());
    const insert = () =>
      raw
        .prepare(
          `INSERT INTO provisioning_records (created_at, updated_at, product_id, product_name,
             service_uuid, psdi_service_uuid, psdi_characteristic_uuid, board_id, board_address,
             psdi, psdi_source, profile_id, station, state, psdi_held)
           VALUES (0, 0, ?, 'x', 's', 's', 's', 'b', 'b', 'DB-0001', 'tool', 'p', 's', 'reserved', 1)`,
        )
        .run(PRODUCT.id);
    expect(insert).toThrow(/UNIQUE constraint failed/);
    raw.close();
  });
});

describe('PostgreSQL specifics', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore('postgres', postgres);
  }, 30_000);
  afterEach(() => t.cleanup());

  it('migrates once however many stations open at the same moment', async () => {
    const stations = await Promise.all([1, 2, 3, 4].map((n) => t.open(`s-${n}`)));
    expect(stations).toHaveLength(4);
    const client = new pg.Client({ connectionString: (t.location as { url: string }).url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT version FROM devicebench_migrations ORDER BY version',
      );
      expect(rows).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((version) => ({ version })));
    } finally {
      await client.end();
    }
  });

  it('finds a reservation by text at once, and moves its trigrams into the index off the reserve path', async () => {
    const client = new pg.Client({ connectionString: (t.location as { url: string }).url });
    await client.connect();
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
      const pending = async () =>
        Number(
          (
            await client.query(
              "SELECT pending_tuples FROM pgstatginindex('provisioning_records_text')",
            )
          ).rows[0].pending_tuples,
        );
      await t.store.reserve(reserveInput(1, 'TXT-424242'));
      // The reservation left its trigrams in the pending list, where a search reads them too.
      expect(await pending()).toBeGreaterThan(0);
      expect((await t.store.search({ text: '424242' })).items.map((r) => r.psdi)).toEqual([
        'TXT-424242',
      ]);
      // About a second later the station has moved them into the index in one pass.
      const until = Date.now() + 10_000;
      while ((await pending()) > 0 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await pending()).toBe(0);
      expect((await t.store.search({ text: '424242' })).total).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('enforces one held PSDI and one unfinished record per board in the database itself', async () => {
    await t.store.reserve(reserveInput(1, 'DB-0001'));
    const client = new pg.Client({ connectionString: (t.location as { url: string }).url });
    await client.connect();
    const insert = (psdi: string, board: string) =>
      client.query(
        `INSERT INTO provisioning_records (created_at, updated_at, product_id, product_name,
           service_uuid, psdi_service_uuid, psdi_characteristic_uuid, board_id, board_address,
           psdi, psdi_source, profile_id, station, state, psdi_held)
         VALUES (0, 0, $1, 'x', 's', 's', 's', 'b', $3, $2, 'tool', 'p', 's', 'reserved', 1)`,
        [PRODUCT.id, psdi, board],
      );
    try {
      await expect(insert('DB-0001', 'elsewhere')).rejects.toThrow(/held_psdi/);
      await expect(insert('DB-0002', 'c2:8e:10:00:00:01')).rejects.toThrow(/busy_board/);
    } finally {
      await client.end();
    }
  });
});
