// Pairing as the capabilities allow, against Zephyr's samples/bluetooth/peripheral: the board
// displays a passkey and its Pairing Response sets MITM. A dry run as a phone with no passkey
// (the station claims NoInputNoOutput) reading the vendor characteristic that needs only an
// encrypted link pairs by Just Works — the IO capabilities leave nothing else (Vol 3, Part H,
// 2.3.5.1) — and the read answers; it used to stop the pairing itself with 0x03 on the board's
// behalf. The characteristic that needs an authenticated link is refused by the board, and the
// station says what to claim (docs/decisions/ble-and-hci.md, "Pairing as the capabilities allow").
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAdvertisement, openZephyrCentral } from '../../../helpers/zephyr/central';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../../../helpers/zephyr/zephyr-peer';
import { runCli, tempDir, writeJson } from '../../../cli/run-cli';

const missing = zephyrPeerMissing('peripheral');
/** The sample's vendor service and its characteristics (samples/bluetooth/peripheral/src/main.c). */
const VENDOR = '12345678-1234-5678-1234-56789abcdef0';
const ENCRYPTED_ONLY = '12345678-1234-5678-1234-56789abcdef1';
const AUTHENTICATED = '12345678-1234-5678-1234-56789abcdef2';

function readOnce(characteristicUuid: string): object {
  return {
    autoClose: true,
    suppressionInterval: 0,
    scenarios: [
      {
        trigger: { type: 'IMMEDIATE' },
        actions: [{ type: 'GATT_READ', serviceUuid: VENDOR, characteristicUuid }],
      },
    ],
  };
}

describe.skipIf(missing !== undefined)(
  zephyrTitled('pairing as the capabilities allow, against Zephyr’s peripheral sample', missing),
  { timeout: 90_000 },
  () => {
    let peer: ZephyrPeer;
    let address: string;

    beforeAll(async () => {
      peer = await startZephyrPeer('peripheral');
      const central = await openZephyrCentral(peer);
      try {
        address = (await findAdvertisement(central, { serviceUuids: [VENDOR] })).address;
      } finally {
        await central.close();
      }
    }, 30_000);

    afterAll(async () => {
      await peer?.stop();
    });

    async function dryRun(characteristic: string, name: string) {
      const dir = tempDir(name);
      return runCli([
        ...['scenario', 'run', writeJson(dir, 'set.json', readOnce(characteristic))],
        ...['--board', address, '--adapter', peer.adapter, '--pair-as-phone'],
        ...['--data-dir', join(dir, 'data')],
      ]);
    }

    it('pairs by Just Works and reads a characteristic that needs only encryption', async () => {
      const run = await dryRun(ENCRYPTED_ONLY, 'zephyr-jw');
      expect(run.code, `${run.stdout}\n${run.stderr}\n${peer.log()}`).toBe(0);
      expect(run.stdout).toContain('paired: justWorks, LE Secure Connections, unauthenticated');
      expect(run.stdout).toContain('1 scenario run, 0 failed');
    });

    it('a characteristic that needs an authenticated link: the board refuses, the station says what to claim', async () => {
      const run = await dryRun(AUTHENTICATED, 'zephyr-auth');
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
      expect(run.stdout).toMatch(
        /0x03 authentication requirements — the board needs MITM, and this station claimed NoInputNoOutput/,
      );
    });
  },
);
