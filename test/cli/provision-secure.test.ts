// `devicebench provision` of the Zephyr Secure board (resources/sim/zephyr-secure.json: SC only,
// a fixed passkey on its display, its provisioning service and PSDI readable only over an
// authenticated LE Secure Connections link) as a child process: with a profile that says the
// product needs level 4 and the board's passkey from --passkey-env it is paired, provisioned and
// verified after its reboot; without the passkey it fails before a PSDI is reserved, saying why.
// The board has privacy: the record keeps its identity address, which `devicebench verify`
// follows to the private address the board shows in the next run where the bond outlives
// the run (a keychain); where it cannot, verify says why it does not find the board.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { openKeychain } from '../../src/core/secrets/keychain';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

const BOARD = 'resources/sim/zephyr-secure.json';
const IDENTITY = 'e8:2b:7c:00:20:01';
/** A session bus with an unlocked keychain, where the machine has one (docs: TESTING). */
const keychain = await openKeychain({ probeTimeoutMs: 3_000 });
const plan = { psdi: { kind: 'sequence', prefix: 'SC-', width: 4 } };

/** devicebench-v1's layout, for a product that needs level 4 and reads its PSDI there. */
function secureProfile(dir: string): string {
  const v1 = JSON.parse(readFileSync('resources/profiles/devicebench-v1.json', 'utf8'));
  return writeJson(dir, 'secure-profile.json', {
    ...v1,
    id: 'devicebench-v1-sc',
    name: 'DeviceBench v1 over authenticated LE Secure Connections',
    psdi: { ...v1.psdi, readPermission: 'sc' },
    security: { level: 4 },
  });
}

describe('devicebench provision of a board that needs its passkey', { timeout: 120_000 }, () => {
  it('pairs with the passkey from the environment before reserving, and verifies after the reboot', async () => {
    const dir = tempDir('secure');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const common = [
      ...['provision', '--product', product, '--count', '1'],
      ...['--profile', secureProfile(dir), '--plan', writeJson(dir, 'plan.json', plan)],
      ...['--sim-boards', BOARD, '--data-dir', data, '--json'],
    ];

    // No passkey: the board refuses Just Works as Zephyr's SC-only board does (Authentication
    // Requirements, docs/decisions/simulated-bench.md) before anything is reserved, and the
    // words say what to give.
    const refused = await runCli(common);
    expect(refused.code).toBe(1);
    const failed = JSON.parse(refused.stdout).boards[0];
    expect(failed).toMatchObject({ name: 'DB Zephyr Secure', state: 'failed', psdi: null });
    expect(failed.error).toContain('the board refused pairing: 0x03 authentication requirements');
    expect(failed.error).toContain('this station claimed NoInputNoOutput');
    expect(failed.error).toContain('--passkey');
    expect(failed.error).toContain('no PSDI was reserved');
    expect(failed.error).not.toContain('pairing: pairing');

    const run = await runCli([...common, '--passkey-env', 'LINE_PASSKEY'], {
      LINE_PASSKEY: '246801',
    });
    expect(run.code, run.stderr).toBe(0);
    const provisioned = JSON.parse(run.stdout).boards[0];
    expect(provisioned).toMatchObject({
      name: 'DB Zephyr Secure',
      state: 'verified',
      psdi: 'SC-0001',
    });
    // Seen under a private address, recorded under the identity its bond resolves that to.
    expect(provisioned.address).not.toBe(IDENTITY);
    // One PSDI spent, on the verified board.
    const log = await openAuditStore({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
    });
    try {
      expect((await log.search({})).items.map((r) => [r.psdi, r.state, r.boardAddress])).toEqual([
        ['SC-0001', 'verified', IDENTITY],
      ]);
    } finally {
      await log.close();
    }

    // A new run: the board shows a private address again, never its identity; a kept bond
    // resolves it.
    const verify = await runCli([
      ...['verify', '--product', product, '--board', IDENTITY],
      ...['--sim-boards', BOARD, '--data-dir', data, '--json'],
    ]);
    const answer = JSON.parse(verify.stdout);
    if (keychain.status.kind === 'keychain') {
      expect(verify.code, verify.stderr).toBe(0);
      expect(answer).toMatchObject({ address: IDENTITY, psdi: 'SC-0001', verified: true });
    } else {
      expect(verify.code).toBe(1);
      expect(answer).toMatchObject({ address: IDENTITY, psdi: null, verified: false });
      expect(answer.problem).toContain(
        'a board advertised it under a private address no bond on this station resolves',
      );
    }
  });
});
