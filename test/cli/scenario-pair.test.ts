// `devicebench scenario run --pair-as-phone` as a child process over the simulated bench, with a
// board built as phones expect (LE Secure Connections only, a passkey on its display, its value
// readable only over an authenticated Secure Connections link): with the board's passkey from
// --passkey-env each connection is paired and encrypted first, said on stdout and in the JSON
// timeline; without it the pairing fails in words before any scenario runs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeJson } from './run-cli';
import { parseBtsnoop } from '../../src/core/ble/hci/btsnoop';

const SERVICE = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const SECRET = 'a3c80009-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const ADDRESS = 'd6:3a:41:00:32:01';

const boards = {
  boards: [
    {
      name: 'CLI Secure',
      address: ADDRESS,
      advertising: { intervalMs: 50 },
      gatt: [
        {
          uuid: SERVICE,
          characteristics: [
            {
              uuid: SECRET,
              properties: ['read'],
              permissions: { read: 'sc' },
              value: { utf8: 'sesame' },
            },
          ],
        },
      ],
      security: { mode: 'sc-only', ioCapability: 'displayOnly', passkey: 135790 },
    },
  ],
};

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

/** The AuthReq octet of each Pairing Request the station sent, from the data folder's traces. */
function pairingRequests(dataDir: string): number[] {
  const dir = join(dataDir, 'traces');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  return files
    .filter((f) => f.endsWith('.btsnoop'))
    .flatMap((f) => parseBtsnoop(readFileSync(join(dir, f))).records)
    .map(({ data, flags }) => ({ p: Buffer.from(data), sent: (flags & 1) === 0 }))
    .filter(
      ({ p, sent }) =>
        sent && p[0] === 0x02 && p.length > 12 && p.readUInt16LE(7) === 0x0006 && p[9] === 0x01,
    )
    .map(({ p }) => p[12]!);
}

describe('devicebench scenario run --pair-as-phone', { timeout: 90_000 }, () => {
  it('pairs and encrypts each connection before its scenarios, with the passkey from the environment', async () => {
    const dir = tempDir('scenario-pair');
    const json = join(dir, 'run.json');
    const common = [
      ...['scenario', 'run', writeJson(dir, 'set.json', readSecret), '--board', ADDRESS],
      ...['--pair-as-phone', '--sim-boards', writeJson(dir, 'boards.json', boards)],
      ...['--data-dir', join(dir, 'data')],
    ];

    // No passkey: the station has no keyboard, so the two IO capabilities leave Just Works. The
    // board is Secure Connections only, as Zephyr's CONFIG_BT_SMP_SC_ONLY (level 4): it refuses
    // a Just Works pairing itself, at the Pairing Request, as smp_svr does (the differential
    // suite), and the words say it was the board, and what to claim.
    // (In a folder of its own, so no bond from it serves the next run.)
    const refused = await runCli([...common.slice(0, -2), '--data-dir', join(dir, 'jw')]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /the board refused pairing: 0x03 authentication requirements — the board needs MITM, and this station claimed NoInputNoOutput/,
    );
    expect(refused.stdout).not.toContain('paired:');

    const run = await runCli([...common, '--passkey-env', 'BOARD_PASSKEY', '--json', json], {
      BOARD_PASSKEY: '135790',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'paired: passkeyEntry, LE Secure Connections, authenticated, 16 octets',
    );
    expect(run.stdout).toContain('encrypted: LE Secure Connections, authenticated');
    expect(run.stdout).toContain('1 scenario run, 0 failed');
    const kinds = (JSON.parse(readFileSync(json, 'utf8')) as { events: { kind: string }[] }).events
      .map((e) => e.kind)
      .filter((k) => ['connected', 'paired', 'encrypted', 'scenario-start'].includes(k));
    expect(kinds).toEqual(['connected', 'paired', 'encrypted', 'scenario-start']);
  });

  it('pairs as the capabilities allow: Just Works with a board whose Pairing Response sets MITM, when its value needs only encryption', async () => {
    const dir = tempDir('scenario-jw');
    // The same board built for phones (a display, so its Pairing Response sets MITM), but
    // taking Secure Connections without demanding level 4 (Zephyr's peripheral sample), whose
    // value needs only an encrypted link.
    const [secure] = boards.boards;
    const board = { ...secure!, security: { ...secure!.security, mode: 'sc' } };
    const characteristic = {
      ...board!.gatt[0]!.characteristics[0]!,
      permissions: { read: 'encrypted' },
    };
    const encryptedOnly = {
      boards: [{ ...board, gatt: [{ uuid: SERVICE, characteristics: [characteristic] }] }],
    };
    const run = await runCli([
      ...['scenario', 'run', writeJson(dir, 'set.json', readSecret), '--board', ADDRESS],
      ...['--pair-as-phone', '--sim-boards', writeJson(dir, 'boards.json', encryptedOnly)],
      ...['--data-dir', join(dir, 'data')],
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('paired: justWorks, LE Secure Connections, unauthenticated');
    expect(run.stdout).toContain('1 scenario run, 0 failed');
    // The station asked for MITM (AuthReq bit 2) and did not stop the pairing for want of it.
    expect(pairingRequests(join(dir, 'data')).map((auth) => auth & 0x04)).toEqual([0x04]);
  });

  it('encrypts the next connection with the bond, and with --no-bond asks for none', async () => {
    const dir = tempDir('scenario-bond');
    const common = [
      ...['scenario', 'run', writeJson(dir, 'set.json', readSecret), '--board', ADDRESS],
      ...['--pair-as-phone', '--sim-boards', writeJson(dir, 'boards.json', boards)],
      ...['--passkey', '135790'],
    ];
    // Two stations of their own (data folders a and b), run at once.
    const [bonded, unbonded] = await Promise.all([
      runCli([...common, '--cycles', '2', '--data-dir', join(dir, 'a')]),
      runCli([...common, '--no-bond', '--data-dir', join(dir, 'b')]),
    ]);
    expect(bonded.code, bonded.stderr).toBe(0);
    expect(bonded.stdout.match(/^ {2}paired: /gm)).toHaveLength(1);
    expect(bonded.stdout).toContain(
      'encrypted with the bond: LE Secure Connections, authenticated, 16 octets, bonded',
    );
    expect(bonded.stdout).toContain('2 scenario runs, 0 failed');
    // One pairing, asking to bond (Bonding_Flags 01).
    expect(pairingRequests(join(dir, 'a')).map((auth) => auth & 0x03)).toEqual([1]);

    expect(unbonded.code, unbonded.stderr).toBe(0);
    expect(unbonded.stdout).toContain(
      'paired: passkeyEntry, LE Secure Connections, authenticated, 16 octets, not bonded',
    );
    expect(pairingRequests(join(dir, 'b')).map((auth) => auth & 0x03)).toEqual([0]);
  });
});
