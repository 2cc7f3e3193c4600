// The app's operations through the contract: bad input gets field-named errors and changes
// nothing; environments keep secrets out of every answer; events flow.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationName } from '../../../src/core/app/contract';
import { startApp, type AppService } from '../../../src/core/app/service';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';
import { request } from '../../helpers/emulator';

const open: AppService[] = [];
afterEach(async () => {
  for (const app of open.splice(0)) await app.close();
});

async function app(
  dataDir = mkdtempSync(join(tmpdir(), 'app-')),
  credentials = new MemoryCredentialStore(),
) {
  const service = await startApp({
    dataDir,
    credentials,
    keychain: { kind: 'memory', reason: 'test' },
    version: '0.0.0-test',
  });
  open.push(service);
  return service;
}

async function ok<T = unknown>(
  service: AppService,
  name: OperationName,
  input: unknown = {},
): Promise<T> {
  const result = await service.invoke(name, input);
  if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
  return result.value as T;
}

const USER = `U${'d'.repeat(32)}`;

describe('bad input is refused with the field named, and nothing changes', () => {
  const cases: [OperationName, unknown, string][] = [
    ['things:createTrialProduct', {}, 'name'],
    ['things:createTrialProduct', { name: '   ' }, 'name'],
    ['things:createTrialProduct', { name: 'x'.repeat(101) }, 'name'],
    ['things:deleteTrialProduct', { productId: '' }, 'productId'],
    ['things:getScenarioSet', {}, 'productId'],
    [
      'things:putScenarioSet',
      { productId: 'p', scenarioSet: { autoClose: true, suppressionInterval: 0 } },
      'scenarioSet.scenarios',
    ],
    [
      'things:putScenarioSet',
      {
        productId: 'p',
        scenarioSet: {
          autoClose: true,
          suppressionInterval: 0,
          scenarios: [
            {
              trigger: { type: 'IMMEDIATE' },
              actions: [
                {
                  type: 'GATT_WRITE',
                  serviceUuid: '0000aaaa-0000-1000-8000-00805f9b34fb',
                  characteristicUuid: '0000aaaa-0000-1000-8000-00805f9b34fb',
                  data: '***',
                },
              ],
            },
          ],
        },
      },
      'scenarioSet.scenarios[0].actions[0].data',
    ],
    ['things:deleteScenarioSet', { productId: 7 }, 'productId'],
    ['things:getDevice', { deviceId: '' }, 'deviceId'],
    ['things:getLinks', { productId: 'p', userId: 'U1' }, 'userId'],
    [
      'settings:saveEnvironment',
      { name: 'Prod', baseUrl: 'ftp://x', channelId: '1', channelAccessToken: 't' },
      'baseUrl',
    ],
    [
      'settings:saveEnvironment',
      {
        name: 'Prod',
        baseUrl: 'https://api.example.test',
        channelId: 'abc',
        channelAccessToken: 't',
      },
      'channelId',
    ],
    [
      'settings:saveEnvironment',
      { name: '', baseUrl: 'https://api.example.test', channelId: '1' },
      'name',
    ],
    ['settings:selectEnvironment', {}, 'id'],
    [
      'emulator:registerDevice',
      { productId: 'p', productSpecificDeviceId: '' },
      'productSpecificDeviceId',
    ],
    ['emulator:linkDevice', { deviceId: 'd', userId: 'nope' }, 'userId'],
    ['emulator:advanceClock', { ms: -1 }, 'ms'],
    ['emulator:injectFault', { kind: 'status', status: 404 }, 'status'],
    ['emulator:addUser', { displayName: '' }, 'displayName'],
  ];

  it.each(cases)('%s %j → %s', async (name, input, field) => {
    const service = await app();
    const result = await service.invoke(name, input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_input');
    expect(result.error.fields?.map((f) => f.field)).toContain(field);
    expect(result.error.message).toContain(field);
    expect(await ok(service, 'things:listTrialProducts')).toEqual([]);
    const envs = await ok<{ environments: unknown[] }>(service, 'settings:listEnvironments');
    expect(envs.environments).toHaveLength(1);
    const state = await ok<{ activity: unknown[]; devices: unknown[] }>(
      service,
      'emulator:getState',
    );
    expect(state.devices).toEqual([]);
  });

  it('answers an unknown operation and a non-object input without throwing', async () => {
    const service = await app();
    const unknown = await service.invoke('things:formatDisk', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_operation' } });
    const notObject = await service.invoke('things:createTrialProduct', 'Lamp');
    expect(notObject).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});

describe('device service through the contract', () => {
  it('runs against the embedded emulator by default and passes platform errors through', async () => {
    const service = await app();
    const status = await ok<{ emulator: { running: boolean }; environment: { kind: string } }>(
      service,
      'app:getStatus',
    );
    expect(status.emulator.running).toBe(true);
    expect(status.environment.kind).toBe('emulator');

    const product = await ok<{ id: string }>(service, 'things:createTrialProduct', {
      name: 'Lamp',
    });
    const saved = await ok<{ revision: number }>(service, 'things:putScenarioSet', {
      productId: product.id,
      scenarioSet: { autoClose: false, suppressionInterval: 0, scenarios: [] },
    });
    expect(saved.revision).toBe(1);

    const missing = await service.invoke('things:getScenarioSet', { productId: 'nope' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'platform', status: 404 } });
    if (!missing.ok) expect(missing.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('registers a device on the emulator and finds it and its link', async () => {
    const service = await app();
    const product = await ok<{ id: string }>(service, 'things:createTrialProduct', {
      name: 'Thermo',
    });
    const { device } = await ok<{ device: { id: string } }>(service, 'emulator:registerDevice', {
      productId: product.id,
      productSpecificDeviceId: 'SN-1',
      userId: USER,
    });
    expect(await ok(service, 'things:getDevice', { deviceId: device.id })).toMatchObject({
      productSpecificDeviceId: 'SN-1',
    });
    const links = await ok<{ items: { deviceDisplayName: string }[] }>(service, 'things:getLinks', {
      productId: product.id,
      userId: USER,
    });
    expect(links.items.map((i) => i.deviceDisplayName)).toEqual(['Thermo']);
  });

  it('streams emulator activity as events', async () => {
    const service = await app();
    const seen: { path: string }[] = [];
    const unsubscribe = service.subscribe('emulator:activity', (a) =>
      seen.push(a as { path: string }),
    );
    await ok(service, 'things:listTrialProducts');
    unsubscribe();
    await ok(service, 'things:listTrialProducts');
    expect(seen.map((a) => a.path)).toEqual(['/things/v1/trial/products']);
  });
});

describe('environments', () => {
  it('stores secrets only in the credential store and answers only a hint', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'app-'));
    const credentials = new MemoryCredentialStore();
    const service = await app(dataDir, credentials);
    const emulatorUrl = (await ok<{ url: string }>(service, 'emulator:getState')).url;
    const channel = (await request(`${emulatorUrl}/__admin/channels`, 'POST', { name: 'Custom' }))
      .body as {
      channelId: string;
      channelAccessToken: string;
      channelSecret: string;
    };

    const saved = await ok<{ id: string; channelAccessToken: { set: boolean; hint: string } }>(
      service,
      'settings:saveEnvironment',
      {
        name: 'Second channel',
        baseUrl: `${emulatorUrl}/`,
        channelId: channel.channelId,
        channelAccessToken: channel.channelAccessToken,
        channelSecret: channel.channelSecret,
      },
    );
    expect(saved.channelAccessToken).toEqual({
      set: true,
      hint: channel.channelAccessToken.slice(-4),
    });
    const everything = JSON.stringify([
      saved,
      await ok(service, 'settings:listEnvironments'),
      await ok(service, 'app:getStatus'),
    ]);
    expect(everything).not.toContain(channel.channelAccessToken);
    expect(everything).not.toContain(channel.channelSecret);
    for (const f of readdirSync(dataDir).filter((name) => name.endsWith('.json')))
      expect(readFileSync(join(dataDir, f), 'utf8')).not.toContain(channel.channelAccessToken);

    // Selecting it sends requests with that channel's token.
    await ok(service, 'settings:selectEnvironment', { id: saved.id });
    const product = await ok<{ channelId: number }>(service, 'things:createTrialProduct', {
      name: 'On custom',
    });
    expect(String(product.channelId)).toBe(channel.channelId);

    // Editing without a token keeps the stored one.
    await ok(service, 'settings:saveEnvironment', {
      id: saved.id,
      name: 'Renamed',
      baseUrl: emulatorUrl,
      channelId: channel.channelId,
    });
    expect(await ok<unknown[]>(service, 'things:listTrialProducts')).toHaveLength(1);

    // Settings survive a restart (same data dir, same keychain).
    await service.close();
    open.splice(open.indexOf(service), 1);
    const again = await app(dataDir, credentials);
    const listed = await ok<{ activeId: string; environments: { name: string }[] }>(
      again,
      'settings:listEnvironments',
    );
    expect(listed.activeId).toBe(saved.id);
    expect(listed.environments.map((e) => e.name)).toEqual(['Local emulator', 'Renamed']);

    // Deleting the active one falls back to the emulator and forgets its secrets.
    expect(await ok(again, 'settings:deleteEnvironment', { id: saved.id })).toEqual({
      activeId: 'local-emulator',
    });
    expect(await credentials.get(`${saved.id}:channelAccessToken`)).toBeUndefined();
  });

  it('refuses a new environment without a token, and editing or deleting the emulator', async () => {
    const service = await app();
    const noToken = await service.invoke('settings:saveEnvironment', {
      name: 'P',
      baseUrl: 'https://x.test',
      channelId: '1',
    });
    expect(noToken).toMatchObject({
      ok: false,
      error: { fields: [{ field: 'channelAccessToken' }] },
    });
    const del = await service.invoke('settings:deleteEnvironment', { id: 'local-emulator' });
    expect(del).toMatchObject({ ok: false, error: { fields: [{ field: 'id' }] } });
    const sel = await service.invoke('settings:selectEnvironment', { id: 'nope' });
    expect(sel).toMatchObject({ ok: false, error: { fields: [{ field: 'id' }] } });
  });

  it('sets an unreadable settings file aside instead of losing or crashing on it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'app-'));
    writeFileSync(join(dataDir, 'environments.json'), '{"activeId": 3, "custom": "oops"');
    const service = await app(dataDir);
    const listed = await ok<{ environments: unknown[] }>(service, 'settings:listEnvironments');
    expect(listed.environments).toHaveLength(1);
    expect(readdirSync(dataDir).some((f) => f.startsWith('environments.json.unreadable-'))).toBe(
      true,
    );
  });

  it('says plainly when a custom environment cannot be reached', async () => {
    const service = await app();
    const env = await ok<{ id: string }>(service, 'settings:saveEnvironment', {
      name: 'Nowhere',
      baseUrl: 'http://127.0.0.1:9',
      channelId: '1',
      channelAccessToken: 'tok',
    });
    await ok(service, 'settings:selectEnvironment', { id: env.id });
    const result = await service.invoke('things:listTrialProducts', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'unreachable' } });
  });
});
