// The audit store through its public methods: transitions, the one-live-PSDI guarantee (also
// across processes), crash durability settings, search and CSV export.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import {
  BoardBusyError,
  InvalidTransitionError,
  PsdiTakenError,
  RecordNotFoundError,
} from '../../../src/core/audit/errors';
import { csvHeader } from '../../../src/core/audit/csv-export';
import { openAuditStore } from '../../../src/core/audit/store';
import { PRODUCT, reserveInput, tempStore, type TempStore } from './fixture';

const run = promisify(execFile);

let t: TempStore;
beforeEach(() => (t = tempStore()));
afterEach(() => t.cleanup());

describe('provisioning record transitions', () => {
  it('goes reserved → written → verified with times, station and product fields', () => {
    const reserved = t.store.reserve(reserveInput(1, 'DB-0001'));
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
    const written = t.store.markWritten(reserved.id, 2);
    expect(written).toMatchObject({ state: 'written', writtenAt: t.now.value, attempts: 2 });
    t.now.value += 700;
    const verified = t.store.markVerified(reserved.id, 1);
    expect(verified).toMatchObject({
      state: 'verified',
      result: 'ok',
      verifiedAt: t.now.value,
      updatedAt: t.now.value,
      createdAt: reserved.createdAt,
    });
    expect(t.store.listUnfinished()).toEqual([]);
  });

  it('refuses transitions the state does not allow, naming the record', () => {
    const r = t.store.reserve(reserveInput(1, 'DB-0001'));
    expect(() => t.store.markVerified(r.id)).toThrow(InvalidTransitionError);
    expect(() => t.store.markVerified(r.id)).toThrow(
      `record #${r.id} cannot go from reserved to verified`,
    );
    t.store.markWritten(r.id);
    t.store.markVerified(r.id);
    expect(() => t.store.release(r.id, 'oops')).toThrow('cannot go from verified to released');
    expect(() => t.store.markFailed(r.id, { step: 'verify', error: 'x', psdiHeld: true })).toThrow(
      InvalidTransitionError,
    );
    expect(() => t.store.markWritten(999)).toThrow(RecordNotFoundError);
  });

  it('keeps a failed record’s PSDI only when the board may carry it', () => {
    const before = t.store.reserve(reserveInput(1, 'DB-0001'));
    const failedEarly = t.store.markFailed(before.id, {
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
    expect(t.store.reserve(reserveInput(2, 'DB-0001')).psdi).toBe('DB-0001');

    const after = t.store.reserve(reserveInput(3, 'DB-0002'));
    t.store.markFailed(after.id, { step: 'commit', error: 'no answer', psdiHeld: true });
    expect(() => t.store.reserve(reserveInput(4, 'DB-0002'))).toThrow(PsdiTakenError);
    // A freed PSDI cannot be taken back by the record that let it go.
    expect(() => t.store.markWritten(failedEarly.id)).toThrow('no longer holds its PSDI');
  });

  it('survives a reopen; the file is in WAL mode', () => {
    const r = t.store.reserve(reserveInput(1, 'DB-0001'));
    t.store.markWritten(r.id);
    t.reopen();
    expect(t.store.listUnfinished()).toMatchObject([
      { id: r.id, state: 'written', psdi: 'DB-0001' },
    ]);
    const raw = new Database(t.file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('lists unfinished records (reserved and written) oldest first', () => {
    const a = t.store.reserve(reserveInput(1, 'A'));
    const b = t.store.reserve(reserveInput(2, 'B'));
    const c = t.store.reserve(reserveInput(3, 'C'));
    const d = t.store.reserve(reserveInput(4, 'D'));
    t.store.markWritten(b.id);
    t.store.markWritten(c.id);
    t.store.markVerified(c.id);
    t.store.release(d.id, 'board lost');
    expect(t.store.listUnfinished().map((r) => [r.id, r.state])).toEqual([
      [a.id, 'reserved'],
      [b.id, 'written'],
    ]);
    expect(t.store.get(d.id)).toMatchObject({
      state: 'released',
      psdiHeld: false,
      error: 'board lost',
    });
  });
});

describe('one live record per product and PSDI', () => {
  it('refuses a held PSDI for the same product, allows it for another product', () => {
    const first = t.store.reserve(reserveInput(1, 'DB-0001'));
    expect(() => t.store.reserve(reserveInput(2, 'DB-0001'))).toThrow(
      new PsdiTakenError(PRODUCT.id, 'DB-0001', first.id).message,
    );
    const other = { ...PRODUCT, id: '3000000002' };
    expect(t.store.reserve(reserveInput(2, 'DB-0001', other)).psdi).toBe('DB-0001');
    t.store.release(first.id, 'board lost');
    expect(t.store.reserve(reserveInput(3, 'DB-0001')).state).toBe('reserved');
  });

  it('refuses a second unfinished record for the same board', () => {
    const first = t.store.reserve(reserveInput(1, 'DB-0001'));
    expect(() => t.store.reserve(reserveInput(1, 'DB-0002'))).toThrow(BoardBusyError);
    expect(() => t.store.reserve(reserveInput(1, 'DB-0002'))).toThrow(`record #${first.id}`);
    t.store.markWritten(first.id);
    t.store.markVerified(first.id);
    expect(t.store.reserve(reserveInput(1, 'DB-0002')).state).toBe('reserved');
  });

  it('is enforced by the database itself, not only by the check', () => {
    t.store.reserve(reserveInput(1, 'DB-0001'));
    const raw = new Database(t.file);
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

  it('holds across two connections racing for the same PSDI', () => {
    const other = openAuditStore({ file: t.file, station: 'bench-2' });
    try {
      const results = [t.store, other, t.store, other].map((s, i) => {
        try {
          return s.reserve(reserveInput(10 + i, 'DB-7777')).station;
        } catch (err) {
          return (err as Error).name;
        }
      });
      expect(results).toEqual(['bench-1', 'PsdiTakenError', 'PsdiTakenError', 'PsdiTakenError']);
    } finally {
      other.close();
    }
  });

  it('gives every one of three processes reserving at once distinct sequence PSDIs', async () => {
    t.store.close();
    const worker = fileURLToPath(new URL('./reserve-worker.ts', import.meta.url));
    const outputs = await Promise.all(
      [1, 2, 3].map((w) =>
        run(process.execPath, ['--import', 'tsx', worker, t.file, String(w), '40'], {
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
    t.reopen();
    expect(t.store.search({ limit: 500 }).total).toBe(120);
  }, 90_000);
});

describe('search', () => {
  beforeEach(() => {
    const other = { ...PRODUCT, id: '3000000002', name: 'Other' };
    for (let i = 1; i <= 30; i++) {
      t.now.value += 60_000;
      const r = t.store.reserve(
        reserveInput(i, `DB-${String(i).padStart(4, '0')}`, i % 3 === 0 ? other : PRODUCT),
      );
      if (i % 2 === 0) t.store.markWritten(r.id);
    }
    t.store.reserve({
      ...reserveInput(99, '50%_off'),
      board: { id: 'x', address: 'AA:BB:CC:DD:EE:FF' },
    });
  });

  it('filters by product and state, newest first, with a total for paging', () => {
    const page = t.store.search({ productId: PRODUCT.id, states: ['written'], limit: 5 });
    expect(page.total).toBe(10); // even numbers not divisible by 3: 2,4,8,10,14,16,20,22,26,28
    expect(page.items.map((r) => r.psdi)).toEqual([
      'DB-0028',
      'DB-0026',
      'DB-0022',
      'DB-0020',
      'DB-0016',
    ]);
    const next = t.store.search({
      productId: PRODUCT.id,
      states: ['written'],
      limit: 5,
      offset: 5,
    });
    expect(next.items.map((r) => r.psdi)).toEqual([
      'DB-0014',
      'DB-0010',
      'DB-0008',
      'DB-0004',
      'DB-0002',
    ]);
  });

  it('matches a PSDI or address substring without case, taking % and _ literally', () => {
    expect(
      t.store
        .search({ text: 'db-001' })
        .items.map((r) => r.psdi)
        .sort(),
    ).toEqual([
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
    expect(t.store.search({ text: 'ee:ff' }).items.map((r) => r.psdi)).toEqual(['50%_off']);
    expect(t.store.search({ text: '0%_' }).items.map((r) => r.psdi)).toEqual(['50%_off']);
    expect(t.store.search({ text: '%' }).total).toBe(1);
  });

  it('filters by a time range, both ends inclusive', () => {
    const all = t.store.search({ limit: 500 }).items;
    const fifth = all.find((r) => r.psdi === 'DB-0005')!;
    const page = t.store.search({ from: fifth.createdAt, to: fifth.createdAt + 2 * 60_000 });
    expect(page.items.map((r) => r.psdi)).toEqual(['DB-0007', 'DB-0006', 'DB-0005']);
  });

  it('refuses a bad query with an error naming the field', () => {
    expect(() => t.store.search({ limit: 0 })).toThrow(ZodError);
    try {
      t.store.search({ limit: 0 });
    } catch (err) {
      expect((err as ZodError).issues[0]?.path).toEqual(['limit']);
    }
  });
});

describe('CSV export', () => {
  it('has a header row and one row per matching record, with the record’s values', () => {
    const a = t.store.reserve(reserveInput(1, 'DB-0001'));
    t.store.markWritten(a.id);
    t.store.markVerified(a.id);
    const b = t.store.reserve({
      ...reserveInput(2, '=HYPERLINK("x")'),
      product: { ...PRODUCT, name: 'Sensor, rev "B"' },
    });
    t.store.markFailed(b.id, {
      step: 'connect',
      error: 'refused, 3 times',
      psdiHeld: false,
      attempts: 3,
    });
    t.store.reserve(reserveInput(3, 'DB-0003', { ...PRODUCT, id: 'elsewhere' }));

    const rows = parse(t.store.exportCsv({ productId: PRODUCT.id })) as string[][];
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

  it('exports only the header when nothing matches', () => {
    t.store.reserve(reserveInput(1, 'DB-0001'));
    expect(parse(t.store.exportCsv({ states: ['verified'] }))).toEqual([csvHeader]);
  });
});
