// Environments.channel: any environment's channel with its secrets, without selecting it (what
// `devicebench --env` needs), and a field-named failure for an unknown id.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Environments } from '../../../src/core/usecases/environments';
import { SetupError } from '../../../src/core/usecases/errors';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';

describe('Environments.channel', () => {
  it('reads a custom environment’s channel and secrets while the emulator stays active', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envs-'));
    const envs = await Environments.open(dir, new MemoryCredentialStore(), () => undefined);
    const saved = await envs.save({
      name: 'Staging',
      baseUrl: 'https://staging.example.test',
      channelId: '2000000042',
      channelAccessToken: 'token-1234',
      channelSecret: 'secret-5678',
    });

    await expect(envs.channel(saved.id)).resolves.toEqual({
      kind: 'custom',
      baseUrl: 'https://staging.example.test',
      channelId: '2000000042',
      channelAccessToken: 'token-1234',
      channelSecret: 'secret-5678',
    });
    expect(envs.activeId).toBe('local-emulator');
    const reopened = await Environments.open(dir, new MemoryCredentialStore(), () => undefined);
    expect(reopened.activeId).toBe('local-emulator');
  });

  it('refuses an unknown id on field id', async () => {
    const envs = await Environments.open(
      mkdtempSync(join(tmpdir(), 'envs-')),
      new MemoryCredentialStore(),
      () => undefined,
    );
    const failure = await envs.channel('nope').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SetupError);
    expect(failure).toMatchObject({ field: 'id', detail: 'no environment nope' });
  });
});
