// Bonds kept per station and board, encrypted at rest under a key in the credential store
// (the OS keychain in the app); in memory, said plainly, where there is no keychain.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BondStore } from '../../../../src/core/ble/security-manager/bond-store';
import { openBonds } from '../../../helpers/open-bonds';
import { MemoryCredentialStore } from '../../../../src/core/secrets/credential-store';

const KEYCHAIN = { kind: 'keychain' } as const;
const KEY = { kind: 'keychain' } as const;
const STATION = 'c4:7f:51:00:00:01';
const LTK = Uint8Array.from(Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
const SECURITY = {
  encrypted: true,
  key: 'sc' as const,
  authenticated: true,
  keySize: 16,
  method: 'passkeyEntry' as const,
  bonded: true,
};
const keys = (ltk = LTK) => ({ ltk, ediv: 0x1234, rand: new Uint8Array(8).fill(7) });
const now = new Date('2026-11-26T12:00:00Z');

describe('bond store', () => {
  it('keeps, finds and forgets bonds per station and board, encrypted at rest, across opens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const credentials = new MemoryCredentialStore();
    const store = await openBonds(dir, credentials, KEYCHAIN);
    store.keep(STATION, 'd1:00:00:00:00:01', keys(), SECURITY, now);
    store.keep(STATION, 'd1:00:00:00:00:02', keys(), SECURITY, now);
    store.keep('c4:7f:51:00:00:02', 'd1:00:00:00:00:01', keys(), SECURITY, now);
    expect(store.storage).toEqual({ kind: 'encrypted', file: join(dir, 'bonds.bin'), key: KEY });
    const onDisk = readFileSync(join(dir, 'bonds.bin'));
    expect(onDisk.toString('hex')).not.toContain(Buffer.from(LTK).toString('hex'));
    expect(onDisk.toString('latin1')).not.toContain('d1:00:00:00:00:01');

    const again = await openBonds(dir, credentials, KEYCHAIN);
    expect(again.list(STATION).map((b) => b.board)).toEqual([
      'd1:00:00:00:00:01',
      'd1:00:00:00:00:02',
    ]);
    const found = again.find(STATION, 'd1:00:00:00:00:01')!;
    expect(BondStore.keysOf(found)).toMatchObject({ ediv: 0x1234, ltk: LTK });
    expect(found.security).toEqual(SECURITY);
    expect(again.forget(STATION, 'd1:00:00:00:00:01')).toBe(1);
    expect(again.forget(STATION)).toBe(1);
    expect((await openBonds(dir, credentials, KEYCHAIN)).list().map((b) => b.station)).toEqual([
      'c4:7f:51:00:00:02',
    ]);
  });

  it('follows the file another process changed: a bond forgotten by the CLI stays forgotten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const credentials = new MemoryCredentialStore();
    // The app's BLE process holds its store open; `devicebench bonds forget` opens another.
    const app = await openBonds(dir, credentials, KEYCHAIN);
    app.keep(STATION, 'd1:00:00:00:00:01', keys(), SECURITY, now);
    let told = 0;
    app.onChange(() => told++);
    const cli = await openBonds(dir, credentials, KEYCHAIN);
    expect(cli.forget(STATION, 'd1:00:00:00:00:01')).toBe(1);

    expect(app.find(STATION, 'd1:00:00:00:00:01')).toBeUndefined();
    expect(told).toBe(1);
    // The app's next bond is written beside what the file holds, not over it.
    app.keep(STATION, 'd1:00:00:00:00:02', keys(), SECURITY, now);
    const reopened = await openBonds(dir, credentials, KEYCHAIN);
    expect(reopened.list().map((b) => b.board)).toEqual(['d1:00:00:00:00:02']);
  });

  it('summarises bonds without their keys and tells its listeners what changed', () => {
    const store = BondStore.inMemory('no keychain');
    let changes = 0;
    store.onChange(() => (changes += 1));
    store.keep(STATION, 'd1:00:00:00:00:01', { ...keys(), irk: LTK, csrk: LTK }, SECURITY, now);
    expect(changes).toBe(1);
    expect(store.summaries(STATION)).toEqual([
      {
        station: STATION,
        stationType: 'public',
        board: 'd1:00:00:00:00:01',
        security: SECURITY,
        bondedAt: now.toISOString(),
      },
    ]);
    expect(store.summaries('c4:7f:51:00:00:02')).toEqual([]);
    // Nothing forgotten, nothing to tell.
    expect(store.forget(STATION, 'd1:00:00:00:00:09')).toBe(0);
    expect(changes).toBe(1);
    expect(store.forget(STATION)).toBe(1);
    expect(changes).toBe(2);
  });

  it('files a bond under the identity address the board gave, replacing the older one', async () => {
    const store = await openBonds(
      mkdtempSync(join(tmpdir(), 'bonds-')),
      new MemoryCredentialStore(),
      KEYCHAIN,
    );
    const identityAddress = { address: 'f0:00:00:00:00:01', type: 'random' as const };
    store.keep(STATION, '4a:11:22:33:44:55', { ...keys(), identityAddress }, SECURITY, now);
    store.keep(
      STATION,
      '5b:66:77:88:99:aa',
      { ...keys(new Uint8Array(16)), identityAddress },
      SECURITY,
      now,
    );
    expect(store.list().map((b) => [b.board, b.ltk])).toEqual([
      ['f0:00:00:00:00:01', '00'.repeat(16)],
    ]);
  });

  it('names a file its keychain key cannot open as damaged, keeps nothing beside it, and leaves it as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const file = join(dir, 'bonds.bin');
    const store = await openBonds(dir, new MemoryCredentialStore(), KEYCHAIN);
    store.keep(STATION, 'd1:00:00:00:00:01', keys(), SECURITY, now);
    const before = readFileSync(file);
    const other = new MemoryCredentialStore();
    expect((await openBonds(dir, other, KEYCHAIN)).storage).toEqual({
      kind: 'damaged',
      file,
      reason: 'the key to these bonds is not in the OS keychain (was the keychain reset?)',
    });
    await other.set('ble-bond-key', Buffer.alloc(32, 1).toString('base64'));
    const damaged = await openBonds(dir, other, KEYCHAIN);
    expect(damaged.storage).toEqual({
      kind: 'damaged',
      file,
      reason:
        'it does not open with the key from the OS keychain: damaged, cut short, or sealed with another key',
    });
    // Nothing kept silently in memory beside the file, and the file untouched.
    damaged.keep(STATION, 'd1:00:00:00:00:02', keys(), SECURITY, now);
    expect(damaged.list()).toEqual([]);
    expect(readFileSync(file)).toEqual(before);
  });

  it('without a keychain keeps bonds in memory only, writes nothing and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const credentials = new MemoryCredentialStore();
    const store = await openBonds(dir, credentials, {
      kind: 'memory',
      reason: 'No OS keychain is available: no Secret Service is running.',
    });
    store.keep(STATION, 'd1:00:00:00:00:01', keys(), SECURITY, now);
    expect(store.find(STATION, 'd1:00:00:00:00:01')).toBeDefined();
    expect(store.storage).toEqual({
      kind: 'memory',
      reason:
        'bonds last only for this run (No OS keychain is available: no Secret Service is running.); to keep them, unlock an OS keychain or set DEVICEBENCH_BOND_KEY_FILE to a file of 32 random bytes or more, mode 600',
    });
    expect(readdirSync(dir)).toEqual([]);
    expect(await credentials.get('ble-bond-key')).toBeUndefined();
    expect(existsSync(join(dir, 'bonds.bin'))).toBe(false);
  });
});

describe('bond lookup for the Security Manager', () => {
  it('finds a bonded board under a private address its IRK resolves, by noble peripheral id', async () => {
    const store = await openBonds(
      mkdtempSync(join(tmpdir(), 'bonds-')),
      new MemoryCredentialStore(),
      KEYCHAIN,
    );
    const irk = Uint8Array.from(Buffer.from('ec0234a357c8ad05341010a60a397d9b', 'hex')).reverse();
    const identityAddress = { address: 'f0:00:00:00:00:01', type: 'random' as const };
    let station: { address: string; type: 'public' | 'random' } | undefined = {
      address: STATION,
      type: 'public',
    };
    const lookup = store.lookup(
      () => station,
      () => now,
    );
    lookup.keep('f00000000001', { ...keys(), irk, identityAddress, security: SECURITY });
    expect(lookup.find('7081940dfbaa')).toMatchObject({ ediv: 0x1234, irk });
    expect(lookup.find('f00000000001')?.security).toEqual(SECURITY);
    expect(lookup.find('7081940dfbab')).toBeUndefined();
    station = { address: 'c4:7f:51:00:00:09', type: 'public' };
    expect(lookup.find('f00000000001')).toBeUndefined();
    // The same address as a random identity is another station.
    station = { address: STATION, type: 'random' };
    expect(lookup.find('f00000000001')).toBeUndefined();
  });

  it('keeps no bond and finds none for a station without an identity, or with the all-zero one', async () => {
    const store = await openBonds(
      mkdtempSync(join(tmpdir(), 'bonds-')),
      new MemoryCredentialStore(),
      KEYCHAIN,
    );
    let station: { address: string; type: 'public' | 'random' } | undefined;
    const lookup = store.lookup(
      () => station,
      () => now,
    );
    lookup.keep('d10000000001', { ...keys(), security: SECURITY });
    station = { address: '00:00:00:00:00:00', type: 'public' };
    lookup.keep('d10000000001', { ...keys(), security: SECURITY });
    expect(store.list()).toEqual([]);
    station = { address: 'c4:7f:51:00:00:07', type: 'random' };
    lookup.keep('d10000000001', { ...keys(), security: SECURITY });
    expect(store.list()).toMatchObject([
      { station: 'c4:7f:51:00:00:07', stationType: 'random', board: 'd1:00:00:00:00:01' },
    ]);
  });

  it('hands out one IRK per station identity, made once, kept encrypted with the bonds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const credentials = new MemoryCredentialStore();
    const store = await openBonds(dir, credentials, KEYCHAIN);
    let station: { address: string; type: 'public' | 'random' } | undefined;
    const lookup = store.lookup(() => station);
    // No identity yet, or the all-zero one: nothing to hand out, nothing made.
    expect(lookup.identity!()).toBeUndefined();
    station = { address: '00:00:00:00:00:00', type: 'public' };
    expect(lookup.identity!()).toBeUndefined();
    expect(existsSync(join(dir, 'bonds.bin'))).toBe(false);

    station = { address: 'c4:7f:51:00:00:07', type: 'random' };
    const own = lookup.identity!()!;
    expect(own.identityAddress).toEqual(station);
    expect(own.irk).toHaveLength(16);
    const irk = Buffer.from(own.irk).toString('hex');
    expect(Buffer.from(lookup.identity!()!.irk).toString('hex')).toBe(irk);
    expect(readFileSync(join(dir, 'bonds.bin')).toString('hex')).not.toContain(irk);

    // Another identity (another dongle, or the public one) has an IRK of its own.
    station = { address: 'c4:7f:51:00:00:07', type: 'public' };
    expect(Buffer.from(lookup.identity!()!.irk).toString('hex')).not.toBe(irk);

    const reopened = await openBonds(dir, credentials, KEYCHAIN);
    const again = reopened.lookup(() => ({ address: 'c4:7f:51:00:00:07', type: 'random' }));
    expect(Buffer.from(again.identity!()!.irk).toString('hex')).toBe(irk);
  });
});
