// The line through the contract: switching this station to a shared PostgreSQL (the password to
// the keychain only), copying local records once, the line view, the station filter,
// reconcile's refusals and list, and a grep for the password in everything the app wrote,
// answered or logged.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OperationName } from '../../../src/core/app/contract';
import { startApp, type AppService } from '../../../src/core/app/service';
import { openAuditStore } from '../../../src/core/audit/open-store';
import type { ProvisioningRecord } from '../../../src/core/audit/records';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';
import { usePostgres } from '../../helpers/postgres';
import { reserveInput } from '../audit/fixture';

const PASSWORD = 'Line-pw-7Q2x-never-shown';
const postgres = usePostgres({ password: PASSWORD });

let app: AppService;
let dataDir: string;
let url: string;
const credentials = new MemoryCredentialStore();
const answers: string[] = [];
const logged: string[] = [];

async function call(name: OperationName, input: unknown = {}) {
  const result = await app.invoke(name, input);
  answers.push(JSON.stringify(result));
  return result;
}
async function ok<T>(name: OperationName, input: unknown = {}): Promise<T> {
  const result = await call(name, input);
  if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
  return result.value as T;
}

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  url = await postgres.database();
  dataDir = mkdtempSync(join(tmpdir(), 'app-line-'));
  app = await startApp({
    dataDir,
    credentials,
    keychain: { kind: 'memory', reason: 'test' },
    version: '0.0.0-test',
    webhookPort: 0,
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  vi.restoreAllMocks();
});

// Each open of the local log starts its worker thread (0.3–1.5 s under tsx on a busy machine).
describe('a station joining a line', { timeout: 30_000 }, () => {
  it('starts on this machine’s log, under the host name unless named', async () => {
    const view = await ok<{ mode: string; active: { engine: string; station: string } }>(
      'line:getSettings',
    );
    expect(view.mode).toBe('local');
    expect(view.active).toMatchObject({ engine: 'sqlite', available: true });
  });

  it('refuses a wrong password or a bad URL on the field, and keeps the log it had', async () => {
    const wrong = new URL(url);
    wrong.password = 'not-it';
    const refused = await call('line:saveSettings', { mode: 'shared', url: wrong.toString() });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(!refused.ok && refused.error.fields?.[0]?.field).toBe('url');
    const bad = await call('line:saveSettings', { mode: 'shared', url: 'http://x' });
    expect(!bad.ok && bad.error.fields?.[0]).toMatchObject({ field: 'url' });
    expect((await ok<{ active: { engine: string } }>('line:getSettings')).active.engine).toBe(
      'sqlite',
    );
  });

  it('copies local records to the shared log once, and shows the line', async () => {
    // A record taken on this machine before the line existed.
    const local = await openAuditStore({
      location: { kind: 'local', file: join(dataDir, 'audit.sqlite') },
      station: 'laptop',
    });
    const before = await local.reserve(reserveInput(1, 'LOCAL-1'));
    await local.markWritten(before.id);
    await local.markVerified(before.id);
    await local.close();

    const withPassword = new URL(url);
    withPassword.password = PASSWORD;
    const view = await ok<{
      url: string;
      passwordSet: boolean;
      active: { engine: string; station: string; available: boolean; location: string };
    }>('line:saveSettings', { mode: 'shared', url: withPassword.toString(), station: 'line-1' });
    expect(view.active).toMatchObject({ engine: 'postgres', station: 'line-1', available: true });
    expect(view.url).toBe(url);
    expect(view.passwordSet).toBe(true);

    expect(await ok('line:copyLocalToShared')).toEqual({
      copied: 1,
      alreadyCopied: 0,
      refused: [],
    });
    expect(await ok('line:copyLocalToShared')).toEqual({
      copied: 0,
      alreadyCopied: 1,
      refused: [],
    });

    const status = await ok<{ stations: { station: string }[]; engine: string }>('line:getStatus');
    expect(status.engine).toBe('postgres');
    expect(status.stations.map((s) => s.station)).toEqual(['laptop']);
    const page = await ok<{ items: ProvisioningRecord[] }>('audit:search', { station: 'laptop' });
    expect(page.items.map((r) => r.psdi)).toEqual(['LOCAL-1']);
  });

  it('lists held failures for reconcile, and answers a record settled since as settled', async () => {
    const other = await openAuditStore({
      location: { kind: 'postgres', url, password: PASSWORD },
      station: 'line-2',
    });
    try {
      const held = await other.reserve(reserveInput(2, 'HELD-1'));
      await other.markFailed(held.id, { step: 'commit', error: 'no answer', psdiHeld: true });
      const unfinished = await ok<ProvisioningRecord[]>('provisioning:listUnfinished');
      expect(unfinished.map((r) => [r.psdi, r.station, r.state])).toEqual([
        ['HELD-1', 'line-2', 'failed'],
      ]);
      const verified = (await ok<{ items: ProvisioningRecord[] }>('audit:search', {})).items.find(
        (r) => r.psdi === 'LOCAL-1',
      )!;
      const released = await other.release(held.id, 'board lost');
      for (const record of [verified, released]) {
        const answer = await ok<ProvisioningRecord & { reconciled: unknown }>(
          'provisioning:reconcile',
          { recordId: record.id, action: 'finish' },
        );
        expect(answer).toMatchObject({ id: record.id, state: record.state });
        expect(answer.reconciled).toEqual({
          action: 'settled',
          message: expect.stringMatching(
            new RegExp(
              `^record #${record.id}: already ${record.state} at \\d{2}:\\d{2} — nothing to do$`,
            ),
          ),
        });
      }
      const unknown = await call('provisioning:reconcile', { recordId: 9999, action: 'finish' });
      expect(!unknown.ok && unknown.error.fields?.[0]?.field).toBe('recordId');
    } finally {
      await other.close();
    }
  });

  it('keeps local records readable after switching back', async () => {
    await ok('line:saveSettings', { mode: 'local' });
    const page = await ok<{ items: ProvisioningRecord[] }>('audit:search', {});
    expect(page.items.map((r) => r.psdi)).toEqual(['LOCAL-1']);
  });

  it('never writes, answers or logs the password', async () => {
    expect(await credentials.get('audit:postgres-password')).toBe(PASSWORD);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : [path];
      });
    const written = files(dataDir);
    expect(written.some((f) => f.endsWith('audit-settings.json'))).toBe(true);
    for (const file of written) expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
    expect(answers.length).toBeGreaterThan(5);
    for (const answer of answers) expect(answer).not.toContain(PASSWORD);
    for (const line of logged) expect(line).not.toContain(PASSWORD);
  });
});
