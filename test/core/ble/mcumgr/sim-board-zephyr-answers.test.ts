// The simulated MCUmgr board's answers where Zephyr 3.4's differ from what it said before
// (docs/decisions/simulated-bench.md, "Held to Zephyr"), checked on the simulated board alone so
// they hold where the Zephyr peers of the differential suite are not found.
import { afterEach, describe, expect, it } from 'vitest';
import { rig, type Rig } from '../fixture';
import { openMcumgr, zephyr } from './zephyr-rig';
import { McumgrClient } from '../../../../src/core/ble/mcumgr/client';
import { MCUMGR_COMMAND, MCUMGR_GROUP } from '../../../../src/core/ble/mcumgr/groups';
import type { McumgrBody } from '../../../../src/core/ble/mcumgr/frame';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { uploadImage } from '../../../../src/core/ble/mcumgr/image-group';
import { outcome } from '../zephyr/differential';
import { buildImage } from './image-builder';

let r: Rig;
afterEach(() => r.close());

const IMAGE = readMcubootImage(buildImage({ version: [2, 0, 0, 0] }));
const { image, settings } = MCUMGR_COMMAND;

async function ask(
  client: McumgrClient,
  op: 'read' | 'write',
  group: number,
  command: number,
  body?: McumgrBody,
) {
  return r.drive(outcome(client.request({ op, group, command, body })));
}

describe('simulated MCUmgr board: answers as Zephyr 3.4', () => {
  it('image group: no image index, the v1 codes img_mgmt translates to, a stray chunk, an empty erase', async () => {
    r = rig([zephyr()]);
    const { link, client } = await openMcumgr(r);
    const v1 = await r.drive(McumgrClient.open(link, { clock: r.clock, version: 0 }));
    const list = await ask(client, 'read', MCUMGR_GROUP.image, image.state);
    expect(list).toMatchObject({ ok: { images: [{ slot: 0 }] } });
    expect((list as { ok: { images: object[] } }).ok.images[0]).not.toHaveProperty('image');
    // Hash not found is "unknown" in v1 (1), an invalid hash "invalid value" (3); no rsn.
    const unknown = { hash: new Uint8Array(32).fill(1), confirm: false };
    expect(await ask(v1, 'write', MCUMGR_GROUP.image, image.state, unknown)).toEqual({
      error: { rc: 1 },
    });
    expect(await ask(v1, 'write', MCUMGR_GROUP.image, image.state, { confirm: false })).toEqual({
      error: { rc: 3 },
    });
    // A chunk with no upload begun: where the board wants the next one.
    const stray = { off: 512, data: new Uint8Array(64) };
    expect(await ask(client, 'write', MCUMGR_GROUP.image, image.upload, stray)).toEqual({
      ok: { off: 0 },
    });
    // Erasing a slot that is already empty: 3.4's "unknown error".
    expect(await ask(client, 'write', MCUMGR_GROUP.image, image.erase, {})).toEqual({
      error: { group: MCUMGR_GROUP.image, rc: 1 },
    });
  });

  it('image group: the last chunk answers its offset alone; confirming over a test is refused', async () => {
    r = rig([zephyr()]);
    const { client } = await openMcumgr(r);
    await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    const test = { hash: IMAGE.hash, confirm: false };
    expect(await ask(client, 'write', MCUMGR_GROUP.image, image.state, test)).toMatchObject({
      ok: { images: [{ slot: 0 }, { slot: 1, pending: true, permanent: false }] },
    });
    // The same test again is nothing; a confirm of either slot would change it: 28.
    expect(await ask(client, 'write', MCUMGR_GROUP.image, image.state, test)).toMatchObject({
      ok: {},
    });
    for (const confirm of [{ confirm: true }, { hash: IMAGE.hash, confirm: true }])
      expect(await ask(client, 'write', MCUMGR_GROUP.image, image.state, confirm)).toEqual({
        error: { group: MCUMGR_GROUP.image, rc: 28 },
      });
  });

  it('a board built with an authenticated transport guards its subscribe: an unattended station is refused', async () => {
    const security = { mode: 'sc-only', ioCapability: 'displayOnly' } as const;
    r = rig([zephyr({ security: 'authenticate' }, { security })]);
    const ad = await r.find({ name: 'Zephyr MCUmgr' });
    const link = await r.drive(r.central.connect(ad.id));
    // The CCCD wants MITM (0x05), the station can offer only Just Works, the SC-only board
    // refuses that: no subscription, said as the pairing's refusal.
    await expect(r.drive(McumgrClient.open(link, { clock: r.clock }))).rejects.toThrow(
      /the board refused pairing: 0x03/,
    );
  });

  it("settings group: no name is the protocol's invalid value; a subtree with no handler is refused", async () => {
    r = rig([zephyr({ settings: { 'app/name': 'factory' } })]);
    const { client } = await openMcumgr(r);
    expect(await ask(client, 'read', MCUMGR_GROUP.settings, settings.readWrite, {})).toEqual({
      error: { rc: 3 },
    });
    const elsewhere = { name: 'other/key', val: Uint8Array.of(1) };
    expect(
      await ask(client, 'write', MCUMGR_GROUP.settings, settings.readWrite, elsewhere),
    ).toEqual({ error: { group: MCUMGR_GROUP.settings, rc: 3 } });
    const handled = { name: 'app/mode', val: Uint8Array.of(1) };
    expect(await ask(client, 'write', MCUMGR_GROUP.settings, settings.readWrite, handled)).toEqual({
      ok: {},
    });
  });
});
