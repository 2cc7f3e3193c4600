// One board through real noble over the simulated bench: provision, verify, record; and every
// fault the sim models ends in a correct record with no PSDI given twice.
import { afterEach, describe, expect, it } from 'vitest';
import {
  provisionBoard,
  type ProvisionBoardOptions,
} from '../../../src/core/provisioning/workflow';
import { type ProvisionEvent } from '../../../src/core/provisioning/steps';
import { JUST_WORKS_PAIRING, smpRecorder } from '../ble/fixture';
import { builtInProfiles, gattProfiles } from '../../../src/core/provisioning/profiles';
import {
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
} from '../../../src/core/platform/things/schema';
import {
  advertisementOf,
  blankBoard,
  DEVICE_PSDI,
  duplicateHeldPsdis,
  FAST,
  PRODUCT,
  rig,
  V1,
  type Rig,
  failure,
  provisionOn,
  sequence,
} from './fixture';

let r: Rig;
afterEach(() => r.close());

const compact = (uuid: string) => uuid.replaceAll('-', '');

const provision = (address: string, extra: Partial<ProvisionBoardOptions> = {}) =>
  provisionOn(r, address, extra);

const committed = (address: string) =>
  r.bench.boards().find((b) => b.address === address)?.provisioning;

describe('provisioning one board', () => {
  it('writes, commits, verifies by read-back and records each step', async () => {
    r = await rig([blankBoard(1)]);
    const events: ProvisionEvent[] = [];
    const { record, durationMs } = await provision('c2:8e:20:00:00:01', {
      onProgress: (e) => events.push(e),
    });
    expect(record).toMatchObject({
      state: 'verified',
      psdi: 'DB-0001',
      boardAddress: 'c2:8e:20:00:00:01',
      productId: PRODUCT.id,
      profileId: 'devicebench-v1',
      psdiSource: 'tool',
      station: 'test-bench',
    });
    expect(durationMs).toBeGreaterThan(0);
    expect(committed('c2:8e:20:00:00:01')).toMatchObject({
      status: 'committed',
      committed: { psdi: 'DB-0001', serviceUuid: PRODUCT.serviceUuid },
    });
    const finished = events.filter((e) => e.type === 'step-finished').map((e) => e.step);
    // Connected and checked against the profile before the PSDI is reserved.
    expect(finished).toEqual([
      'select',
      'connect',
      'discover',
      'reserve',
      'write',
      'commit',
      'verify',
    ]);
    const states = events.flatMap((e) => (e.type === 'record' ? [e.record.state] : []));
    expect(states).toEqual(['reserved', 'written', 'verified']);
    // Each transition was on disk before the step after it started.
    const order = events.map((e) => (e.type === 'record' ? e.record.state : `${e.type}:${e.step}`));
    expect(order.indexOf('reserved')).toBeLessThan(order.indexOf('step-started:write'));
    expect(order.indexOf('written')).toBeLessThan(order.indexOf('step-started:verify'));
  });

  it('refuses a PSDI too long for the profile before reserving or writing anything', async () => {
    r = await rig([blankBoard(1)]);
    const err = await failure(provision('c2:8e:20:00:00:01', { psdi: 'X'.repeat(21) }));
    expect(err.step).toBe('reserve');
    expect(err.message).toContain(
      'PSDI "XXXXXXXXXXXXXXXXXXXXX" is 21 bytes in UTF-8; the profile allows at most 20',
    );
    expect(err.record).toBeUndefined();
    expect((await r.store.search()).total).toBe(0);
    expect(committed('c2:8e:20:00:00:01')).toMatchObject({ status: 'blank', written: {} });
  });

  it('refuses a board that already has an unfinished record', async () => {
    r = await rig([blankBoard(1)]);
    const held = await r.store.reserve({
      product: PRODUCT,
      board: { id: 'c28e20000001', address: 'c2:8e:20:00:00:01' },
      profileId: V1.id,
      psdiSource: 'tool',
      psdi: 'DB-0100',
    });
    const err = await failure(provision('c2:8e:20:00:00:01'));
    expect(err.step).toBe('reserve');
    expect(err.message).toContain(`unfinished record #${held.id}`);
    expect((await r.store.search()).total).toBe(1);
  });

  it('records the PSDI a device-PSDI board reports, and fails a duplicate without holding it', async () => {
    const derived = (n: number, psdi: string) =>
      blankBoard(n, { provisioning: { profile: DEVICE_PSDI.id, derivedPsdi: psdi, rebootMs: 50 } });
    r = await rig([derived(1, 'CHIP-{address}'), derived(2, 'SAME-1'), derived(3, 'SAME-1')]);
    const opts = { profile: DEVICE_PSDI, psdi: undefined };
    const first = await provision('c2:8e:20:00:00:01', opts);
    expect(first.record).toMatchObject({
      state: 'verified',
      psdi: 'CHIP-C28E20000001',
      psdiSource: 'device',
    });
    expect((await provision('c2:8e:20:00:00:02', opts)).record.psdi).toBe('SAME-1');

    const err = await failure(provision('c2:8e:20:00:00:03', opts));
    expect(err.step).toBe('reserve');
    expect(err.record).toMatchObject({
      state: 'failed',
      failedStep: 'reserve',
      psdi: 'SAME-1',
      psdiHeld: false,
      boardAddress: 'c2:8e:20:00:00:03',
    });
    expect(err.record?.error).toMatch(/PSDI "SAME-1" is already held by record #\d+/);
    expect(committed('c2:8e:20:00:00:03')?.status).toBe('blank');
    expect(await duplicateHeldPsdis(r.store)).toEqual([]);
  });
});

describe('a board like the platform starter firmware', () => {
  it('is verified by reading its read-only PSDI over a link noble encrypts (Just Works) itself', async () => {
    const STARTER = gattProfiles(builtInProfiles()).find((p) => p.id === 'platform-starter')!;
    const smp = smpRecorder();
    r = await rig(
      [
        blankBoard(1, {
          provisioning: { profile: STARTER.id, derivedPsdi: 'STARTER-{address}', rebootMs: 50 },
        }),
      ],
      { trace: smp.trace },
    );
    const { record } = await provision('c2:8e:20:00:00:01', { profile: STARTER, psdi: undefined });
    expect(record).toMatchObject({
      state: 'verified',
      psdi: 'STARTER-C28E20000001',
      psdiSource: 'device',
    });
    // The product's PSDI characteristic is the platform's, read-only, readable only encrypted…
    expect(PRODUCT.psdiServiceUuid).toBe(PLATFORM_PSDI_SERVICE_UUID);
    expect(PRODUCT.psdiCharacteristicUuid).toBe(PLATFORM_PSDI_CHARACTERISTIC_UUID);
    const psdi = r.bench
      .board('c28e20000001')!
      .services()
      .flatMap((service) => service.characteristics)
      .find((c) => c.uuid === compact(PLATFORM_PSDI_CHARACTERISTIC_UUID));
    expect(psdi).toMatchObject({ properties: ['read'], permissions: { read: 'encrypted' } });
    // …so verifying it took noble's own pairing.
    expect(smp.seen).toEqual(JUST_WORKS_PAIRING);
  });
});

describe('faults', () => {
  it('a refused connection fails at connect after its retries, before any PSDI is reserved', async () => {
    r = await rig([blankBoard(1, { faults: { refuseConnection: true } })]);
    const events: ProvisionEvent[] = [];
    const err = await failure(
      provision('c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) }),
    );
    expect(err.step).toBe('connect');
    expect(err.attempts).toBe(3);
    expect(err.message).toBe(
      'c2:8e:20:00:00:01: connect: the board refused the connection: Connection Failed to be Established (0x3e)',
    );
    expect(err.record).toBeUndefined();
    expect((await r.store.search()).total).toBe(0);
    const tries = events.filter((e) => e.type === 'step-failed' && e.step === 'connect');
    expect(tries.map((e) => e.type === 'step-failed' && e.willRetry)).toEqual([true, true, false]);
    expect(committed('c2:8e:20:00:00:01')?.status).toBe('blank');
  });

  it('a link dropped mid-write is retried with a new session and ends verified', async () => {
    r = await rig([
      blankBoard(1, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.psdi } },
      }),
    ]);
    const events: ProvisionEvent[] = [];
    const { record } = await provision('c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) });
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
    expect((await r.store.get(record.id))?.writtenAt).not.toBeNull();
    const writes = events.filter(
      (e) => e.type !== 'record' && e.step === 'write' && e.type !== 'step-started',
    );
    expect(writes.map((e) => e.type)).toEqual(['step-failed', 'step-finished']);
    expect(committed('c2:8e:20:00:00:01')?.committed?.psdi).toBe('DB-0001');
  });

  it('a commit whose answer is lost is resolved by looking at the board, not by guessing', async () => {
    r = await rig([
      blankBoard(1, {
        faults: { dropLinkDuringWrite: { characteristic: V1.characteristics.control } },
      }),
    ]);
    const events: ProvisionEvent[] = [];
    const { record } = await provision('c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) });
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
    // The board was seen still provisioning, so the commit was sent again.
    const commits = events.filter((e) => e.type === 'step-started' && e.step === 'commit');
    expect(commits.map((e) => e.type === 'step-started' && e.attempt)).toEqual([1, 2]);
    expect((await r.store.search()).total).toBe(1);
  });

  it('a slow link within the timeouts provisions; beyond them fails at write with the PSDI freed', async () => {
    r = await rig([
      // Each PDU takes 3 connection events: a dozen ATT round trips still fit every timeout.
      blankBoard(1, { faults: { slowLink: 3 } }),
      blankBoard(2, { latency: { connectMs: 15, perOperationMs: 10 }, faults: { slowLink: 10 } }),
    ]);
    expect((await provision('c2:8e:20:00:00:01')).record.state).toBe('verified');
    // 100 ms per answer and ten events per PDU: discovery is given its time, a write is not.
    const slow = {
      ...FAST,
      discover: { timeoutMs: 20_000, retries: 0 },
      write: { timeoutMs: 50, retries: 1 },
    };
    const err = await failure(provision('c2:8e:20:00:00:02', { timing: slow }));
    expect(err.step).toBe('write');
    expect(err.attempts).toBe(2);
    expect(err.message).toContain('no answer within 50 ms');
    expect(err.record).toMatchObject({
      state: 'failed',
      failedStep: 'write',
      psdiHeld: false,
      psdi: 'DB-0002',
    });
    expect(committed('c2:8e:20:00:00:02')?.status).not.toBe('committed');
    expect(await duplicateHeldPsdis(r.store)).toEqual([]);
  }, 30_000);

  it('a refused commit fails at commit without retrying, and frees the PSDI', async () => {
    r = await rig([blankBoard(1)]);
    // The board expects 01; a tool on a profile that says 02 is refused.
    const wrong = { ...V1, commit: { value: '02' } };
    const events: ProvisionEvent[] = [];
    const err = await failure(
      provision('c2:8e:20:00:00:01', { profile: wrong, onProgress: (e) => events.push(e) }),
    );
    expect(err.step).toBe('commit');
    expect(err.message).toMatch(/the board refused the commit \(status 0x01\): .*ATT error 0x80/);
    expect(err.record).toMatchObject({ state: 'failed', failedStep: 'commit', psdiHeld: false });
    expect(events.filter((e) => e.type === 'step-started' && e.step === 'commit')).toHaveLength(1);
    expect(committed('c2:8e:20:00:00:01')?.status).toBe('pending');
  });

  it('a board already provisioned is refused at select', async () => {
    r = await rig([blankBoard(1)]);
    await provision('c2:8e:20:00:00:01');
    const ad = await advertisementOf(r.central, 'c2:8e:20:00:00:01', [PRODUCT.serviceUuid]);
    const err = await failure(
      provisionBoard({
        central: r.central,
        store: r.store,
        profile: V1,
        product: PRODUCT,
        board: ad,
        psdi: sequence(),
      }),
    );
    expect(err.step).toBe('select');
    expect(err.message).toContain('does not advertise the provisioning service');
    expect((await r.store.search()).total).toBe(1);
  });
});
