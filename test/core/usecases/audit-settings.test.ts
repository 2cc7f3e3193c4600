// Where a station's audit log lives: the saved settings, a password moved out of the URL into
// the keychain, and the DEVICEBENCH_AUDIT_URL / DEVICEBENCH_STATION overrides.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditSettings } from '../../../src/core/usecases/audit-settings';
import { SetupError } from '../../../src/core/usecases/errors';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';

const dir = () => mkdtempSync(join(tmpdir(), 'audit-settings-'));

describe('audit settings', () => {
  it('defaults to this machine’s log under the host name', async () => {
    const data = dir();
    const settings = await AuditSettings.open(data, new MemoryCredentialStore(), {});
    expect(await settings.resolve()).toEqual({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
      station: hostname(),
      fromEnvironment: { url: false, station: false },
    });
  });

  it('keeps a URL without its password, the password in the keychain only', async () => {
    const data = dir();
    const credentials = new MemoryCredentialStore();
    const settings = await AuditSettings.open(data, credentials, {});
    const prepared = await settings.prepare({
      mode: 'shared',
      url: 'postgres://line:p%40ss-9@db.example:5432/devicebench',
      station: ' line-3 ',
    });
    expect(prepared.resolved.location).toEqual({
      kind: 'postgres',
      url: 'postgres://line@db.example:5432/devicebench',
      password: 'p@ss-9',
    });
    expect(await credentials.get('audit:postgres-password')).toBeUndefined();
    await settings.commit(prepared);
    expect(await credentials.get('audit:postgres-password')).toBe('p@ss-9');
    const file = readFileSync(join(data, 'audit-settings.json'), 'utf8');
    expect(file).not.toContain('p@ss-9');
    expect(JSON.parse(file)).toEqual({
      mode: 'shared',
      url: 'postgres://line@db.example:5432/devicebench',
      station: 'line-3',
    });
    const reopened = await AuditSettings.open(data, credentials, {});
    expect((await reopened.resolve()).station).toBe('line-3');
  });

  it('moves a password an older file kept in a local-mode URL into the keychain on open', async () => {
    const data = dir();
    const file = join(data, 'audit-settings.json');
    writeFileSync(
      file,
      JSON.stringify({ mode: 'local', url: 'postgres://u:old%25pw@db.example:5432/x' }),
    );
    const credentials = new MemoryCredentialStore();
    const settings = await AuditSettings.open(data, credentials, {});
    expect(settings.saved.url).toBe('postgres://u@db.example:5432/x');
    expect(await credentials.get('audit:postgres-password')).toBe('old%pw');
    expect(readFileSync(file, 'utf8')).not.toContain('old');
  });

  it('lets DEVICEBENCH_AUDIT_URL and DEVICEBENCH_STATION win over the settings', async () => {
    const settings = await AuditSettings.open(dir(), new MemoryCredentialStore(), {
      DEVICEBENCH_AUDIT_URL: 'postgres://ci@127.0.0.1:5433/line',
      DEVICEBENCH_STATION: 'ci-runner',
    });
    expect(await settings.resolve()).toEqual({
      location: { kind: 'postgres', url: 'postgres://ci@127.0.0.1:5433/line' },
      station: 'ci-runner',
      fromEnvironment: { url: true, station: true },
    });
    const bad = await AuditSettings.open(dir(), new MemoryCredentialStore(), {
      DEVICEBENCH_AUDIT_URL: 'mysql://x',
    });
    await expect(bad.resolve()).rejects.toThrow('DEVICEBENCH_AUDIT_URL must be a postgres://');
  });

  it('refuses a shared log without a postgres URL, on the url field', async () => {
    const settings = await AuditSettings.open(dir(), new MemoryCredentialStore(), {});
    for (const url of [undefined, 'https://db.example/x']) {
      const err = await settings.prepare({ mode: 'shared', url }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SetupError);
      expect((err as SetupError).field).toBe('url');
    }
  });
});
