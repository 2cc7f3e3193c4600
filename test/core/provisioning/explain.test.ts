// Provisioning that explains itself (docs/decisions.md): a refusal by the board stops at once with
// its cause (the firmware, when its GATT fits the profile) and burns no PSDI; a lost link is retried and the
// record says so; a held PSDI released from the audit log is logged and handed out again.
import { afterEach, describe, expect, it } from 'vitest';
import { ATT_ERROR } from '../../../src/core/ble/att/codes';
import { formatUuid } from '../../../src/core/ble/port';
import { describeRecordEvent } from '../../../src/core/audit/records';
import { ProvisionCancelledError, type ProvisionEvent } from '../../../src/core/provisioning/steps';
import { type ProvisionBoardOptions } from '../../../src/core/provisioning/workflow';
import { blankBoard, PRODUCT, rig, V1, type Rig, failure, provisionOn } from './fixture';
import { collectCsv } from '../../../src/core/audit/csv-export';

let r: Rig;
afterEach(() => r.close());

const provision = (address: string, extra: Partial<ProvisionBoardOptions> = {}) =>
  provisionOn(r, address, extra);

const refusing = (n: number, code: number) =>
  blankBoard(n, {
    faults: { refuseAccess: { operation: 'write', code } },
  });

describe('a board that refuses the write', () => {
  it('stops after the first refusal, blames the firmware (its GATT fits the profile), and burns no PSDI', async () => {
    r = await rig([refusing(1, ATT_ERROR.writeNotPermitted), blankBoard(2)]);
    const events: ProvisionEvent[] = [];
    const err = await failure(
      provision('c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) }),
    );
    expect(err.step).toBe('write');
    expect(err.attempts).toBe(1);
    expect(err.message).toContain('ATT error 0x03 (write not permitted)');
    // Its GATT matches devicebench-v1, so no other profile is offered.
    expect(err.message).toContain('its GATT matches profile devicebench-v1');
    expect(err.message).toContain('the firmware itself refuses it');
    expect(err.message).not.toContain('devicebench-v1-device-psdi');
    const writes = events.filter((e) => e.type === 'step-started' && e.step === 'write');
    expect(writes).toHaveLength(1);
    expect(events.some((e) => e.type === 'step-failed' && e.willRetry)).toBe(false);
    expect(err.record).toMatchObject({
      state: 'failed',
      psdi: 'DB-0001',
      psdiHeld: false,
      psdiReturned: true,
    });
    expect(err.record?.history).toHaveLength(1);
    // The next board gets the same number: nothing reached the refusing board.
    const { record } = await provision('c2:8e:20:00:00:02');
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001', psdiReturned: false });
    expect((await r.store.search()).total).toBe(2);
  });

  it('a refusal for want of encryption stops at once too, with the pairing cause', async () => {
    r = await rig([refusing(1, ATT_ERROR.insufficientEncryption)]);
    const err = await failure(provision('c2:8e:20:00:00:01'));
    expect(err.attempts).toBe(1);
    expect(err.message).toMatch(/insufficient encryption.*requires a paired, encrypted link/);
    expect(err.record?.psdiReturned).toBe(true);
  });

  it('a board that fails for another reason keeps retrying and does not return the PSDI', async () => {
    r = await rig([refusing(1, ATT_ERROR.unlikelyError)]);
    const err = await failure(provision('c2:8e:20:00:00:01'));
    expect(err.attempts).toBe(3);
    expect(err.record).toMatchObject({ psdiHeld: false, psdiReturned: false });
    expect(err.record?.history.map((e) => e.then)).toEqual([
      expect.stringMatching(/^attempt 2 after ATT error 0x0e/),
      expect.stringMatching(/^attempt 3 after ATT error 0x0e/),
      undefined,
    ]);
  });
});

describe('a board that refuses the read-back', () => {
  it('stops at verify after the first refusal instead of retrying', async () => {
    r = await rig([
      blankBoard(1, {
        faults: {
          refuseAccess: {
            operation: 'read',
            characteristic: PRODUCT.psdiCharacteristicUuid,
            code: ATT_ERROR.readNotPermitted,
          },
        },
      }),
    ]);
    const events: ProvisionEvent[] = [];
    const err = await failure(
      provision('c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) }),
    );
    expect(err.step).toBe('verify');
    expect(err.attempts).toBe(1);
    expect(err.message).toContain('ATT error 0x02 (read not permitted)');
    const verifies = events.filter((e) => e.type === 'step-started' && e.step === 'verify');
    expect(verifies).toHaveLength(1);
    expect(events.some((e) => e.type === 'step-failed' && e.willRetry)).toBe(false);
  });
});

describe('a run stopped by the operator', () => {
  it('before the PSDI was written gives it back, so the next board gets the same number', async () => {
    r = await rig([blankBoard(1), blankBoard(2)]);
    const stop = new AbortController();
    const err = await failure(
      provision('c2:8e:20:00:00:01', {
        signal: stop.signal,
        onProgress: (e) => {
          if (e.type === 'record' && e.record.state === 'reserved') stop.abort();
        },
      }),
    );
    expect(err).toBeInstanceOf(ProvisionCancelledError);
    expect(err.record).toMatchObject({
      state: 'released',
      psdi: 'DB-0001',
      psdiHeld: false,
      psdiReturned: true,
    });
    const { record } = await provision('c2:8e:20:00:00:02');
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
  });
});

describe('a link lost mid-write', () => {
  it('is retried and the verified record says so', async () => {
    r = await rig([
      blankBoard(1, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.psdi } },
      }),
    ]);
    const { record } = await provision('c2:8e:20:00:00:01');
    expect(record.state).toBe('verified');
    expect(record.history).toHaveLength(1);
    const [event] = record.history;
    expect(event).toMatchObject({ step: 'write', attempt: 1, kind: 'failed' });
    expect(event?.then).toBe('attempt 2 after link lost: reconnected and rewrote every value');
    expect(describeRecordEvent(event as (typeof record.history)[number])).toMatch(
      /^write attempt 1 failed: .*link lost.* → attempt 2 after link lost/,
    );
    // The characteristic by the profile's name for it, its UUID beside.
    const psdi = formatUuid(V1.characteristics.psdi);
    expect(event?.message).toContain(`writing PSDI (${psdi})`);
    expect(event?.message).not.toContain(`characteristic ${psdi}`);
    const stored = await r.store.get(record.id);
    expect(stored?.history).toEqual(record.history);
    expect(await collectCsv(r.store.exportCsv())).toContain('attempt 2 after link lost');
  });
});
