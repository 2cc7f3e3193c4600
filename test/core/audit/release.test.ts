// Giving PSDIs back on both engines (docs/decisions.md, "Provisioning that explains itself"): a
// held PSDI of a failed record released from the audit log, logged with who, when and where, and
// handed out again; a PSDI returned by a refused run reused the same way; and the next PSDI told
// without taking it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../../src/core/audit/errors';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { usePostgres } from '../../helpers/postgres';
import { ENGINES, PRODUCT, reserveInput, tempStore, type TempStore } from './fixture';
import { collectCsv } from '../../../src/core/audit/csv-export';

const postgres = usePostgres();
const sequence = () => createPsdiAllocator({ kind: 'sequence', prefix: 'DB-', width: 4 }, 20);

describe.each(ENGINES)('giving PSDIs back on %s', (engine) => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore(engine, postgres);
  }, 30_000);
  afterEach(() => t.cleanup());

  /** A record that failed after its commit went out: it holds its PSDI. */
  async function heldFailure(n: number) {
    const r = await t.store.reserve(reserveInput(n, sequence()));
    return t.store.markFailed(r.id, {
      step: 'commit',
      error: 'no answer to the commit',
      psdiHeld: true,
      attempts: 2,
    });
  }

  it('releases a failed record’s held PSDI, logs who, when and where, and reuses it', async () => {
    const failed = await heldFailure(1);
    expect(failed).toMatchObject({ psdi: 'DB-0001', psdiHeld: true, state: 'failed' });
    expect(await t.store.peekPsdi(PRODUCT.id, sequence())).toBe('DB-0002');
    t.now.value += 60_000;
    const released = await t.store.releaseHeld(failed.id, {
      reason: 'board checked blank on the bench',
      by: 'ayumi',
    });
    expect(released).toMatchObject({
      state: 'released',
      psdiHeld: false,
      psdiReturned: true,
      updatedAt: t.now.value,
    });
    expect(released.history).toEqual([
      {
        at: t.now.value,
        step: 'commit',
        attempt: 2,
        kind: 'released',
        message: 'board checked blank on the bench',
        then: 'PSDI DB-0001 back in the pool',
        by: 'ayumi',
        station: 'bench-1',
      },
    ]);
    expect(await t.store.peekPsdi(PRODUCT.id, sequence())).toBe('DB-0001');
    const next = await t.store.reserve(reserveInput(2, sequence()));
    expect(next.psdi).toBe('DB-0001');
    // Used again, it is no longer in the pool: the sequence goes on.
    expect((await t.store.reserve(reserveInput(3, sequence()))).psdi).toBe('DB-0002');
  });

  it('refuses to release a record that holds no PSDI or is not failed', async () => {
    const reserved = await t.store.reserve(reserveInput(1, sequence()));
    await expect(t.store.releaseHeld(reserved.id, { reason: 'x', by: 'y' })).rejects.toThrow(
      InvalidTransitionError,
    );
    const freed = await t.store.markFailed(reserved.id, {
      step: 'write',
      error: 'x',
      psdiHeld: false,
    });
    await expect(t.store.releaseHeld(freed.id, { reason: 'x', by: 'y' })).rejects.toThrow(
      /holds no PSDI/,
    );
  });

  it('hands a PSDI returned by a refused run out again, and peeks without taking', async () => {
    const r = await t.store.reserve(reserveInput(1, sequence()));
    await t.store.markFailed(r.id, {
      step: 'write',
      error: 'refused',
      psdiHeld: false,
      returnPsdi: true,
      history: [{ at: 1, step: 'write', attempt: 1, kind: 'failed', message: 'refused' }],
    });
    expect(await t.store.peekPsdi(PRODUCT.id, sequence())).toBe('DB-0001');
    expect(await t.store.peekPsdi(PRODUCT.id, sequence())).toBe('DB-0001');
    expect((await t.store.reserve(reserveInput(2, sequence()))).psdi).toBe('DB-0001');
    expect(await t.store.peekPsdi(PRODUCT.id, sequence())).toBe('DB-0002');
    const csv = await collectCsv(t.store.exportCsv());
    expect(csv.split('\r\n')[0]).toMatch(/,psdi_returned,history$/);
    expect(csv).toContain('write attempt 1 failed: refused');
  });
});
