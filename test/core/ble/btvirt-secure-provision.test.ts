// `devicebench provision`, as a child process over a `unix:` btvirt adapter, of a board whose
// PSDI needs an authenticated LE Secure Connections link: the `ble-host` package's peripheral,
// a keyboard board whose person types the passkey CI gives the station (`--passkey-env`). The
// profile asks for level 4, so the station pairs before a PSDI is reserved; verify after the
// board's reboot encrypts with the bond and reads the PSDI back. The data folder's btsnoop trace
// shows one pairing and two encryption changes (docs/decisions.md, "Proof against BlueZ's
// btvirt").
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import { parseBtsnoop } from '../../../src/core/ble/hci/btsnoop';
import { btvirtMissing, startBtvirt, titled, type Btvirt } from '../../helpers/btvirt/btvirt';
import {
  startProvisioningBoard,
  type ProvisioningBoard,
} from '../../helpers/btvirt/provisioning-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';
import { runCli, seedProduct, tempDir, writeJson } from '../../cli/run-cli';

const removeBoardBonds = bleHostBondsCleanup();
const missing = btvirtMissing();
const BOARD_NAME = 'BZ Secure';
const PASSKEY = '314159';

/** The devicebench-v1 profile, with the PSDI behind level 4 and the product needing it. */
function secureProfile(): object {
  const builtIn = JSON.parse(
    readFileSync(
      new URL('../../../resources/profiles/devicebench-v1.json', import.meta.url),
      'utf8',
    ),
  ) as { psdi: object };
  return {
    ...builtIn,
    id: 'devicebench-v1-sc',
    name: 'DeviceBench v1, PSDI over authenticated LE Secure Connections',
    psdi: { ...builtIn.psdi, readPermission: 'sc' },
    security: { level: 4 },
  };
}

/** What the station's traces in the data folder show: SMP PDUs sent, Encryption Changes. */
function traced(dataDir: string): { pairingRequests: number; encryptionChanges: number[] } {
  const dir = join(dataDir, 'traces');
  const seen = { pairingRequests: 0, encryptionChanges: [] as number[] };
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.btsnoop')))
    for (const { data, flags } of parseBtsnoop(readFileSync(join(dir, file))).records) {
      const p = Buffer.from(data);
      const sent = (flags & 1) === 0;
      // ACL on L2CAP channel 6 (SMP), code 0x01: a Pairing Request.
      if (sent && p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006 && p[9] === 0x01)
        seen.pairingRequests++;
      // HCI Encryption Change: its status.
      if (p[0] === 0x04 && p[1] === 0x08) seen.encryptionChanges.push(p[3]!);
    }
  return seen;
}

describe.skipIf(missing !== undefined)(
  titled('devicebench provision over btvirt: a board whose PSDI needs level 4', missing),
  { timeout: 60_000 },
  () => {
    let btvirt: Btvirt;
    let boardSocket: H4Socket;
    let board: ProvisioningBoard;

    beforeAll(async () => {
      btvirt = await startBtvirt();
      boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
      boardSocket.start();
      board = await startProvisioningBoard(boardSocket, BOARD_NAME, { passkey: Number(PASSKEY) });
    }, 30_000);

    afterAll(async () => {
      boardSocket?.stop();
      await btvirt?.stop();
      removeBoardBonds();
    });

    it('pairs with the passkey CI gives, provisions, and verifies over the bond after the reboot', async () => {
      const dir = tempDir('btvirt-sc');
      const data = join(dir, 'data');
      const product = await seedProduct(data);
      const profile = writeJson(dir, 'profile.json', secureProfile());
      const plan = writeJson(dir, 'plan.json', {
        profileId: 'devicebench-v1-sc',
        psdi: { kind: 'sequence', prefix: 'SC-', width: 4 },
      });
      const run = await runCli(
        [
          'provision',
          '--adapter',
          `unix:${btvirt.leSocket}`,
          '--product',
          product,
          '--count',
          '1',
          '--concurrency',
          '1',
          '--profile',
          profile,
          '--plan',
          plan,
          '--io-capability',
          'keyboardOnly',
          '--passkey-env',
          'BOARD_PASSKEY',
          '--data-dir',
          data,
          '--json',
        ],
        { BOARD_PASSKEY: PASSKEY },
      );
      expect(run.code, `${run.stdout}\n${run.stderr}\n${btvirt.log()}`).toBe(0);
      const summary = JSON.parse(run.stdout);
      expect(summary).toMatchObject({ wanted: 1, verified: 1 });
      expect(summary.boards[0]).toMatchObject({ state: 'verified', psdi: 'SC-0001' });
      expect(board.stored()).toMatchObject({ psdi: 'SC-0001' });
      // One pairing (before the PSDI was reserved); verify's link after the reboot was
      // encrypted with the bond's key: two encryption changes, both successful.
      expect(traced(data)).toEqual({ pairingRequests: 1, encryptionChanges: [0, 0] });
    });
  },
);
