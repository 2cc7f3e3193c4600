// Reconciliation: records a crash left behind are settled by what the board carries. The kill
// tests SIGKILL a real child process mid-provisioning and reconcile over a bench reopened from
// the same flash (state file).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAuditStore } from '../../../src/core/audit/open-store';
import type { ProvisioningState } from '../../../src/core/audit/records';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { needsReconciling, reconcile } from '../../../src/core/provisioning/reconcile';
import { bundled } from '../../helpers/bundled';
import { blankBoard, FAST, PRODUCT, rig, V1, type Rig } from './fixture';

const ADDRESS = 'c2:8e:20:00:00:01';
const BOARD = { id: 'c28e20000001', address: ADDRESS };

let dir: string;
let r: Rig | undefined;
let child: ChildProcess | undefined;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'devicebench-reconcile-'))));
afterEach(async () => {
  child?.kill('SIGKILL');
  await r?.close();
  r = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const reserve = async (psdi: string) =>
  r!.store.reserve({ product: PRODUCT, board: BOARD, profileId: V1.id, psdiSource: 'tool', psdi });

const boardView = () => r!.bench.boards().find((b) => b.address === ADDRESS)?.provisioning;

/** A bench flash file in which the board already carries `psdi` for the product. */
function flashWith(psdi: string): string {
  const file = join(dir, 'bench-state.json');
  const identity = {
    serviceUuid: PRODUCT.serviceUuid,
    psdiServiceUuid: PRODUCT.psdiServiceUuid,
    psdiCharacteristicUuid: PRODUCT.psdiCharacteristicUuid,
    psdi,
    committedAt: 1,
  };
  writeFileSync(file, JSON.stringify({ version: 1, boards: { [BOARD.id]: identity } }));
  return file;
}

describe('reconcile', () => {
  it('finishes a blank board with the SAME reserved PSDI when the operator chooses finish', async () => {
    r = await rig([blankBoard(1)], { dir });
    const record = await reserve('DB-0042');
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record,
      whenBlank: 'finish',
      timing: FAST,
    });
    expect(outcome).toMatchObject({ action: 'finished', finding: { kind: 'blank', status: 0 } });
    expect(outcome.record).toMatchObject({ id: record.id, state: 'verified', psdi: 'DB-0042' });
    expect(boardView()?.committed?.psdi).toBe('DB-0042');
    expect((await r.store.search()).total).toBe(1);
  });

  it('releases the PSDI of a blank board when the operator chooses release; a list hands it out again', async () => {
    r = await rig([blankBoard(1)], { dir });
    const list = createPsdiAllocator({ kind: 'list', values: ['L-1', 'L-2'] }, 20);
    const record = await r.store.reserve({
      product: PRODUCT,
      board: BOARD,
      profileId: V1.id,
      psdiSource: 'tool',
      psdi: list,
    });
    const choices: number[] = [];
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: record.id,
      whenBlank: (finding) => {
        choices.push(finding.status);
        return 'release';
      },
      timing: FAST,
    });
    expect(choices).toEqual([0]);
    expect(outcome).toMatchObject({
      action: 'released',
      record: { state: 'released', psdiHeld: false },
    });
    expect(boardView()?.status).toBe('blank');
    const again = await r.store.reserve({
      product: PRODUCT,
      board: { id: 'x', address: 'other' },
      profileId: V1.id,
      psdiSource: 'tool',
      psdi: list,
    });
    expect(again.psdi).toBe('L-1');
  });

  it('verifies a record whose board already carries its PSDI', async () => {
    r = await rig([blankBoard(1)], { dir, stateFile: flashWith('DB-0007') });
    const record = await reserve('DB-0007');
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record,
      whenBlank: 'release',
      timing: FAST,
    });
    expect(outcome).toMatchObject({
      action: 'verified',
      record: { state: 'verified' },
      finding: { kind: 'carries-psdi' },
    });
    expect(outcome.record.writtenAt).not.toBeNull();
  });

  it('fails a record whose board carries a different PSDI, with a clear error', async () => {
    r = await rig([blankBoard(1)], { dir, stateFile: flashWith('DB-0999') });
    const record = await reserve('DB-0001');
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record,
      whenBlank: 'finish',
      timing: FAST,
    });
    expect(outcome.action).toBe('failed');
    expect(outcome.record).toMatchObject({
      state: 'failed',
      failedStep: 'reconcile',
      error: 'the board carries PSDI "DB-0999", not the reserved "DB-0001"',
      psdiHeld: false,
    });
    expect(boardView()?.committed?.psdi).toBe('DB-0999');
  });

  it('leaves the record as it is when the board is not found', async () => {
    r = await rig([], { dir });
    const record = await reserve('DB-0001');
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record,
      whenBlank: 'finish',
      timing: { ...FAST, select: { timeoutMs: 300, retries: 0 } },
    });
    expect(outcome).toMatchObject({ action: 'not-found', record: { state: 'reserved' } });
    expect(outcome.message).toContain('did not show up within 300 ms');
    expect(needsReconciling((await r.store.get(record.id))!)).toBe(true);
  });

  it('leaves a record settled since it was listed, saying who settled it and when', async () => {
    r = await rig([], { dir });
    const listed = await reserve('DB-0001');
    await r.store.markFailed(listed.id, { step: 'commit', error: 'no answer', psdiHeld: true });
    const released = await r.store.releaseHeld(listed.id, { reason: 'board scrapped', by: 'ana' });
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: listed,
      whenBlank: 'finish',
    });
    const at = new Date(released.updatedAt).toTimeString().slice(0, 5);
    expect(outcome).toMatchObject({
      action: 'settled',
      record: { state: 'released' },
      message: `record #${listed.id}: already released by ${r.store.station} at ${at} — nothing to do`,
    });
    expect(outcome.finding).toBeUndefined();
  });

  it('leaves a record another station verified while its board was looked at', async () => {
    r = await rig([blankBoard(1)], { dir, stateFile: flashWith('DB-0007') });
    const record = await r.store.markWritten((await reserve('DB-0007')).id);
    const other = await openAuditStore({
      location: { kind: 'local', file: r.dbFile },
      station: 'station-b',
    });
    try {
      // Station B's verify lands just before this one's: this one's change is refused.
      const store = new Proxy(r.store, {
        get(target, key) {
          if (key === 'markVerified')
            return async (id: number) => {
              await other.markVerified(id);
              return target.markVerified(id);
            };
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const outcome = await reconcile({
        central: r.central,
        store,
        profile: V1,
        record,
        whenBlank: 'release',
        timing: FAST,
      });
      expect(outcome).toMatchObject({
        action: 'settled',
        record: { state: 'verified' },
        finding: { kind: 'carries-psdi' },
      });
      expect(outcome.message).toMatch(
        new RegExp(`^record #${record.id}: already verified at \\d\\d:\\d\\d — nothing to do$`),
      );
    } finally {
      await other.close();
    }
  }, 15_000);
});

describe('a process killed mid-provisioning', () => {
  const script = bundled('provision-child');

  /** Starts the child and SIGKILLs it as soon as its record reaches `state`. */
  async function killAt(state: ProvisioningState, perOperationMs: number, rebootMs: number) {
    const dbFile = join(dir, 'audit.db');
    const stateFile = join(dir, 'bench-state.json');
    // The schema exists before the child starts, so polling never races its creation.
    await (await openAuditStore({ location: { kind: 'local', file: dbFile } })).close();
    const proc = spawn(
      process.execPath,
      [script, dbFile, stateFile, String(perOperationMs), String(rebootMs)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = proc;
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      proc.on('exit', (_code, signal) => resolve(signal)),
    );
    const db = new Database(dbFile, { readonly: true });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const row = db.prepare('SELECT state FROM provisioning_records').get() as
          { state: string } | undefined;
        if (row?.state === state) break;
        if (proc.exitCode !== null) throw new Error(`the child ended before ${state}: ${stderr}`);
        if (Date.now() > deadline)
          throw new Error(`no record in state ${state} within 30 s: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      proc.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      db.close();
    }
    return { stateFile };
  }

  it('killed between reserve and write: the reserved record is finished by reconcile with its PSDI', async () => {
    const { stateFile } = await killAt('reserved', 150, 50);
    r = await rig([blankBoard(1)], { dir, stateFile });
    const unfinished = await r.store.listUnfinished();
    expect(unfinished).toMatchObject([
      { state: 'reserved', psdi: 'KILL-001', boardAddress: ADDRESS, station: 'child' },
    ]);
    expect(boardView()?.committed).toBeUndefined();

    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: unfinished[0]!,
      whenBlank: 'finish',
      timing: FAST,
    });
    expect(outcome).toMatchObject({
      action: 'finished',
      record: { state: 'verified', psdi: 'KILL-001' },
    });
    expect(boardView()?.committed?.psdi).toBe('KILL-001');
    expect(await r.store.listUnfinished()).toEqual([]);
    expect((await r.store.search()).total).toBe(1);
  }, 60_000);

  it('killed after the commit was acknowledged: reconcile finds the PSDI on the board and verifies', async () => {
    const { stateFile } = await killAt('written', 5, 5_000);
    r = await rig([blankBoard(1)], { dir, stateFile });
    const [record] = await r.store.listUnfinished();
    expect(record).toMatchObject({ state: 'written', psdi: 'KILL-001' });
    // The board committed to flash before it answered; it comes back as the product.
    expect(boardView()?.committed?.psdi).toBe('KILL-001');

    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: record!,
      whenBlank: 'release',
      timing: FAST,
    });
    expect(outcome).toMatchObject({
      action: 'verified',
      record: { state: 'verified', psdi: 'KILL-001' },
    });
    expect(await r.store.listUnfinished()).toEqual([]);
  }, 60_000);
});
