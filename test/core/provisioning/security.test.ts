// A profile states the security the product needs: the station pairs up to it before a PSDI is
// reserved, so a pairing that fails or falls short burns nothing (simulated bench, real noble).
import { afterEach, describe, expect, it } from 'vitest';
import { provisioningProfileSchema } from '../../../src/core/ble/provisioning-profile';
import { JUST_WORKS_PAIRING, smpRecorder } from '../ble/fixture';
import { blankBoard, failure, provisionOn, rig, sequence, V1, type Rig } from './fixture';

let r: Rig;
afterEach(() => r.close());

const ADDRESS = 'c2:8e:20:00:00:01';
const needing = (level: 1 | 2 | 3 | 4) => ({ ...V1, security: { level } });
const status = () => r.bench.boards().find((b) => b.address === ADDRESS)?.provisioning?.status;

describe('the security a profile says the product needs', () => {
  it('is reached by pairing before the PSDI is reserved, and the board is provisioned', async () => {
    const smp = smpRecorder();
    r = await rig([blankBoard(1)], { trace: smp.trace });
    const { record } = await provisionOn(r, ADDRESS, { profile: needing(2) });
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
    // The v1 profile's PSDI reads back on an open link: the one pairing is the station's own.
    expect(smp.seen).toEqual(JUST_WORKS_PAIRING);
  });

  it('a board that refuses pairing fails at its pair step with nothing reserved or written', async () => {
    r = await rig([blankBoard(1, { pairing: 'refuse' })]);
    const psdi = sequence();
    const err = await failure(provisionOn(r, ADDRESS, { profile: needing(2), psdi }));
    expect(err.step).toBe('pair');
    expect(err.message).toContain('the board refused pairing');
    expect(err.message).toContain(
      'the product needs Level 2 · encrypted (Just Works) (profile "devicebench-v1"); no PSDI was reserved',
    );
    expect(err.record).toBeUndefined();
    expect((await r.store.search()).total).toBe(0);
    expect(status()).toBe('blank');
    // The PSDI the run would have taken is the next one's.
    const next = await provisionOn(r, ADDRESS, { profile: needing(1), psdi });
    expect(next.record.psdi).toBe('DB-0001');
  });

  it('an authenticated level from a board that can only do Just Works is refused in words', async () => {
    r = await rig([blankBoard(1)]);
    const err = await failure(provisionOn(r, ADDRESS, { profile: needing(3) }));
    expect(err.step).toBe('pair');
    expect(err.message).toMatch(/pairing failed: .*authentication requirements/);
    expect(err.message).toContain('Level 3 · encrypted, authenticated');
    expect((await r.store.search()).total).toBe(0);
    expect(status()).toBe('blank');
  });

  it('is a level from 1 to 4, named when it is not', () => {
    expect(provisioningProfileSchema.parse({ ...V1, security: undefined }).security.level).toBe(1);
    const bad = provisioningProfileSchema.safeParse({ ...V1, security: { level: 5 } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({
      path: ['security', 'level'],
      message: 'must be 1, 2, 3 or 4 (LE security mode 1 level)',
    });
  });
});
