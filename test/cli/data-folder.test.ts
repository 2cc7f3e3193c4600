// One data folder, several `devicebench` processes at once, as a CI job or a terminal beside the
// app runs them: two batches that pair and bond on one folder, each board keeping the PSDI and
// the bond its record says (`verify` passes after, over the bond), nothing in clear, no
// temporary file left behind; and the bond store's key file (DEVICEBENCH_BOND_KEY_FILE),
// refused in words when it is unsafe (docs/decisions/security-and-hardening.md, "One data
// folder, several processes", "Bonds kept without a keychain").
import { randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

/** devicebench-v1 with its PSDI readable only over an encrypted link: every run pairs or bonds. */
function encryptedProfile(dir: string): { file: string; profile: Record<string, unknown> } {
  const v1 = JSON.parse(readFileSync('resources/profiles/devicebench-v1.json', 'utf8'));
  const profile = {
    ...v1,
    id: 'devicebench-v1-enc',
    name: 'DeviceBench v1, PSDI over an encrypted link',
    psdi: { ...v1.psdi, readPermission: 'encrypted' },
    security: { level: 2 },
  };
  return { file: writeJson(dir, 'enc-profile.json', profile), profile };
}

/**
 * A tray of `count` blank boards that pair Just Works and keep bonds, refusing an
 * unauthenticated re-pairing of a bonded station as Zephyr does: a run that lost its bond fails.
 */
function bondingTray(dir: string, tray: number, count: number, profile: unknown): string {
  return writeJson(dir, `bonding-tray-${tray}.json`, {
    boards: [
      {
        name: `Bond Tray ${tray}-{n}`,
        address: `c2:8e:2${tray}:00:00:01`,
        count,
        advertising: { intervalMs: 50 },
        provisioning: { profile, rebootMs: 100 },
        security: { mode: 'sc', bonding: { maxBonds: 4, allowUnauthOverwrite: false } },
        latency: { connectMs: 20, perOperationMs: 4 },
      },
    ],
  });
}

/** A key file of 32 random bytes, mode 600 (or `mode`). */
function keyFile(dir: string, mode = 0o600, bytes = 32): string {
  const file = join(dir, 'bond.key');
  writeFileSync(file, randomBytes(bytes), { mode });
  chmodSync(file, mode);
  return file;
}

describe('one data folder, several devicebench processes', { timeout: 240_000 }, () => {
  it('two batches at once: every board keeps the PSDI and the bond its record says, verify passes over the bond', async () => {
    const dir = tempDir('shared');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const { file: profile, profile: embedded } = encryptedProfile(dir);
    // Each run its own tray, as two stations on one line: the boards are not shared, the files are.
    const trays = [1, 2].map((tray) => bondingTray(dir, tray, 3, embedded));
    const plan = writeJson(dir, 'plan.json', {
      psdi: { kind: 'sequence', prefix: 'SH-', width: 4 },
    });
    const env = { DEVICEBENCH_BOND_KEY_FILE: keyFile(dir) };
    const batch = (boards: string) => [
      ...['provision', '--product', product, '--count', '3', '--profile', profile],
      ...['--plan', plan, '--sim-boards', boards, '--data-dir', data, '--json'],
    ];

    const runs = await Promise.all(trays.map((tray) => runCli(batch(tray), env)));
    for (const run of runs) {
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/\n\s+at |ENOENT|Unexpected error/);
      // The key file keeps the bonds: no "for this run only"; and no board lost one (the other
      // process's copy of a board follows the bonds it made).
      expect(run.stderr).not.toContain('bonds last only for this run');
      expect(run.stdout + run.stderr).not.toMatch(/PIN or key missing|lost its bond/);
    }

    const log = await openAuditStore({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
    });
    let verified;
    try {
      verified = (await log.search({ productId: product, limit: 100 })).items.filter(
        (r) => r.state === 'verified',
      );
    } finally {
      await log.close();
    }
    expect(verified).toHaveLength(6);
    expect(new Set(verified.map((r) => r.boardAddress)).size).toBe(verified.length);

    // The flash holds each record's PSDI, and each board a sealed bond; nothing in clear.
    const stateFile = join(data, 'sim-bench-state.json');
    const text = readFileSync(stateFile, 'utf8');
    const state = JSON.parse(text);
    for (const record of verified) {
      const id = record.boardAddress.replace(/:/g, '');
      expect(state.boards[id]?.psdi, record.boardAddress).toBe(record.psdi);
      expect(state.sealedBonds[id], record.boardAddress).toBeDefined();
    }
    expect(text).not.toMatch(/"ltk"|"irk"/);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, 'bonds.bin')).mode & 0o777).toBe(0o600);
    expect(readdirSync(data).filter((f) => /\.tmp$|\.lock$/.test(f))).toEqual([]);

    // The station kept one bond per verified board, under the key file.
    const listed = await runCli(['bonds', 'list', '--json', '--data-dir', data], env);
    expect(listed.code, listed.stderr).toBe(0);
    const { storage, bonds } = JSON.parse(listed.stdout);
    expect(storage).toEqual({
      kind: 'encrypted',
      file: join(data, 'bonds.bin'),
      key: { kind: 'keyFile', file: env.DEVICEBENCH_BOND_KEY_FILE },
    });
    expect(bonds.map((b: { board: string }) => b.board).sort()).toEqual(
      verified.map((r) => r.boardAddress).sort(),
    );

    // A new process reads each PSDI back over the kept bond: no pairing, and it matches.
    const bondsBefore = readFileSync(join(data, 'bonds.bin'));
    for (const record of verified) {
      const verify = await runCli(
        [
          ...['verify', '--product', product, '--board', record.boardAddress],
          ...['--sim-boards', trays[0]!, '--sim-boards', trays[1]!, '--data-dir', data],
        ],
        env,
      );
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
      expect(verify.stdout).toContain(`carries PSDI ${record.psdi}`);
    }
    // No bond was made again: the store is the one the batches left.
    expect(readFileSync(join(data, 'bonds.bin'))).toEqual(bondsBefore);
  });
});

describe('the bond store’s key file', { timeout: 60_000 }, () => {
  it('says which key is in use, and refuses in words a key file others can read, too short or missing', async () => {
    const dir = tempDir('keyfile');
    const data = join(dir, 'data');
    const good = keyFile(dir);
    const list = (key: string) =>
      runCli(['bonds', 'list', '--data-dir', data], { DEVICEBENCH_BOND_KEY_FILE: key });

    const used = await list(good);
    expect(used.code, used.stderr).toBe(0);
    expect(used.stdout).toContain(
      `bonds are kept in ${join(data, 'bonds.bin')}, encrypted with the key from key file ${good}`,
    );

    chmodSync(good, 0o644);
    const open = await list(good);
    expect(open.code).toBe(3);
    expect(open.stderr).toContain(
      `${good} (DEVICEBENCH_BOND_KEY_FILE): readable by others than its owner (mode 0644)`,
    );
    expect(open.stderr).toContain(`chmod 600 ${good}`);

    const short = join(dir, 'short.key');
    writeFileSync(short, randomBytes(16), { mode: 0o600 });
    const shortRun = await list(short);
    expect(shortRun.code).toBe(3);
    expect(shortRun.stderr).toContain(
      `${short} (DEVICEBENCH_BOND_KEY_FILE): 16 bytes, at least 32`,
    );

    const missing = join(dir, 'none.key');
    const missingRun = await list(missing);
    expect(missingRun.code).toBe(3);
    expect(missingRun.stderr).toContain(`${missing} (DEVICEBENCH_BOND_KEY_FILE): no such file`);
    expect(missingRun.stderr).toContain(`head -c 32 /dev/urandom > ${missing}`);
    for (const run of [open, shortRun, missingRun]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
