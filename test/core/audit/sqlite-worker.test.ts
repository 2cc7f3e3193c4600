// The SQLite log through its worker thread (what openAuditStore gives for a local log): one
// writer's guarantees with reservations racing from one and from two stores, stores of one process
// taking turns at the file (a dead worker's turn given back), nothing committed lost when the
// process dies mid-batch, the store's refusals arriving as their own classes,
// and an export read in chunks of 1,000 however large the log.
import { spawn } from 'node:child_process';
import type { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPORT_CHUNK_ROWS } from '../../../src/core/audit/csv-export';
import {
  BoardBusyError,
  InvalidTransitionError,
  PsdiTakenError,
  StoreUnavailableError,
} from '../../../src/core/audit/errors';
import { openAuditStore } from '../../../src/core/audit/open-store';
import { SqliteWorkerStore } from '../../../src/core/audit/sqlite-worker-store';
import type { PsdiAllocator } from '../../../src/core/audit/store';
import { createPsdiAllocator, PsdiError } from '../../../src/core/audit/psdi';
import { bundled } from '../../helpers/bundled';
import { startChildrenFromSources } from '../../helpers/bundled-children';
import { fillLog, reserveInput, tempStore, type TempStore } from './fixture';

const sequence = () => createPsdiAllocator({ kind: 'sequence', prefix: 'W-', width: 4 }, 20);

describe('SQLite audit log in a worker thread', () => {
  // Its workers load the sources through tsx, as the package's launcher's do.
  startChildrenFromSources();
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore('sqlite', undefined);
  });
  afterEach(() => t.cleanup());

  it('is what openAuditStore opens for a local log', () => {
    expect(t.store).toBeInstanceOf(SqliteWorkerStore);
  });

  it('refuses a log it cannot open with what opening threw, leaving nothing unhandled', async () => {
    const missing = { kind: 'local' as const, file: `${t.dir}/no such folder/audit.sqlite` };
    await expect(openAuditStore({ location: missing })).rejects.toThrow(/directory does not exist/);
  });

  it('never hands out one PSDI twice to reservations racing on one store and on two', async () => {
    const other = await t.open('bench-2');
    const allocator = sequence();
    const racing = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? other : t.store).reserve(reserveInput(i + 1, allocator)),
    );
    const psdis = (await Promise.all(racing)).map((r) => r.psdi);
    expect(new Set(psdis).size).toBe(40);
    expect([...psdis].sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `W-${String(i + 1).padStart(4, '0')}`),
    );
    // Two reservations of one value at once: one holds it, the other is refused by class.
    const outcomes = await Promise.allSettled([
      t.store.reserve(reserveInput(100, 'SAME-1')),
      other.reserve(reserveInput(101, 'SAME-1')),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected')?.reason as PsdiTakenError;
    expect(refused).toBeInstanceOf(PsdiTakenError);
    expect(refused).toMatchObject({ psdi: 'SAME-1', productId: reserveInput(1, '').product.id });
  });

  it('brings the store’s refusals and the allocator’s own errors back as their classes', async () => {
    const held = await t.store.reserve(reserveInput(1, 'E-1'));
    const busy = await t.store.reserve(reserveInput(1, 'E-2')).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(BoardBusyError);
    expect(busy).toMatchObject({ recordId: held.id, psdi: 'E-1', boardAddress: held.boardAddress });
    const verified = await t.store.markVerified(held.id).catch((e: unknown) => e);
    expect(verified).toBeInstanceOf(InvalidTransitionError);
    expect(verified).toMatchObject({ recordId: held.id, from: 'reserved', to: 'verified' });
    // An allocator that fails after taking a number, inside the reservation's transaction: its
    // own error comes back, and the number goes with the rolled-back transaction.
    class OutOfValues extends Error {}
    const failing: PsdiAllocator = {
      allocate: async (context) => {
        await context.takeNumber('n', 1);
        throw new OutOfValues('no values left');
      },
    };
    const refused = await t.store.reserve(reserveInput(2, failing)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutOfValues);
    const taking: PsdiAllocator = { allocate: async (c) => `N-${await c.takeNumber('n', 1)}` };
    expect((await t.store.reserve(reserveInput(2, taking))).psdi).toBe('N-1');
    expect((await t.store.search({ productId: held.productId })).total).toBe(2);
  });

  it('runs an allocator made from a strategy in the worker, its refusal back as PsdiError', async () => {
    const made = createPsdiAllocator({ kind: 'list', values: ['R-1', 'R-2'] }, 20);
    // The worker makes the allocator again from its recipe: this thread's copy is never asked.
    let askedHere = 0;
    const allocator: PsdiAllocator = {
      ...made,
      allocate: (context) => {
        askedHere++;
        return made.allocate(context);
      },
    };
    const psdis = await Promise.all(
      [1, 2].map(async (i) => (await t.store.reserve(reserveInput(i, allocator))).psdi),
    );
    expect(psdis.sort()).toEqual(['R-1', 'R-2']);
    expect(askedHere).toBe(0);
    const refused = await t.store.reserve(reserveInput(3, allocator)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PsdiError);
    expect(refused).toMatchObject({
      field: 'values',
      message: 'all 2 PSDIs in the list are taken',
    });
    // The byte limit it carries is checked on what it hands out, as the caller would.
    const tight = createPsdiAllocator({ kind: 'sequence', prefix: 'LONG-', width: 4 }, 20);
    const limited: PsdiAllocator = {
      ...tight,
      recipe: { strategy: tight.recipe!.strategy, maxBytes: 8 },
    };
    await expect(t.store.reserve(reserveInput(4, limited))).rejects.toThrow(/allows at most 8$/);
  });

  it('refuses one of several reservations waiting together alone, the others committed', async () => {
    const held = await t.store.reserve(reserveInput(1, 'HELD-1'));
    const allocator = sequence();
    // Sent at once, they wait in the worker's queue together and share one transaction.
    const outcomes = await Promise.allSettled([
      t.store.reserve(reserveInput(2, allocator)),
      t.store.reserve(reserveInput(1, allocator)),
      t.store.reserve(reserveInput(3, 'HELD-1')),
      t.store.reserve(reserveInput(4, allocator)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(BoardBusyError);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ heldBy: held.id });
    // The refused ones took nothing: the sequence runs on without a gap.
    expect(outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.psdi] : []))).toEqual([
      'W-0001',
      'W-0002',
    ]);
    expect((await t.store.search({ productId: held.productId })).total).toBe(3);
  });

  it('hands the file to the next store of this process, and when a worker dies mid-write', async () => {
    const other = await t.open('bench-2');
    /** An allocator written in code: the worker asks it across with the file's write held. */
    const holding = () => {
      let release = (_psdi: string) => {};
      let asked = () => {};
      const askedNow = new Promise<void>((resolve) => (asked = resolve));
      const allocator: PsdiAllocator = {
        allocate: () => {
          asked();
          return new Promise((resolve) => (release = resolve));
        },
      };
      return { allocator, asked: askedNow, release: (psdi: string) => release(psdi) };
    };
    const first = holding();
    const held = t.store.reserve(reserveInput(1, first.allocator));
    await first.asked;
    let waited = true;
    const next = other.reserve(reserveInput(2, 'T-2')).finally(() => (waited = false));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(waited).toBe(true);
    first.release('T-1');
    expect((await held).psdi).toBe('T-1');
    expect((await next).psdi).toBe('T-2');
    // The worker holding the write ends: the other store's turn comes at once, not after the 5 s
    // it would wait for a turn no one gives back.
    const second = holding();
    const lost = t.store.reserve(reserveInput(3, second.allocator)).catch((e: unknown) => e);
    await second.asked;
    const after = other.reserve(reserveInput(4, 'T-4'));
    const stopped = performance.now();
    await (await (t.store as unknown as { worker: Promise<Worker> }).worker).terminate();
    expect(await lost).toBeInstanceOf(StoreUnavailableError);
    expect((await after).psdi).toBe('T-4');
    expect(performance.now() - stopped).toBeLessThan(4_000);
  });

  it('loses nothing it answered for when the process is killed mid-batch', async () => {
    const file = t.location.kind === 'local' ? t.location.file : '';
    const child = spawn(process.execPath, [bundled('crash-child'), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const answered: { id: number; psdi: string }[] = [];
    const lines = createInterface({ input: child.stdout });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    for await (const line of lines) {
      const [id, psdi] = line.split(' ');
      answered.push({ id: Number(id), psdi: psdi as string });
      if (answered.length === 25) child.kill('SIGKILL');
    }
    await exited;
    const store = await openAuditStore({ location: t.location });
    try {
      for (const { id, psdi } of answered)
        expect(await store.get(id)).toMatchObject({ psdi, state: 'reserved', psdiHeld: true });
      // Whatever it committed after the last line it printed is there too, and nothing twice.
      const all = await store.records(0, 1000);
      expect(new Set(all.map((r) => r.psdi)).size).toBe(all.length);
      expect(all.length).toBeGreaterThanOrEqual(answered.length);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('exports 50,000 records in chunks of 1,000, oldest first, each chunk its own read', async () => {
    await fillLog(t.store, 50_000);
    const chunks: number[] = [];
    let lastId = 0;
    let ordered = true;
    for await (const chunk of t.store.exportCsv()) {
      chunks.push(chunk.rows);
      for (const line of chunk.text.split('\r\n').slice(chunk.rows ? 0 : 1, -1)) {
        const id = Number(line.slice(0, line.indexOf(',')));
        ordered &&= id > lastId;
        lastId = id;
      }
      // Each chunk is its own read: a reservation made halfway through is not held up, and
      // lands at the end of this very export (the newest record).
      if (chunks.length === 25) {
        t.now.value += 60_000;
        await t.store.reserve(reserveInput(99_999, 'MID-EXPORT'));
      }
    }
    expect(chunks[0]).toBe(0);
    expect(chunks.slice(1)).toEqual([...Array(50).fill(EXPORT_CHUNK_ROWS), 1]);
    expect(ordered).toBe(true);
    expect(lastId).toBe(50_001);
  }, 120_000);
});
