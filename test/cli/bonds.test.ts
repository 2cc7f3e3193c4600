// `devicebench bonds` as a child process: the bonds in the data folder, listed and forgotten;
// with no keychain it says that bonds last only for the run; a forget without a target is
// refused. A damaged bonds.bin (cut short, emptied, one byte flipped) is named in words, never a
// stack trace; a run that pairs says bonds are not being kept; `bonds reset` sets it aside.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBonds } from '../helpers/open-bonds';

import { openKeychain } from '../../src/core/secrets/keychain';
import { BondStore } from '../../src/core/ble/security-manager/bond-store';
import { bondKeySource } from '../../src/core/ble/security-manager/bond-key';
import { MemoryCredentialStore } from '../../src/core/secrets/credential-store';
import { runCli, tempDir } from './run-cli';

const SECURITY = {
  encrypted: true,
  key: 'sc' as const,
  authenticated: true,
  keySize: 16,
  method: 'passkeyEntry' as const,
  bonded: true,
};
const keys = { ltk: new Uint8Array(16), ediv: 0, rand: new Uint8Array(8) };
/** The key file names the key: the keychain is never asked. */
const noKeychain = async () => ({
  store: new MemoryCredentialStore(),
  status: { kind: 'memory' as const, reason: 'not asked' },
});
/** A session bus with an unlocked keychain, where the machine has one (docs: TESTING). */
const keychain = await openKeychain({ probeTimeoutMs: 3_000 });

describe('devicebench bonds', { timeout: 60_000 }, () => {
  it('refuses a forget that names no board and no --all', async () => {
    const data = join(tempDir('bonds'), 'data');
    const run = await runCli(['bonds', 'forget', '--data-dir', data]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--board: name one board (bonds forget ADDRESS), or give --all to forget every bond',
    );
  });

  it.skipIf(keychain.status.kind === 'memory')(
    'lists the bonds per adapter identity and forgets one, then all',
    async () => {
      const data = join(tempDir('bonds'), 'data');
      const store = await openBonds(data, keychain.store, keychain.status);
      const now = new Date('2026-11-26T12:00:00Z');
      store.keep('c4:7f:51:00:00:01', 'd1:00:00:00:00:01', keys, SECURITY, now);
      store.keep('c4:7f:51:00:00:01', 'd1:00:00:00:00:02', keys, SECURITY, now);
      store.keep('c4:7f:51:00:00:02', 'd1:00:00:00:00:01', keys, SECURITY, now);
      const list = await runCli([
        'bonds',
        'list',
        '--identity',
        'C4:7F:51:00:00:01',
        '--data-dir',
        data,
      ]);
      expect(list.code, list.stderr).toBe(0);
      // The keys stay in the encrypted store: the JSON lists what a bond is, not its keys.
      const listed = await runCli(['bonds', 'list', '--json', '--data-dir', data]);
      expect(JSON.parse(listed.stdout).bonds).toHaveLength(3);
      expect(listed.stdout).not.toMatch(/ltk|irk|csrk|rand/i);
      expect(list.stdout.trim().split('\n')).toEqual([
        `bonds are kept in ${join(data, 'bonds.bin')}, encrypted with the key from the OS keychain`,
        'c4:7f:51:00:00:01  d1:00:00:00:00:01  LE Secure Connections, authenticated, 16-octet key, passkeyEntry  bonded 2026-11-26T12:00:00.000Z',
        'c4:7f:51:00:00:01  d1:00:00:00:00:02  LE Secure Connections, authenticated, 16-octet key, passkeyEntry  bonded 2026-11-26T12:00:00.000Z',
      ]);
      const one = await runCli([
        'bonds',
        'forget',
        '--board',
        'd1:00:00:00:00:01',
        '--data-dir',
        data,
      ]);
      expect(one.stdout).toContain('forgot 2 bonds');
      const all = await runCli(['bonds', 'forget', '--all', '--json', '--data-dir', data]);
      expect(JSON.parse(all.stdout)).toEqual({ forgotten: 1 });
      const after = await runCli(['bonds', 'list', '--json', '--data-dir', data]);
      expect(JSON.parse(after.stdout)).toMatchObject({ bonds: [] });
    },
  );

  it.skipIf(keychain.status.kind === 'keychain')(
    'says plainly that bonds are kept in memory where there is no keychain',
    async () => {
      const data = join(tempDir('bonds'), 'data');
      const list = await runCli(['bonds', 'list', '--data-dir', data]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain('bonds last only for this run (No OS keychain is available');
      expect(list.stdout).toContain('set DEVICEBENCH_BOND_KEY_FILE to a file of 32 random bytes');
      expect(list.stdout).toContain('no bonds');
    },
  );

  describe('a damaged bonds.bin', () => {
    const damages = {
      'cut short': (bytes: Buffer) => bytes.subarray(0, 20),
      emptied: () => Buffer.alloc(0),
      'one byte flipped': (bytes: Buffer) => {
        const flipped = Buffer.from(bytes);
        flipped[40] = flipped[40]! ^ 0x01;
        return flipped;
      },
    };
    const reasons = {
      'cut short': 'the file is cut short (20 bytes)',
      emptied: 'the file is empty',
      'one byte flipped': `it does not open with the key from key file`,
    };

    it.each(Object.keys(damages) as (keyof typeof damages)[])(
      '%s: named in words by list, said by a pairing run, set aside by reset',
      async (damage) => {
        const dir = tempDir('damaged');
        const data = join(dir, 'data');
        const key = join(dir, 'bond.key');
        writeFileSync(key, randomBytes(32), { mode: 0o600 });
        const env = { DEVICEBENCH_BOND_KEY_FILE: key };
        const file = join(data, 'bonds.bin');
        const store = await BondStore.open(data, await bondKeySource(noKeychain, env));
        store.keep('c4:7f:51:00:00:01', 'd1:00:00:00:00:01', keys, SECURITY, new Date());
        writeFileSync(file, damages[damage](readFileSync(file)));
        const damagedBytes = readFileSync(file);

        const list = await runCli(['bonds', 'list', '--data-dir', data], env);
        expect(list.code).toBe(3);
        expect(list.stdout).toContain(
          `bonds are not being kept: ${file} is damaged (${reasons[damage]}`,
        );
        expect(list.stdout).toContain('`devicebench bonds reset`');
        expect(list.stdout + list.stderr).not.toMatch(/\n\s+at |Error:/);

        // A run that pairs says bonds are not being kept, and why; the file stays as it was.
        const scan = await runCli(
          [
            'scan',
            '--for',
            '0.5',
            '--data-dir',
            data,
            '--sim-boards',
            'resources/sim/nrf52-devkit.json',
          ],
          env,
        );
        expect(scan.stderr).toContain(`bonds are not being kept in this run: ${file} is damaged`);
        expect(readFileSync(file)).toEqual(damagedBytes);

        // A script must say --yes; then the file is set aside and a new store starts.
        const asked = await runCli(['bonds', 'reset', '--data-dir', data], env);
        expect(asked.code).toBe(2);
        expect(asked.stderr).toContain(`--yes: give --yes to set ${file} aside without asking`);
        const reset = await runCli(['bonds', 'reset', '--yes', '--json', '--data-dir', data], env);
        expect(reset.code, reset.stderr).toBe(0);
        const { setAsideAs, storage } = JSON.parse(reset.stdout);
        expect(setAsideAs).toMatch(new RegExp(`^${file}\\.damaged-\\d{4}-`));
        expect(readFileSync(setAsideAs)).toEqual(damagedBytes);
        expect(storage).toMatchObject({ kind: 'encrypted', file });
        const after = await runCli(['bonds', 'list', '--data-dir', data], env);
        expect(after.code, after.stderr).toBe(0);
        expect(after.stdout).toContain('no bonds');
        expect(readdirSync(data).filter((f) => f.startsWith('bonds.bin'))).toHaveLength(2);
      },
    );

    it('reset leaves a store that is not damaged as it is', async () => {
      const data = join(tempDir('bonds'), 'data');
      const run = await runCli(['bonds', 'reset', '--yes', '--data-dir', data]);
      expect(run.code, run.stderr).toBe(0);
      // Under npm test's keychain the store is an encrypted file, elsewhere memory: either way
      // not damaged, so nothing is set aside.
      expect(run.stdout).toMatch(/^nothing to reset: bonds (last only for this run|are kept in )/);
      expect(
        existsSync(data) ? readdirSync(data).filter((f) => f.includes('.damaged-')) : [],
      ).toEqual([]);
    });
  });
});
