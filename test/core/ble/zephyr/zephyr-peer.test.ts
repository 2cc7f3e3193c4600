// The Zephyr peer helper (test/helpers/zephyr/) against Zephyr's own smp_svr: the bench's
// central pairs with its SC-only, MITM security by the passkey the board displays, lists the
// image in slot 0 over MCUmgr, and `devicebench firmware list` as a child process does the same
// with the passkey on its command line.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McumgrClient } from '../../../../src/core/ble/mcumgr/client';
import { listSlots } from '../../../../src/core/ble/mcumgr/image-group';
import type { NobleCentral } from '../../../../src/core/ble/radio/noble-central';
import { findAdvertisement, openZephyrCentral } from '../../../helpers/zephyr/central';
import {
  SLOT0,
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../../../helpers/zephyr/zephyr-peer';
import { runCli, tempDir } from '../../../cli/run-cli';

const missing = zephyrPeerMissing('smp');
const PASSKEY = 314159;
const SMP_PEER = { name: 'zephyr-smp-peer', address: 'c0:de:c0:de:00:01' };

describe.skipIf(missing !== undefined)(
  zephyrTitled("Zephyr's smp_svr as a test's board", missing),
  { timeout: 60_000 },
  () => {
    let peer: ZephyrPeer;
    let central: NobleCentral | undefined;

    beforeAll(async () => {
      peer = await startZephyrPeer('smp', { args: [`--passkey=${PASSKEY}`] });
    }, 30_000);

    afterAll(async () => {
      await peer?.stop();
      await central?.close();
    }, 30_000);

    it('pairs by the passkey the board displays and lists slot 0 over MCUmgr', async () => {
      const mark = peer.mark();
      central = await openZephyrCentral(peer, {
        security: {
          options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
          user: {
            displayPasskey: () => undefined,
            // Read off the board's display, as a person does: Zephyr shows it only once the
            // station's public key is in (Vol 3, Part H, 2.3.5.6.3), so a station that asks
            // before sending its key waits for digits that never come.
            enterPasskey: async () =>
              Number((await peer.waitFor(/^Passkey for .*: (\d{6})$/m, { from: mark }))[1]),
            confirmNumber: async () => false,
          },
        },
      });
      const ad = await findAdvertisement(central, { name: SMP_PEER.name });
      expect(ad.address).toBe(SMP_PEER.address);
      const link = await central.connect(ad.id);
      const client = await McumgrClient.open(link);
      const slots = await listSlots(client);
      expect(slots).toMatchObject([
        {
          slot: 0,
          version: '1.0.0',
          hash: Buffer.from(SLOT0.hash).toString('hex'),
          active: true,
          confirmed: true,
        },
      ]);
      await client.close();
      await link.disconnect();
      await peer.waitFor(/Pairing complete with .*, bonded 1/);
      expect(peer.passkey()).toBe(PASSKEY);
    });

    it('`devicebench firmware list` over unix: pairs with --passkey and lists the same slot', async () => {
      const run = await runCli([
        'firmware',
        'list',
        '--adapter',
        peer.adapter,
        '--board',
        SMP_PEER.address,
        '--passkey',
        String(PASSKEY),
        '--data-dir',
        join(tempDir('zephyr-peer'), 'data'),
        '--json',
      ]);
      expect(run.code, `${run.stdout}\n${run.stderr}\n${peer.log()}`).toBe(0);
      expect(JSON.parse(run.stdout).slots).toMatchObject([
        { slot: 0, version: '1.0.0', hash: Buffer.from(SLOT0.hash).toString('hex') },
      ]);
    });
  },
);
