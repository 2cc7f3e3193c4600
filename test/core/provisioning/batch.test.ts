// Batches over the simulated bench: a tray of 20 at concurrency 4, faults mixed in, filters,
// and stop() in the middle, each leaving records that match what the boards carry.
import { afterEach, describe, expect, it } from 'vitest';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { startBatch, type BatchOptions } from '../../../src/core/provisioning/batch';
import { blankBoard, duplicateHeldPsdis, FAST, PRODUCT, rig, V1, type Rig } from './fixture';

let r: Rig;
afterEach(() => r.close());

function batch(options: Partial<BatchOptions> = {}) {
  return startBatch({
    central: r.central,
    store: r.store,
    profile: V1,
    product: PRODUCT,
    psdi: createPsdiAllocator({ kind: 'sequence', prefix: 'DB-', width: 4 }, 20),
    timing: FAST,
    idleMs: 600,
    ...options,
  });
}

/** Every verified record is on its board, every board carrying a PSDI has a verified record. */
async function expectRecordsMatchBoards() {
  const records = (await r.store.search({ productId: PRODUCT.id, limit: 500 })).items;
  const verified = new Map(
    records.filter((x) => x.state === 'verified').map((x) => [x.boardAddress, x.psdi]),
  );
  for (const board of r.bench.boards()) {
    const carries = board.provisioning?.committed?.psdi;
    expect(verified.get(board.address), board.address).toBe(carries);
  }
  expect(await r.store.listUnfinished()).toEqual([]);
  expect(await duplicateHeldPsdis(r.store)).toEqual([]);
}

const tray = (count: number, overrides = {}) =>
  Array.from({ length: count }, (_, i) => blankBoard(i + 1, overrides));

describe('batch provisioning', () => {
  it('provisions a tray of 20 at concurrency 4: all verified, all PSDIs distinct', async () => {
    r = await rig(tray(20));
    const running = new Set<string>();
    let peak = 0;
    const run = batch({
      concurrency: 4,
      onEvent: (e) => {
        if (e.type !== 'board') return;
        if (e.status.state === 'running') running.add(e.status.board.address);
        else running.delete(e.status.board.address);
        peak = Math.max(peak, running.size);
      },
    });
    const summary = await run.done;
    expect(summary).toMatchObject({ ok: 20, failed: 0, skipped: 0, stopped: false });
    expect(peak).toBe(4);
    const psdis = summary.boards.map((b) => b.psdi);
    expect(new Set(psdis).size).toBe(20);
    expect([...psdis].sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `DB-${String(i + 1).padStart(4, '0')}`),
    );
    expect(summary.boardsPerMinute).toBeGreaterThan(0);
    expect((await r.store.search({ states: ['verified'] })).total).toBe(20);
    await expectRecordsMatchBoards();
  }, 60_000);

  it('ends every faulty board in a correct record and gives no PSDI twice', async () => {
    r = await rig([
      ...tray(4),
      blankBoard(5, { faults: { refuseConnection: true } }),
      blankBoard(6, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.psdi } },
      }),
      blankBoard(7, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.control } },
      }),
      blankBoard(8, { faults: { slowLink: 6 } }),
    ]);
    const summary = await batch({ concurrency: 3 }).done;
    expect(summary).toMatchObject({ ok: 7, failed: 1, skipped: 0 });
    const failed = summary.boards.find((b) => b.state === 'failed');
    expect(failed).toMatchObject({ board: { address: 'c2:8e:20:00:00:05' }, step: 'connect' });
    // Refused before anything was reserved: no record, no PSDI spent on it.
    expect(failed?.recordId).toBeUndefined();
    expect((await r.store.search()).total).toBe(7);
    await expectRecordsMatchBoards();
  }, 60_000);

  it('skips boards below the RSSI floor or not matching the name filter, and says why', async () => {
    r = await rig([
      blankBoard(1, { name: 'DB Keep 1' }),
      blankBoard(2, {
        name: 'DB Keep 2',
        advertising: { intervalMs: 20, rssi: { mean: -95, noise: 0 } },
      }),
      blankBoard(3, { name: 'Other 3' }),
    ]);
    const summary = await batch({ nameFilter: 'keep', minRssi: -80 }).done;
    expect(summary).toMatchObject({ ok: 1, failed: 0, skipped: 2 });
    const reasons = Object.fromEntries(summary.boards.map((b) => [b.board.address, b.skipReason]));
    expect(reasons['c2:8e:20:00:00:02']).toBe('filter: RSSI -95 dBm below -80 dBm');
    expect(reasons['c2:8e:20:00:00:03']).toBe('filter: name does not contain "keep"');
    expect((await r.store.search()).total).toBe(1);
  });

  it('onlyMatching: boards of another profile are skipped with the profile that fits, and take no place', async () => {
    // The derived-PSDI boards advertise fastest, so they are the first two seen: were they to
    // count, a batch of two would end with nothing provisioned.
    const deriving = (n: number) =>
      blankBoard(n, {
        name: `DB Derive ${n}`,
        advertising: { intervalMs: 20, rssi: { mean: -50, noise: 0 } },
        provisioning: { profile: 'devicebench-v1-device-psdi', rebootMs: 50 },
      });
    const slow = { advertising: { intervalMs: 200, rssi: { mean: -50, noise: 0 } } };
    r = await rig([deriving(1), deriving(2), blankBoard(3, slow), blankBoard(4, slow)]);
    const summary = await batch({ onlyMatching: true, maxBoards: 2 }).done;
    expect(summary).toMatchObject({ ok: 2, failed: 0, skipped: 0, notMatching: 2 });
    const skipped = summary.boards.filter((b) => b.state === 'skipped');
    expect(skipped.map((b) => b.board.name).sort()).toEqual(['DB Derive 1', 'DB Derive 2']);
    for (const b of skipped) {
      expect(b.recordId).toBeUndefined();
      expect(b.matchingProfiles?.map((p) => p.id)).toEqual([
        'devicebench-v1-device-psdi',
        'platform-starter',
      ]);
      expect(b.skipReason).toMatch(
        /^does not match profile devicebench-v1: its PSDI characteristic \(8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00\) does not allow write \(it allows read\); it matches "DeviceBench v1 \(firmware derives the PSDI\)"/,
      );
    }
    // PSDIs spent == boards verified.
    const records = (await r.store.search()).items;
    expect(records.map((x) => [x.psdi, x.state]).sort()).toEqual([
      ['DB-0001', 'verified'],
      ['DB-0002', 'verified'],
    ]);
    expect(r.bench.boards().filter((b) => b.provisioning?.status === 'blank')).toHaveLength(2);
  });

  it('stop() mid-batch starts no new board, lets running ones finish, and leaves correct records', async () => {
    r = await rig(tray(12));
    let verified = 0;
    const run = batch({
      concurrency: 2,
      onEvent: (e) => {
        if (e.type === 'board' && e.status.state === 'verified' && ++verified === 3)
          void run.stop();
      },
    });
    const summary = await run.done;
    expect(summary.stopped).toBe(true);
    // The two running when stop() came finish; nothing else starts.
    expect(summary.ok).toBeGreaterThanOrEqual(3);
    expect(summary.ok).toBeLessThanOrEqual(4);
    expect(summary.failed).toBe(0);
    expect((await r.store.search()).total).toBe(summary.ok);
    expect(
      summary.boards.filter((b) => b.state === 'skipped').every((b) => b.skipReason === 'stopped'),
    ).toBe(true);
    await expectRecordsMatchBoards();
    // Boards that were never started are still blank.
    expect(r.bench.boards().filter((b) => b.provisioning?.status === 'blank')).toHaveLength(
      12 - summary.ok,
    );
  }, 60_000);

  it('stop({ cut }) cuts running boards before their commit and releases their PSDIs', async () => {
    r = await rig(tray(4, { latency: { connectMs: 15, perOperationMs: 60 } }));
    const run = batch({
      concurrency: 4,
      onEvent: (e) => {
        if (e.type === 'progress' && e.event.type === 'step-started' && e.event.step === 'write')
          void run.stop({ cut: true });
      },
    });
    const summary = await run.done;
    expect(summary.stopped).toBe(true);
    const records = (await r.store.search()).items;
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      const board = r.bench.boards().find((b) => b.address === record.boardAddress);
      if (record.state === 'verified')
        expect(board?.provisioning?.committed?.psdi).toBe(record.psdi);
      else {
        expect(record).toMatchObject({ state: 'released', psdiHeld: false });
        expect(record.error).toBe('stopped by the operator before the commit');
        expect(board?.provisioning?.committed).toBeUndefined();
      }
    }
    expect(records.some((x) => x.state === 'released')).toBe(true);
    await expectRecordsMatchBoards();
  }, 60_000);
});
