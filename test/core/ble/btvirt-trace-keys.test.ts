// No key of a pairing with a stack this project did not write is on disk in clear: `devicebench
// provision` as a child process over btvirt pairs (LE Secure Connections, passkey, bonding) with
// the `ble-host` package's board, which keeps the LTK and the station's IRK in its own bond
// folder; every file of the data folder and the `devicebench trace` export are scanned for both
// in every form (docs/decisions/ble-and-hci.md, "Keys in traces").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import { btvirtMissing, startBtvirt, titled, type Btvirt } from '../../helpers/btvirt/btvirt';
import { startProvisioningBoard } from '../../helpers/btvirt/provisioning-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';
import { filesUnder, keysFound } from '../../helpers/key-scan';
import { runCli, seedProduct, tempDir, writeJson } from '../../cli/run-cli';

const removeBoardBonds = bleHostBondsCleanup();
const missing = btvirtMissing();
const PASSKEY = '271828';

/** The keys the ble-host board kept for each central it bonded with (its keys.json files). */
function boardBondKeys(): Record<string, Uint8Array> {
  const keys: Record<string, Uint8Array> = {};
  for (const file of filesUnder('NodeBleLib-storage-dir').filter((f) => f.endsWith('keys.json'))) {
    const bond = JSON.parse(readFileSync(file, 'utf8')) as {
      irk: string | null;
      localLtk: { ltk: string } | null;
      peerLtk: { ltk: string } | null;
    };
    if (bond.irk) keys['station IRK'] = Buffer.from(bond.irk, 'hex');
    const ltk = bond.localLtk?.ltk ?? bond.peerLtk?.ltk;
    if (ltk) keys.LTK = Buffer.from(ltk, 'hex');
  }
  return keys;
}

describe.skipIf(missing !== undefined)(
  titled('no key in clear after a pairing with a ble-host board over btvirt', missing),
  { timeout: 60_000 },
  () => {
    let btvirt: Btvirt;
    let boardSocket: H4Socket;

    beforeAll(async () => {
      btvirt = await startBtvirt();
      boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
      boardSocket.start();
      await startProvisioningBoard(boardSocket, 'BZ Keys', { passkey: Number(PASSKEY) });
    }, 30_000);

    afterAll(async () => {
      boardSocket?.stop();
      await btvirt?.stop();
      removeBoardBonds();
    });

    it('pairs, provisions and verifies; the data folder and the trace export hold neither key', async () => {
      const dir = tempDir('btvirt-keys');
      const data = join(dir, 'data');
      const product = await seedProduct(data);
      const profile = JSON.parse(
        readFileSync(
          new URL('../../../resources/profiles/devicebench-v1.json', import.meta.url),
          'utf8',
        ),
      ) as { psdi: object };
      const run = await runCli(
        [
          ...['provision', '--adapter', `unix:${btvirt.leSocket}`, '--product', product],
          ...['--count', '1', '--concurrency', '1', '--data-dir', data, '--json'],
          '--profile',
          writeJson(dir, 'profile.json', {
            ...profile,
            id: 'devicebench-v1-sc',
            psdi: { ...profile.psdi, readPermission: 'sc' },
            security: { level: 4 },
          }),
          '--plan',
          writeJson(dir, 'plan.json', {
            profileId: 'devicebench-v1-sc',
            psdi: { kind: 'sequence', prefix: 'KY-', width: 4 },
          }),
          ...['--io-capability', 'keyboardOnly', '--passkey-env', 'BOARD_PASSKEY'],
        ],
        { BOARD_PASSKEY: PASSKEY },
      );
      expect(run.code, `${run.stdout}\n${run.stderr}\n${btvirt.log()}`).toBe(0);
      const keys = boardBondKeys();
      expect(Object.keys(keys).sort()).toEqual(['LTK', 'station IRK']);

      const out = join(dir, 'export.btsnoop');
      const trace = await runCli([
        'trace',
        '--since',
        '15m',
        '--out',
        out,
        '--json',
        '--data-dir',
        data,
      ]);
      expect(trace.code, trace.stderr).toBe(0);
      // The LTK at both encryptions (pairing, verify after the reboot) and the station's IRK.
      expect(JSON.parse(trace.stdout)).toMatchObject({ keysInClear: 0 });
      expect(JSON.parse(trace.stdout).keysRedacted).toBeGreaterThanOrEqual(3);
      expect(keysFound([...filesUnder(data), out], keys, dir)).toEqual([]);
    });
  },
);
