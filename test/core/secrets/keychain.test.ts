// The keychain store against the real OS keychain (the Secret Service under dbus-run-session on
// Linux), and the in-memory fallback when there is none.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openKeychain, type KeytarLike } from '../../../src/core/secrets/keychain';

const run = promisify(execFile);
const noSessionBus = process.platform === 'linux' && !process.env['DBUS_SESSION_BUS_ADDRESS'];
const RECIPE =
  "dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx vitest run test/core/secrets'";

describe('the OS keychain', () => {
  it('stores, reads and deletes a secret', async (ctx) => {
    if (noSessionBus && process.env['CI'])
      throw new Error(`CI must run the keychain tests on a D-Bus session bus: ${RECIPE}`);
    ctx.skip(noSessionBus, `no D-Bus session bus, so no Secret Service; run under ${RECIPE}`);

    const service = `DeviceBench-test-${process.pid}-${Date.now()}`;
    const { store, status } = await openKeychain({ service });
    expect(status).toEqual({ kind: 'keychain' });
    try {
      expect(await store.get('channel-1')).toBeUndefined();
      await store.set('channel-1', 's3cret token');
      expect(await store.get('channel-1')).toBe('s3cret token');
      await store.set('channel-1', 'rotated');
      expect(await store.get('channel-1')).toBe('rotated');
      await store.delete('channel-1');
      expect(await store.get('channel-1')).toBeUndefined();
      await store.delete('channel-1');
    } finally {
      await store.delete('channel-1');
    }
  });
});

describe('without a keychain', () => {
  it('keeps secrets in memory when keytar cannot be loaded', async () => {
    const { store, status } = await openKeychain({
      load: () => Promise.reject(new Error('Cannot find module keytar.node')),
    });
    expect(status.kind).toBe('memory');
    expect(status.kind === 'memory' && status.reason).toMatch(
      /^No OS keychain is available: .*keytar\.node/,
    );
    await store.set('a', 'b');
    expect(await store.get('a')).toBe('b');
  });

  it('explains a missing D-Bus in plain words', async () => {
    const { status } = await openKeychain({
      load: async () => failing(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
    });
    expect(status).toEqual({
      kind: 'memory',
      reason:
        'No OS keychain is available: there is no desktop session bus (D-Bus) to reach GNOME Keyring or KWallet. Secrets are kept in memory until DeviceBench closes.',
    });
  });

  it('does not wait forever on a keychain that never answers', async () => {
    const { status } = await openKeychain({
      load: async () => ({
        ...failing(new Error('unused')),
        getPassword: () => new Promise(() => {}),
      }),
      probeTimeoutMs: 20,
    });
    expect(status.kind === 'memory' && status.reason).toMatch(/did not answer within 0\.02 s/);
  });

  it('names the account but never the secret when the keychain refuses a write', async () => {
    const keytar: KeytarLike = {
      getPassword: async () => null,
      setPassword: () =>
        Promise.reject(new Error('Object does not exist at path /collection/login')),
      deletePassword: async () => true,
    };
    const { store, status } = await openKeychain({ load: async () => keytar });
    expect(status.kind).toBe('keychain');
    const error = await store.set('channel-9', 'hunter2').catch((err: Error) => err);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('channel-9');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it.skipIf(process.platform !== 'linux')(
    'falls back to memory with the real keytar when there is no session bus',
    async () => {
      // A child process, because libsecret keeps the bus connection this process already opened.
      const runtimeDir = await mkdtemp(join(tmpdir(), 'devicebench-nobus-'));
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir };
        delete env['DBUS_SESSION_BUS_ADDRESS'];
        delete env['DISPLAY'];
        delete env['WAYLAND_DISPLAY'];
        const moduleUrl = pathToFileURL(resolve('src/core/secrets/keychain.ts')).href;
        const script = `import(${JSON.stringify(moduleUrl)}).then((m) => m.openKeychain()).then((r) => process.stdout.write(JSON.stringify(r.status)))`;
        const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], {
          env,
          timeout: 30_000,
        });
        const status = JSON.parse(stdout) as { kind: string; reason?: string };
        expect(status.kind).toBe('memory');
        expect(status.reason).toMatch(/^No OS keychain is available: .*D-Bus/);
      } finally {
        await rm(runtimeDir, { recursive: true, force: true });
      }
    },
    40_000,
  );
});

function failing(error: Error): KeytarLike {
  return {
    getPassword: () => Promise.reject(error),
    setPassword: () => Promise.reject(error),
    deletePassword: () => Promise.reject(error),
  };
}
