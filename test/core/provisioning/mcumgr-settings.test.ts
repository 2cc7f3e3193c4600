// Provisioning through MCUmgr settings (docs/provisioning-protocol.md, "MCUmgr settings
// profiles"): a simulated stock Zephyr board takes the product's UUIDs and the PSDI as settings,
// saves, resets, boots as the product and is verified by read-back; the record is reserved
// before the first write, and a board that refuses the writes burns no PSDI.
import { afterEach, describe, expect, it } from 'vitest';
import type { McumgrSettingsProfile } from '../../../src/core/ble/provisioning-profile';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import { MCUMGR_SERVICE_UUID } from '../../../src/core/ble/mcumgr/service';
import { builtInProfiles } from '../../../src/core/provisioning/profiles';
import {
  advertisementOf,
  blankBoard,
  duplicateHeldPsdis,
  failure,
  FAST,
  PRODUCT,
  provisionOn,
  rig,
  sequence,
  type Rig,
} from './fixture';

const SETTINGS = builtInProfiles().find(
  (p) => p.id === 'zephyr-mcumgr-settings',
) as McumgrSettingsProfile;

/** A stock Zephyr board whose firmware reads the profile's keys at boot. */
function zephyrBoard(
  n: number,
  faults: {
    refuseSettingsWrites?: boolean;
    saveAnswerLost?: boolean;
    settingsNotKept?: boolean;
  } = {},
  settings: Record<string, string> = {},
): BoardSpecInput {
  const fast = blankBoard(n);
  return {
    ...fast,
    provisioning: undefined,
    name: `DB Zephyr ${n}`,
    advertising: { ...fast.advertising, serviceUuids: [MCUMGR_SERVICE_UUID] },
    mcumgr: { resetMs: 50, identityKeys: SETTINGS.keys, faults, settings },
  };
}

let r: Rig;
afterEach(() => r.close());

describe('provisioning through MCUmgr settings', { timeout: 30_000 }, () => {
  it('writes, saves, resets and verifies, with the record reserved before the first write', async () => {
    r = await rig([zephyrBoard(1)]);
    const events: string[] = [];
    const { record } = await provisionOn(r, 'c2:8e:20:00:00:01', {
      profile: SETTINGS,
      onProgress: (e) => {
        if (e.type === 'step-started') events.push(e.step);
        if (e.type === 'record') events.push(`record:${e.record.state}`);
      },
    });
    expect(record).toMatchObject({
      profileId: 'zephyr-mcumgr-settings',
      psdi: 'DB-0001',
      psdiSource: 'tool',
      state: 'verified',
      psdiHeld: true,
      productId: PRODUCT.id,
    });
    // Reserved on disk before the write step, verified last.
    expect(events.indexOf('record:reserved')).toBeLessThan(events.indexOf('write'));
    expect(events.slice(events.indexOf('write'))).toEqual([
      'write',
      'commit',
      'record:written',
      'verify',
      'record:verified',
    ]);

    // The board now boots as the product: a second run is refused before anything is reserved.
    const again = await failure(
      provisionOn(r, 'c2:8e:20:00:00:01', {
        profile: SETTINGS,
        board: await advertisementOf(r.central, 'c2:8e:20:00:00:01', [PRODUCT.serviceUuid]),
      }),
    );
    expect(again.step).toBe('select');
    expect(again.message).toMatch(/already advertises the product's service/);
    expect(again.record).toBeUndefined();
    expect(await duplicateHeldPsdis(r.store)).toEqual([]);
  });

  it('a board that refuses the settings writes burns no PSDI', async () => {
    r = await rig([zephyrBoard(1, { refuseSettingsWrites: true }), zephyrBoard(2)]);
    const psdi = sequence();
    const refused = await failure(provisionOn(r, 'c2:8e:20:00:00:01', { profile: SETTINGS, psdi }));
    expect(refused.step).toBe('write');
    expect(refused.message).toMatch(
      /refused the write of serviceUuid to setting devicebench\/service_uuid: .*write not supported/,
    );
    expect(refused.record).toMatchObject({
      psdi: 'DB-0001',
      state: 'failed',
      psdiHeld: false,
      psdiReturned: true,
    });

    const { record } = await provisionOn(r, 'c2:8e:20:00:00:02', { profile: SETTINGS, psdi });
    expect(record).toMatchObject({ psdi: 'DB-0001', state: 'verified' });
  });

  it('a board that cannot take the image fails at flash with nothing reserved; one that can carries its hash', async () => {
    r = await rig([zephyrBoard(1), zephyrBoard(2)]);
    const psdi = sequence();
    const hash = 'ab'.repeat(32);
    const flashed: string[] = [];
    const refused = await failure(
      provisionOn(r, 'c2:8e:20:00:00:01', {
        profile: SETTINGS,
        psdi,
        flash: { hash, onto: () => Promise.reject(new Error('image group: 0x09 no free slot')) },
      }),
    );
    expect(refused.step).toBe('flash');
    expect(refused.message).toContain('no free slot');
    expect(refused.record).toBeUndefined();
    expect((await r.store.search({ productId: PRODUCT.id, limit: 10 })).items).toEqual([]);

    const { record } = await provisionOn(r, 'c2:8e:20:00:00:02', {
      profile: SETTINGS,
      psdi,
      flash: { hash, onto: async (address) => void flashed.push(address) },
    });
    expect(flashed).toEqual(['c2:8e:20:00:00:02']);
    expect(record).toMatchObject({ psdi: 'DB-0001', state: 'verified', imageHash: hash });
  });

  it('a save whose answer is lost is resolved by looking at the board, then by the read-back', async () => {
    r = await rig([zephyrBoard(1, { saveAnswerLost: true })]);
    const { record } = await provisionOn(r, 'c2:8e:20:00:00:01', { profile: SETTINGS });
    expect(record).toMatchObject({ psdi: 'DB-0001', state: 'verified', psdiHeld: true });
    expect(record.history).toMatchObject([
      {
        step: 'commit',
        kind: 'failed',
        message: expect.stringContaining('no answer to the settings save'),
      },
    ]);
  });

  it('an empty PSDI value is no PSDI: the board is blank and provisioned', async () => {
    // What a handler that answers an unset key with zero bytes gives (the example firmware did).
    r = await rig([zephyrBoard(1, {}, { [SETTINGS.keys.psdi]: '' })]);
    const { record } = await provisionOn(r, 'c2:8e:20:00:00:01', { profile: SETTINGS });
    expect(record).toMatchObject({ psdi: 'DB-0001', state: 'verified' });
  });

  it('a PSDI already in the settings is refused before one is reserved', async () => {
    r = await rig([zephyrBoard(1, {}, { [SETTINGS.keys.psdi]: 'OLD-7' })]);
    const held = await failure(provisionOn(r, 'c2:8e:20:00:00:01', { profile: SETTINGS }));
    expect(held.step).toBe('discover');
    expect(held.message).toContain(`setting ${SETTINGS.keys.psdi} holds PSDI "OLD-7" already`);
    expect(held.record).toBeUndefined();
  });

  it('a key longer than Zephyr takes is refused, in words that say so and burn no PSDI', async () => {
    r = await rig([zephyrBoard(1)]);
    const long = {
      ...SETTINGS,
      keys: { ...SETTINGS.keys, psdiCharacteristicUuid: 'devicebench/psdi_characteristic_uuid' },
    };
    const refused = await failure(provisionOn(r, 'c2:8e:20:00:00:01', { profile: long }));
    expect(refused.step).toBe('write');
    expect(refused.message).toMatch(
      /refused the write of psdiCharacteristicUuid to setting devicebench\/psdi_characteristic_uuid: settings group: 0x02 key too long \(a stock Zephyr takes keys of at most 31 characters: CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN, 32 by default, counts the NUL\); likely cause: the key is 36 characters, so shorten/,
    );
    expect(refused.record).toMatchObject({ state: 'failed', psdiHeld: false, psdiReturned: true });
  });

  it('a board that loses its settings at the reset is told apart from one that refuses them', async () => {
    r = await rig([zephyrBoard(1, { settingsNotKept: true })]);
    // The read-back waits for a product board that never comes: 1 s a try is as telling as 3.
    const lost = await failure(
      provisionOn(r, 'c2:8e:20:00:00:01', {
        profile: SETTINGS,
        timing: { ...FAST, verify: { timeoutMs: 1_000, retries: 1 } },
      }),
    );
    expect(lost.step).toBe('verify');
    expect(lost.message).toContain(
      `the board lost ${Object.values(SETTINGS.keys).join(', ')} at its reset: it took and saved every setting, yet has no value for them after booting again`,
    );
    expect(lost.message).not.toMatch(/refused/);
  });
});
