// A pairing is a bond on both sides, against Zephyr's own SMP (smp_svr, SC only, MITM, bonds in
// its settings): `devicebench scenario run --pair-as-phone --passkey` as a child process pairs,
// reads the board's name and ends at once; the board's console says "Pairing complete … bonded
// 1" for it (before, the read answered as soon as the link was encrypted, the run closed the
// link during key distribution, and the board said "Pairing failed"), and the
// next run (a new process, the same data folder) encrypts with the bond, sends no Pairing
// Request, and the board pairs nothing more (docs/decisions/ble-and-hci.md, "A pairing is a bond
// on both sides"). Bonds outlive the process under the key file DEVICEBENCH_BOND_KEY_FILE
// names, with no session bus (no keychain), as on a CI runner.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../../../helpers/zephyr/zephyr-peer';
import { headless } from '../../../helpers/headless-bonds';
import { runCli, tempDir, writeJson } from '../../../cli/run-cli';
import { keysSentBeforeDisconnect, tracedPairing } from '../../../helpers/station-trace';

const missing = zephyrPeerMissing('smp');
const PASSKEY = 271828;
const ADDRESS = 'c0:de:c0:de:00:01';

/** One read of the Device Name (GAP, open to all): the run ends as soon as it answered. */
const readName = {
  autoClose: true,
  suppressionInterval: 0,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        {
          type: 'GATT_READ',
          serviceUuid: '00001800-0000-1000-8000-00805f9b34fb',
          characteristicUuid: '00002a00-0000-1000-8000-00805f9b34fb',
        },
      ],
    },
  ],
};

describe.skipIf(missing !== undefined)(
  zephyrTitled('a pairing is a bond on both sides, against Zephyr’s smp_svr', missing),
  { timeout: 90_000 },
  () => {
    let peer: ZephyrPeer;

    beforeAll(async () => {
      peer = await startZephyrPeer('smp', { args: [`--passkey=${PASSKEY}`] });
    }, 30_000);

    afterAll(async () => {
      await peer?.stop();
    });

    it('a dry run pairs, reads and ends at once, the board bonded; the next run encrypts with the bond', async () => {
      const dir = tempDir('zephyr-bond');
      const env = headless(dir);
      const data = join(dir, 'data');
      const args = [
        ...['scenario', 'run', writeJson(dir, 'set.json', readName), '--board', ADDRESS],
        ...['--adapter', peer.adapter, '--pair-as-phone', '--passkey', String(PASSKEY)],
        ...['--data-dir', data],
      ];
      const before = peer.mark();
      const first = await runCli(args, env);
      expect(first.code, `${first.stdout}\n${first.stderr}\n${peer.log()}`).toBe(0);
      // The board completed the pairing, keys and all, and bonded before the link went.
      await peer.waitFor(/Pairing complete with .*, bonded 1/, { from: before, timeoutMs: 2_000 });
      expect(peer.log().slice(before)).not.toMatch(/Pairing failed/);
      expect(tracedPairing(data)).toEqual({ pairingRequests: 1, encryptionChanges: [0] });
      // The link was kept until the controller said the station's keys went.
      const { throughLastSmp, completed } = keysSentBeforeDisconnect(data);
      expect(throughLastSmp).toBeGreaterThan(0);
      expect(completed).toBeGreaterThanOrEqual(throughLastSmp);

      const again = peer.mark();
      const second = await runCli(args, env);
      expect(second.code, `${second.stdout}\n${second.stderr}\n${peer.log()}`).toBe(0);
      expect(tracedPairing(data)).toEqual({ pairingRequests: 1, encryptionChanges: [0, 0] });
      expect(peer.log().slice(again)).not.toMatch(/Pairing (complete|failed)/);
    });
  },
);
