// A pairing is a bond on both sides before the link does anything else: `devicebench scenario
// run --passkey`, as a child process over a `unix:` btvirt adapter, reads the protected value of
// a `ble-host` board (its characteristic needs an authenticated LE Secure Connections link),
// which makes noble pair, and ends at once. The board must report the pairing complete and
// bonded when the command has exited (it used to see the link close 2–4 ms after the encryption
// change, before the station's keys came, and kept no bond); the next run, a new process with
// the same data folder, encrypts with the bond and sends no pairing PDU
// (docs/decisions/ble-and-hci.md, "A pairing is a bond on both sides").
//
// Bonds outlive the process under the key file DEVICEBENCH_BOND_KEY_FILE names, with no session
// bus (no keychain), as on a CI runner.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import { btvirtMissing, startBtvirt, titled, type Btvirt } from '../../helpers/btvirt/btvirt';
import { board, SECRET, SERVICE, startScBoard } from '../../helpers/btvirt/sc-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';
import { headless } from '../../helpers/headless-bonds';
import { runCli, tempDir, writeJson } from '../../cli/run-cli';
import { keysSentBeforeDisconnect, tracedPairing } from '../../helpers/station-trace';

const removeBoardBonds = bleHostBondsCleanup();
const missing = btvirtMissing();
/** The board's static random address, as the command line names it. */
const ADDRESS = 'c4:5e:11:00:43:02';
const PASSKEY = '271828';

const readSecret = {
  autoClose: true,
  suppressionInterval: 0,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [{ type: 'GATT_READ', serviceUuid: SERVICE, characteristicUuid: SECRET }],
    },
  ],
};

async function waitFor(ready: () => boolean): Promise<void> {
  for (let i = 0; !ready() && i < 50; i++) await new Promise((r) => setTimeout(r, 20));
}

describe.skipIf(missing !== undefined)(
  titled(
    'a pairing is a bond on both sides: scenario run over btvirt with a ble-host board',
    missing,
  ),
  { timeout: 90_000 },
  () => {
    let btvirt: Btvirt;
    let boardSocket: H4Socket;

    beforeAll(async () => {
      btvirt = await startBtvirt();
      boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
      boardSocket.start();
      // A keyboard board: its person types the passkey CI gives the station (both type it).
      board.ioCap = 2;
      board.type = async () => Number(PASSKEY);
      await startScBoard(boardSocket, { address: ADDRESS });
    }, 30_000);

    afterAll(async () => {
      boardSocket?.stop();
      await btvirt?.stop();
      removeBoardBonds();
    });

    it('pairs, reads and ends at once, leaving the board bonded; the next run encrypts with the bond', async () => {
      const dir = tempDir('bond-both-sides');
      const env = headless(dir);
      const data = join(dir, 'data');
      const args = [
        ...['scenario', 'run', writeJson(dir, 'set.json', readSecret), '--board', ADDRESS],
        ...['--adapter', `unix:${btvirt.leSocket}`, '--passkey', PASSKEY, '--data-dir', data],
      ];
      const first = await runCli(args, env);
      expect(first.code, `${first.stdout}\n${first.stderr}\n${btvirt.log()}`).toBe(0);
      expect(first.stdout).toContain('1 scenario run, 0 failed');
      // The command has exited: the board heard every key before the link closed. Its host
      // may take a moment to hand the last PDU up from its socket, never a new link.
      await waitFor(() => board.completed.length > 0);
      expect(board.completed).toEqual([{ bonded: true }]);
      expect(tracedPairing(data)).toEqual({ pairingRequests: 1, encryptionChanges: [0] });
      // The link was kept until the controller said the station's keys went: every ACL packet
      // up to its last SMP PDU (Identity Address Information) was reported sent before the
      // Disconnect. Before, the Disconnect followed that PDU at once (btvirt still delivered
      // it; a controller may drop what it holds for a link it closes).
      const { throughLastSmp, completed } = keysSentBeforeDisconnect(data);
      expect(throughLastSmp).toBeGreaterThan(0);
      expect(completed).toBeGreaterThanOrEqual(throughLastSmp);

      const second = await runCli(args, env);
      expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
      expect(second.stdout).toContain('1 scenario run, 0 failed');
      // No pairing PDU in the second run: the bond's key, which the board accepted.
      expect(tracedPairing(data)).toEqual({ pairingRequests: 1, encryptionChanges: [0, 0] });
      expect(board.completed).toHaveLength(1);
    });
  },
);
