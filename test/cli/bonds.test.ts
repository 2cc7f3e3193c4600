// `devicebench bonds` as a child process: the bonds in the data folder, listed and forgotten;
// with no keychain it says that bonds are kept in memory only; a forget without a target is refused.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BondStore } from '../../src/core/ble/security-manager/bond-store';
import { openKeychain } from '../../src/core/secrets/keychain';
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
      const store = await BondStore.open(data, keychain.store, keychain.status);
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
      expect(list.stdout).toContain(
        'bonds are kept in memory until DeviceBench closes: No OS keychain is available',
      );
      expect(list.stdout).toContain('no bonds');
    },
  );
});
