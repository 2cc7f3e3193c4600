// A PSDI is spent only on a board that can take it: the board's GATT is read and checked
// against the profile before anything is reserved, a board of another profile is skipped naming
// the profile that fits it, a failure before the first byte gives the PSDI back, and a refusal
// from the properties check is never retried. Through real noble over the simulated bench.
import { afterEach, describe, expect, it } from 'vitest';
import { ProvisionMismatchError, type ProvisionEvent } from '../../../src/core/provisioning/steps';
import type { ProvisioningProfile } from '../../../src/core/ble/provisioning-profile';
import { NotAllowedError } from '../../../src/core/ble/port';
import { refusalOf } from '../../../src/core/provisioning/faults';
import { advertisementOf, blankBoard, failure, provisionOn, rig, V1, type Rig } from './fixture';

let r: Rig;
afterEach(() => r.close());

const deriving = (n: number) =>
  blankBoard(n, {
    name: `DB Derive ${n}`,
    provisioning: { profile: 'devicebench-v1-device-psdi', rebootMs: 50 },
  });

describe('before a PSDI is reserved', () => {
  it('skips a board of another profile, names the profiles that fit it, and reserves nothing', async () => {
    r = await rig([deriving(1), blankBoard(2)]);
    const events: ProvisionEvent[] = [];
    const err = await failure(
      provisionOn(r, 'c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) }),
    );
    expect(err).toBeInstanceOf(ProvisionMismatchError);
    expect(err.detail).toBe(
      'does not match profile devicebench-v1: its PSDI characteristic (8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00) does not allow write (it allows read); it matches "DeviceBench v1 (firmware derives the PSDI)" (devicebench-v1-device-psdi) or "Platform starter firmware" (platform-starter). Nothing was reserved or written.',
    );
    expect((err as ProvisionMismatchError).matching.map((p) => p.id)).toEqual([
      'devicebench-v1-device-psdi',
      'platform-starter',
    ]);
    expect(err.record).toBeUndefined();
    expect(events.some((e) => e.type === 'step-started' && e.step === 'reserve')).toBe(false);
    expect(events.some((e) => e.type === 'step-started' && e.step === 'write')).toBe(false);
    expect((await r.store.search()).total).toBe(0);
    expect(r.bench.boards()[0]?.provisioning?.status).toBe('blank');
    // The next board gets the first number: nothing was spent.
    const { record } = await provisionOn(r, 'c2:8e:20:00:00:02');
    expect(record.psdi).toBe('DB-0001');
  });

  it('says so when no known profile fits the board', async () => {
    r = await rig([deriving(1)]);
    const err = await failure(provisionOn(r, 'c2:8e:20:00:00:01', { knownProfiles: [V1] }));
    expect(err.detail).toMatch(
      /; it matches none of the known profiles\. Nothing was reserved or written\.$/,
    );
  });

  it('a failure after the reservation and before the first byte gives the PSDI back, and the record says nothing was written', async () => {
    // UUIDs as text are 36 bytes: more than one write carries at MTU 23.
    const text: ProvisioningProfile = { ...V1, id: 'text-v1', uuidEncoding: 'text' };
    r = await rig([
      blankBoard(1, { mtu: 23, provisioning: { profile: text, rebootMs: 50 } }),
      blankBoard(2),
    ]);
    const err = await failure(provisionOn(r, 'c2:8e:20:00:00:01', { profile: text }));
    expect(err.step).toBe('write');
    expect(err.detail).toBe(
      "serviceUuid is 36 bytes but the link's MTU 23 carries at most 20 per write. Nothing was written to the board",
    );
    expect(err.record).toMatchObject({
      state: 'failed',
      psdi: 'DB-0001',
      psdiHeld: false,
      psdiReturned: true,
    });
    const { record } = await provisionOn(r, 'c2:8e:20:00:00:02');
    expect(record.psdi).toBe('DB-0001');
  });
});

describe('a wrong-length refusal (0x0d)', () => {
  it('is final, and says the bytes written against what the profile writes', async () => {
    r = await rig([
      blankBoard(1, {
        faults: {
          refuseAccess: {
            operation: 'write',
            characteristic: V1.characteristics.serviceUuid,
            code: 0x0d,
          },
        },
      }),
    ]);
    const events: ProvisionEvent[] = [];
    const err = await failure(
      provisionOn(r, 'c2:8e:20:00:00:01', { onProgress: (e) => events.push(e) }),
    );
    expect(err.detail).toBe(
      'the board refused the write of Product service UUID (8f1d0001-6b4e-4c5a-9d3e-2a7c5b1e0f00) with ATT error 0x0d (invalid attribute value length); the board did not take 16 bytes; profile devicebench-v1 writes UUIDs as 16 bytes (uuidEncoding "bytes"): the firmware expects another length, so check the profile against it. The board acknowledged no value',
    );
    expect(events.filter((e) => e.type === 'step-failed' && e.willRetry)).toEqual([]);
    expect(err.record).toMatchObject({ psdiReturned: true });
  });
});

describe('a refusal by the properties check', () => {
  it('is a refusal, as final as one from the board, and says what the properties allow', async () => {
    r = await rig([deriving(1)]);
    const ad = await advertisementOf(r.central, 'c2:8e:20:00:00:01');
    const link = await r.central.connect(ad.id);
    try {
      const err = await link
        .write(V1.service, V1.characteristics.psdi, Uint8Array.of(0x41))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotAllowedError);
      expect(refusalOf(err)).toEqual({
        code: undefined,
        what: 'its properties: characteristic 8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00 does not allow write (it allows read)',
        security: false,
      });
    } finally {
      await link.disconnect();
    }
  });
});
