// A write whose answer was lost (the link or the adapter went away after the request went out)
// may have reached the board: the record keeps its PSDI and says "outcome unknown — reconcile",
// and reconcile settles it by what the board carries (docs/decisions.md, "A noisy serial line").
import { afterEach, describe, expect, it } from 'vitest';
import { reconcile } from '../../../src/core/provisioning/reconcile';
import { ProvisionCancelledError } from '../../../src/core/provisioning/steps';
import {
  blankBoard,
  duplicateHeldPsdis,
  failure,
  FAST,
  provisionOn,
  rig,
  V1,
  type Rig,
} from './fixture';

let r: Rig;
afterEach(() => r.close());

const ADDRESS = 'c2:8e:20:00:00:01';
const boardState = () => r.bench.boards().find((b) => b.address === ADDRESS)?.provisioning;
/** One write session: the dropped link is not tried again. */
const ONE_SESSION = { ...FAST, write: { timeoutMs: 1_000, retries: 0 } };

describe('a write whose answer was lost', () => {
  it('fails the record holding its PSDI, "outcome unknown — reconcile"; reconcile finishes it', async () => {
    r = await rig([
      blankBoard(1, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.psdi } },
      }),
    ]);
    const err = await failure(provisionOn(r, ADDRESS, { timing: ONE_SESSION }));
    expect(err.step).toBe('write');
    expect(err.record).toMatchObject({
      state: 'failed',
      failedStep: 'write',
      psdiHeld: true,
      psdiReturned: false,
      writtenAt: null,
    });
    expect(err.record?.error).toContain(
      'the answer to the write of the PSDI was lost: outcome unknown — reconcile',
    );
    expect(err.record?.error).not.toMatch(/acknowledged|Nothing was written/);
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: err.record!.id,
      whenBlank: 'finish',
      timing: FAST,
    });
    expect(outcome).toMatchObject({ action: 'finished', finding: { kind: 'blank' } });
    expect(outcome.record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
    expect(boardState()?.committed?.psdi).toBe('DB-0001');
    expect(await duplicateHeldPsdis(r.store)).toEqual([]);
  });

  it('is not released as "stopped" when the adapter goes away during it; reconcile releases it', async () => {
    r = await rig([
      blankBoard(1, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.psdi } },
      }),
    ]);
    // What the CLI does when the adapter goes away: stop the run with the reason.
    const stop = new AbortController();
    const err = await failure(
      provisionOn(r, ADDRESS, {
        signal: stop.signal,
        onProgress: (e) => {
          if (e.type === 'step-failed' && e.step === 'write')
            stop.abort('stopped before the commit: the adapter went away (unplugged)');
        },
      }),
    );
    expect(err).not.toBeInstanceOf(ProvisionCancelledError);
    expect(err.record).toMatchObject({ state: 'failed', psdiHeld: true, psdiReturned: false });
    expect(err.record?.error).toBe(
      'stopped before the commit: the adapter went away (unplugged). the answer to the write of the PSDI was lost: outcome unknown — reconcile',
    );
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: err.record!.id,
      whenBlank: 'release',
      timing: FAST,
    });
    expect(outcome).toMatchObject({ action: 'released', record: { state: 'released' } });
    expect(boardState()?.committed).toBeUndefined();
  });

  it('a verify that fails after the commit answer was lost keeps the PSDI and says so; reconcile verifies', async () => {
    // The board commits and reboots at once: the link drops before the commit's answer.
    r = await rig([blankBoard(1, { provisioning: { profile: 'devicebench-v1', rebootMs: 0 } })]);
    const id = r.bench.boards()[0]!.id;
    const err = await failure(
      provisionOn(r, ADDRESS, {
        timing: { ...FAST, verify: { timeoutMs: 600, retries: 0 } },
        onProgress: (e) => {
          // The board cannot be reached once it has rebooted into product mode.
          if (e.type === 'step-started' && e.step === 'verify')
            r.bench.setFaults(id, { refuseConnection: true });
        },
      }),
    );
    expect(err.step).toBe('verify');
    expect(err.record).toMatchObject({ state: 'failed', psdiHeld: true, writtenAt: null });
    expect(err.record?.error).toContain(
      'the answer to the commit was lost: outcome unknown — reconcile',
    );
    r.bench.setFaults(id, { refuseConnection: false });
    const outcome = await reconcile({
      central: r.central,
      store: r.store,
      profile: V1,
      record: err.record!.id,
      whenBlank: 'release',
      timing: FAST,
    });
    expect(outcome).toMatchObject({ action: 'verified', record: { state: 'verified' } });
  });
});
