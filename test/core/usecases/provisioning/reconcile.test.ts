// The reconcile use case both front ends stand on: which records it takes on, what it refuses
// naming `recordId`, and a sweep that reports a record it cannot settle and goes on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SetupError } from '../../../../src/core/usecases/errors';
import {
  NothingToReconcileError,
  reconcileEach,
  reconcileRecord,
  recordsToReconcile,
} from '../../../../src/core/usecases/provisioning/reconcile';
import { blankBoard, PRODUCT, rig, V1, type Rig } from '../../provisioning/fixture';

/** The bench's first blank board, and one no bench here has. */
const BOARD = { id: 'c28e20000001', address: 'c2:8e:20:00:00:01' };
const ELSEWHERE = { id: 'c28e200000ff', address: 'c2:8e:20:00:00:ff' };

let dir: string;
let r: Rig | undefined;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'devicebench-reconcile-usecase-'))));
afterEach(async () => {
  await r?.close();
  r = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const reserve = (psdi: string, board = BOARD, profileId = V1.id) =>
  r!.store.reserve({ product: PRODUCT, board, profileId, psdiSource: 'tool', psdi });

describe('the reconcile use case', () => {
  it('takes every unfinished record, or the one named, and refuses a settled or unknown one on recordId', async () => {
    r = await rig([], { dir });
    const held = await reserve('DB-0001');
    const settled = await reserve('DB-0002', ELSEWHERE);
    await r.store.release(settled.id, 'board lost');

    expect((await recordsToReconcile(r.store)).map((x) => x.id)).toEqual([held.id]);
    expect((await recordsToReconcile(r.store, held.id)).map((x) => x.id)).toEqual([held.id]);

    const refused = await recordsToReconcile(r.store, settled.id).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(NothingToReconcileError);
    expect(refused).toMatchObject({
      field: 'recordId',
      detail: `record ${settled.id} is released and holds no PSDI: there is nothing to reconcile`,
      record: { id: settled.id },
    });
    const missing = await recordsToReconcile(r.store, 9999).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(SetupError);
    expect(missing).toMatchObject({ field: 'recordId', detail: 'no record 9999' });
  });

  it('refuses an unknown record and answers a settled one as settled, both before it opens the radio', async () => {
    r = await rig([], { dir });
    let opened = false;
    const central = async () => {
      opened = true;
      return r!.central;
    };
    const one = (recordId: number) =>
      reconcileRecord({ central, store: r!.store, profiles: [V1], recordId, whenBlank: 'release' });
    await expect(one(42)).rejects.toMatchObject({ field: 'recordId', detail: 'no record 42' });
    // Released by another station after the operator's list showed it: said, not refused.
    const settled = await reserve('DB-0005', ELSEWHERE);
    await r.store.release(settled.id, 'board lost');
    const outcome = await one(settled.id);
    expect(outcome).toMatchObject({
      action: 'settled',
      record: { id: settled.id, state: 'released' },
    });
    expect(outcome.message).toMatch(
      new RegExp(`^record #${settled.id}: already released at \\d{2}:\\d{2} — nothing to do$`),
    );
    expect(opened).toBe(false);
  });

  it('reports a record of a profile not known here, settles the next, and stops when told', async () => {
    r = await rig([blankBoard(1)], { dir });
    const unknown = await reserve('DB-0003', ELSEWHERE, 'not-here');
    const blank = await reserve('DB-0004');
    const outcomes = await reconcileEach({
      central: r.central,
      store: r.store,
      profiles: [V1],
      records: [unknown, blank],
      whenBlank: 'release',
      signal: new AbortController().signal,
    });
    expect(outcomes[0]).toEqual({
      recordId: unknown.id,
      action: 'failed',
      state: 'reserved',
      message: 'profile not-here is not known here',
    });
    expect(outcomes[1]).toMatchObject({
      recordId: blank.id,
      action: 'released',
      state: 'released',
    });

    const stopped = new AbortController();
    stopped.abort();
    expect(
      await reconcileEach({
        central: r.central,
        store: r.store,
        profiles: [V1],
        records: [unknown],
        whenBlank: 'release',
        signal: stopped.signal,
      }),
    ).toEqual([]);
  });
});
