// Reconcile on a stock Zephyr board provisioned through MCUmgr settings: the PSDI key is read
// back through MCUmgr. A board booted as the product with the record's PSDI is verified; one
// with another PSDI fails the record; a blank one is finished with the same PSDI; a PSDI
// written but never saved is gone after the reset reconcile makes, so it is blank; one saved
// but not yet booted survives the reset and cannot be released.
import { afterEach, describe, expect, it } from 'vitest';
import { MCUMGR_SERVICE_UUID } from '../../../src/core/ble/mcumgr/service';
import { encodeUuid, type McumgrSettingsProfile } from '../../../src/core/ble/provisioning-profile';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import { builtInProfiles } from '../../../src/core/provisioning/profiles';
import { reconcile } from '../../../src/core/provisioning/reconcile';
import { resetBoard, setSetting, type BoardByAddress } from '../../../src/core/usecases/firmware';
import { blankBoard, duplicateHeldPsdis, FAST, PRODUCT, rig, type Rig } from './fixture';

const SETTINGS = builtInProfiles().find(
  (p) => p.id === 'zephyr-mcumgr-settings',
) as McumgrSettingsProfile;
const ADDRESS = 'c2:8e:20:00:00:01';
const BOARD = { id: 'c28e20000001', address: ADDRESS };

function zephyrBoard(): BoardSpecInput {
  const fast = blankBoard(1);
  return {
    ...fast,
    provisioning: undefined,
    name: 'DB Zephyr 1',
    advertising: { ...fast.advertising, serviceUuids: [MCUMGR_SERVICE_UUID] },
    mcumgr: { resetMs: 50, identityKeys: SETTINGS.keys },
  };
}

let r: Rig;
afterEach(() => r.close());

const target = (): BoardByAddress => ({
  central: r.central,
  address: ADDRESS,
  findTimeoutMs: 3_000,
  connectTimeoutMs: 3_000,
});

const reserve = (psdi: string) =>
  r.store.reserve({
    product: PRODUCT,
    board: BOARD,
    profileId: SETTINGS.id,
    psdiSource: 'tool',
    psdi,
  });

/** What a provisioning run writes to the board, saved (or only live with `save` false). */
async function writeIdentity(psdi: string, save: boolean): Promise<void> {
  const text = (value: string) => encodeUuid(SETTINGS, value);
  const { keys } = SETTINGS;
  await setSetting(target(), keys.serviceUuid, text(PRODUCT.serviceUuid), false);
  await setSetting(target(), keys.psdiServiceUuid, text(PRODUCT.psdiServiceUuid), false);
  await setSetting(
    target(),
    keys.psdiCharacteristicUuid,
    text(PRODUCT.psdiCharacteristicUuid),
    false,
  );
  await setSetting(target(), keys.psdi, new TextEncoder().encode(psdi), save);
}

const run = (record: number, whenBlank: 'finish' | 'release') =>
  reconcile({
    central: r.central,
    store: r.store,
    profile: SETTINGS,
    record,
    whenBlank,
    timing: FAST,
  });

describe('reconcile on an MCUmgr settings board', { timeout: 60_000 }, () => {
  it('verifies a board booted as the product with the record’s PSDI, read through MCUmgr', async () => {
    r = await rig([zephyrBoard()]);
    const record = await reserve('DB-0042');
    await writeIdentity('DB-0042', true);
    await resetBoard(target());
    const outcome = await run(record.id, 'release');
    expect(outcome).toMatchObject({
      action: 'verified',
      finding: { kind: 'carries-psdi', psdi: 'DB-0042' },
      record: { state: 'verified', psdiHeld: true },
    });
  });

  it('fails the record when the board carries another PSDI', async () => {
    r = await rig([zephyrBoard()]);
    const record = await reserve('DB-0042');
    await writeIdentity('DB-0007', true);
    await resetBoard(target());
    const outcome = await run(record.id, 'finish');
    expect(outcome).toMatchObject({ action: 'failed', record: { state: 'failed' } });
    expect(outcome.message).toContain(
      'the board carries PSDI "DB-0007", not the reserved "DB-0042"',
    );
  });

  it('finishes a blank board with the same PSDI', async () => {
    r = await rig([zephyrBoard()]);
    const record = await reserve('DB-0042');
    const finished = await run(record.id, 'finish');
    expect(finished).toMatchObject({
      action: 'finished',
      finding: { kind: 'blank' },
      record: { state: 'verified', psdi: 'DB-0042' },
    });
    expect(await duplicateHeldPsdis(r.store)).toEqual([]);
  });

  it('a PSDI written but never saved is gone after the reset reconcile makes: released', async () => {
    r = await rig([zephyrBoard()]);
    const record = await reserve('DB-0042');
    await writeIdentity('DB-0042', false);
    const outcome = await run(record.id, 'release');
    expect(outcome).toMatchObject({
      action: 'released',
      finding: { kind: 'blank' },
      record: { state: 'released' },
    });
    expect(outcome.finding).not.toHaveProperty('devicePsdi');
  });

  it('a PSDI saved but not yet booted survives the reset: it is not released, and finish verifies it', async () => {
    r = await rig([zephyrBoard()]);
    const record = await reserve('DB-0042');
    // Saved without the UUIDs: the board keeps the PSDI in flash but cannot boot as the product.
    await setSetting(target(), SETTINGS.keys.psdi, new TextEncoder().encode('DB-0042'), true);
    await expect(run(record.id, 'release')).rejects.toThrow(
      `keeps PSDI "DB-0042" in its setting ${SETTINGS.keys.psdi} across a reset`,
    );
    expect(await r.store.get(record.id)).toMatchObject({ state: 'reserved', psdiHeld: true });
    const finished = await run(record.id, 'finish');
    expect(finished).toMatchObject({
      action: 'finished',
      finding: { kind: 'blank', devicePsdi: 'DB-0042' },
      record: { state: 'verified' },
    });
  });
});
