// `devicebench provision` against the project's own example firmware, built for Zephyr's
// native_posix_64 (resources/firmware/devicebench-zephyr-mcumgr/native_posix/) and run on
// BlueZ's btvirt: Zephyr's own Bluetooth host, settings and MCUmgr. A blank board is written,
// saved and reset through the built-in profile, boots as the product and serves its PSDI; the
// audit log says so. A profile with a key longer than Zephyr takes is refused by the board, in
// words that say so. Built without MCUboot, it lists no image, and `firmware list` says so.
// Skipped, with the reason, where btvirt or its tools are missing.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import type { McumgrSettingsProfile } from '../../src/core/ble/provisioning-profile';
import { builtInProfiles } from '../../src/core/provisioning/profiles';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../helpers/zephyr/zephyr-peer';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

const missing = zephyrPeerMissing('devicebench-fw');
/** The firmware's static address (native_identity.c), kept across its resets. */
const BOARD = 'd8:b0:de:b1:00:01';
const plan = {
  profileId: 'zephyr-mcumgr-settings',
  psdi: { kind: 'sequence', prefix: 'ZF-', width: 4 },
};

describe.skipIf(missing !== undefined)(
  zephyrTitled('devicebench provision against the example firmware on Zephyr', missing),
  { timeout: 120_000 },
  () => {
    let peer: ZephyrPeer;
    let data: string;
    let dir: string;
    let product: string;

    beforeAll(async () => {
      dir = tempDir('zephyr-fw');
      data = join(dir, 'data');
      product = await seedProduct(data);
      peer = await startZephyrPeer('devicebench-fw');
    }, 60_000);

    afterAll(async () => {
      await peer?.stop();
    });

    /** `devicebench …` on the peer's btvirt, in this test's data folder. */
    const cli = (...args: string[]) =>
      runCli([...args, '--adapter', peer.adapter, '--data-dir', data]);
    /**
     * The product's records in this test's log, read in this process: the CLI's `audit search`
     * has tests of its own, and each start of it here cost about a second.
     */
    const records = async () => {
      const store = await openAuditStore({
        location: { kind: 'local', file: join(data, 'audit.sqlite') },
      });
      try {
        return (await store.search({ productId: product })).items;
      } finally {
        await store.close();
      }
    };
    const told = (run: { stdout: string; stderr: string }) =>
      `${run.stdout}\n${run.stderr}\n--- Zephyr console ---\n${peer.log()}`;

    it('lists its image slots in words when every one is empty, as a board without MCUboot', async () => {
      const run = await cli('firmware', 'list', '--board', BOARD);
      expect(run.code, told(run)).toBe(0);
      expect(run.stdout).toBe(`${BOARD} lists no images: every slot is empty\n`);
    });

    it('a key longer than Zephyr takes is refused by the board, and the PSDI goes back', async () => {
      expect(peer.log()).toMatch(/not provisioned: waiting for the devicebench\/\* settings/);
      const settings = builtInProfiles().find(
        (p) => p.id === 'zephyr-mcumgr-settings',
      ) as McumgrSettingsProfile;
      const longKey = writeJson(dir, 'long-key-profile.json', {
        ...settings,
        id: 'zephyr-long-key',
        service: undefined,
        keys: { ...settings.keys, psdiCharacteristicUuid: 'devicebench/psdi_characteristic_uuid' },
      });
      const run = await cli(
        'provision',
        '--product',
        product,
        '--board',
        BOARD,
        '--profile',
        longKey,
        '--plan',
        writeJson(dir, 'long-plan.json', { ...plan, profileId: 'zephyr-long-key' }),
      );
      expect(run.code, told(run)).not.toBe(0);
      expect(run.stdout + run.stderr).toContain(
        'refused the write of psdiCharacteristicUuid to setting devicebench/psdi_characteristic_uuid: settings group: 0x02 key too long (a stock Zephyr takes keys of at most 31 characters: CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN, 32 by default, counts the NUL); likely cause: the key is 36 characters, so shorten',
      );
      expect(await records()).toMatchObject([
        { psdi: 'ZF-0001', state: 'failed', failedStep: 'write', psdiReturned: true },
      ]);
    });

    it('provisions the blank board: written, saved, reset, booted as the product, verified and recorded', async () => {
      const boots = peer.boots();
      const run = await cli(
        'provision',
        '--product',
        product,
        '--board',
        BOARD,
        '--profile',
        'zephyr-mcumgr-settings',
        '--plan',
        writeJson(dir, 'plan.json', plan),
        '--json',
      );
      expect(run.code, told(run)).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ wanted: 1, verified: 1 });

      // The firmware itself says it booted again on the saved settings, with the PSDI the
      // returned ZF-0001 went back to the pool for.
      expect(peer.boots()).toBe(boots + 1);
      await peer.waitFor(/provisioned: PSDI ZF-0001/);

      const all = await records();
      const verified = all.find((r) => r.state === 'verified');
      expect(verified, JSON.stringify(all)).toMatchObject({
        psdi: 'ZF-0001',
        boardAddress: BOARD,
        profileId: 'zephyr-mcumgr-settings',
        psdiHeld: true,
        adapter: peer.adapter,
      });

      // Read back on its own: the board advertises the product and serves the PSDI.
      const check = await cli('verify', '--product', product, '--board', BOARD, '--json');
      expect(check.code, told(check)).toBe(0);
      expect(check.stdout).toContain('ZF-0001');
    });

    it('a board that carries its identity is refused before a PSDI is reserved', async () => {
      const before = await records();
      const run = await cli(
        'provision',
        '--product',
        product,
        '--board',
        BOARD,
        '--profile',
        'zephyr-mcumgr-settings',
        '--plan',
        join(dir, 'plan.json'),
      );
      expect(run.code, told(run)).not.toBe(0);
      expect(run.stdout + run.stderr).toMatch(
        /failed at select: .*already advertises the product's service .*already provisioned/,
      );
      expect(await records()).toHaveLength(before.length);
    });
  },
);
