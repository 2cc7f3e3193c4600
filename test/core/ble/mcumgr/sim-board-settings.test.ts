// A simulated Zephyr board's MCUmgr settings, driven by the core's client through noble's own
// HCI stack: saved to flash across resets and bench restarts, deleted, the original protocol's
// answers, and firmware that boots as the product its saved identity settings name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { rig, type Rig } from '../fixture';
import { openMcumgr, resetAndWait, zephyr } from './zephyr-rig';
import { McumgrClient } from '../../../../src/core/ble/mcumgr/client';
import {
  commitSettings,
  deleteSetting,
  readSetting,
  saveSettings,
  writeSetting,
} from '../../../../src/core/ble/mcumgr/settings-group';

const dir = mkdtempSync(join(tmpdir(), 'devicebench-mcumgr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let r: Rig;
afterEach(() => r.close());

describe('simulated MCUmgr board: settings', () => {
  it('keeps saved settings across a reset and a bench restart, and forgets unsaved ones', async () => {
    const stateFile = join(dir, 'settings-state.json');
    r = rig([zephyr({ settings: { 'app/name': 'factory' } })], { stateFile });
    const first = await openMcumgr(r);
    const { link } = first;
    let { client } = first;
    expect(Buffer.from(await r.drive(readSetting(client, 'app/name'))).toString()).toBe('factory');
    await r.drive(writeSetting(client, 'devicebench/psdi', Buffer.from('PSDI-0001')));
    await r.drive(saveSettings(client));
    await r.drive(writeSetting(client, 'devicebench/scratch', Buffer.from('gone')));
    await resetAndWait(r, link, client);
    ({ client } = await openMcumgr(r));
    expect(Buffer.from(await r.drive(readSetting(client, 'devicebench/psdi'))).toString()).toBe(
      'PSDI-0001',
    );
    await expect(r.drive(readSetting(client, 'devicebench/scratch'))).rejects.toThrow(
      'settings group: 0x03 key not found',
    );
    await r.close();

    r = rig([zephyr()], { stateFile });
    ({ client } = await openMcumgr(r));
    expect(Buffer.from(await r.drive(readSetting(client, 'devicebench/psdi'))).toString()).toBe(
      'PSDI-0001',
    );
  });

  it('answers a version 1 request in the original form', async () => {
    r = rig([zephyr()]);
    const ad = await r.find({ name: 'Zephyr MCUmgr' });
    const link = await r.drive(r.central.connect(ad.id));
    const client = await r.drive(McumgrClient.open(link, { clock: r.clock, version: 0 }));
    await expect(r.drive(readSetting(client, 'missing/key'))).rejects.toThrow(
      // Zephyr's settings_mgmt translates "key not found" so, with no `rsn` (not built verbose).
      'MCUmgr: 0x05 no such entry',
    );
    await expect(r.drive(client.request({ op: 'read', group: 0, command: 42 }))).rejects.toThrow(
      'MCUmgr: 0x08 not supported',
    );
  });

  it('deletes a setting from the live store and from flash; commit is accepted', async () => {
    r = rig([zephyr({ settings: { 'app/mode': 'demo' } })]);
    const { client } = await openMcumgr(r);
    await r.drive(commitSettings(client));
    await r.drive(deleteSetting(client, 'app/mode'));
    await expect(r.drive(readSetting(client, 'app/mode'))).rejects.toThrow('key not found');
  });

  it("refuses a key of 32 characters or more as Zephyr's default settings group does", async () => {
    r = rig([zephyr()]);
    const { client } = await openMcumgr(r);
    const longest = `devicebench/${'k'.repeat(19)}`;
    await r.drive(writeSetting(client, longest, Buffer.from('fits')));
    expect(Buffer.from(await r.drive(readSetting(client, longest))).toString()).toBe('fits');
    await expect(r.drive(writeSetting(client, `${longest}k`, Buffer.from('x')))).rejects.toThrow(
      'settings group: 0x02 key too long',
    );
    await expect(r.drive(readSetting(client, `${longest}k`))).rejects.toThrow('key too long');
  });

  it('boots as the product its saved identity settings name: advertised service and PSDI', async () => {
    const KEYS = {
      serviceUuid: 'devicebench/service_uuid',
      psdiServiceUuid: 'devicebench/psdi_service_uuid',
      psdiCharacteristicUuid: 'devicebench/psdi_char_uuid',
      psdi: 'devicebench/psdi',
    };
    const PRODUCT = '9d5e0000-4a1b-4c8e-9f0d-000000000001';
    const PSDI_SERVICE = 'e625601e-9e55-4597-a598-76018a0d293d';
    const PSDI_CHARACTERISTIC = '26e2b12b-85f0-4f3f-9fdd-91d114270e6e';
    r = rig([zephyr({ identityKeys: KEYS })]);
    const { link, client } = await openMcumgr(r);
    await r.drive(writeSetting(client, KEYS.serviceUuid, Buffer.from(PRODUCT)));
    await r.drive(writeSetting(client, KEYS.psdiServiceUuid, Buffer.from(PSDI_SERVICE)));
    // 16 raw bytes are a UUID too, as firmware storing it binary would.
    await r.drive(
      writeSetting(
        client,
        KEYS.psdiCharacteristicUuid,
        Buffer.from(PSDI_CHARACTERISTIC.replaceAll('-', ''), 'hex'),
      ),
    );
    await r.drive(writeSetting(client, KEYS.psdi, Buffer.from('ZEPHYR-0001')));
    // Written but not yet booted with: still no product identity on the air.
    expect((await r.drive(link.discover())).map((s) => s.uuid)).not.toContain(
      PSDI_SERVICE.replaceAll('-', ''),
    );
    await r.drive(saveSettings(client));
    await resetAndWait(r, link, client);

    const product = await r.find({ serviceUuids: [PRODUCT] });
    expect(product.address).toBe('c3:00:00:00:00:01');
    const back = await r.drive(r.central.connect(product.id));
    const psdi = await r.drive(back.read(PSDI_SERVICE, PSDI_CHARACTERISTIC));
    expect(Buffer.from(psdi).toString()).toBe('ZEPHYR-0001');
  });
});
