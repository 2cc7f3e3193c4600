// The app's contract against odd input, as the UI and the bench server call it: object-method
// names as IDs, lone surrogates in IDs, a CSV plan with a header and rows to leave out, a
// database password in a local-mode URL, and a module channel's secret sent to another host.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useApp } from '../../helpers/app';

const get = useApp('app-hardening');
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);
const fails = (name: string, input: unknown) => get().fails(name, input);

const sequence = { kind: 'sequence', prefix: 'OM-', start: 1, width: 3 };

describe('stores keyed by what the user typed', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'names and plans under "%s" are kept like any other key',
    async (key) => {
      expect(await ok('names:get', { scope: key })).toEqual({ names: {}, formats: {} });
      const named = await ok<{ names: Record<string, string> }>('names:setName', {
        scope: key,
        uuid: '2a19',
        name: 'Charge',
      });
      expect(Object.values(named.names)).toEqual(['Charge']);
      expect(await ok('names:get', { scope: key })).toEqual(named);
      expect(await ok('names:get', { scope: 'bench' })).toEqual({ names: {}, formats: {} });

      expect(await ok('provisioning:getPlan', { productId: key })).toBeNull();
      const plan = { productId: key, profileId: 'devicebench-v1', psdi: sequence };
      await ok('provisioning:savePlan', plan);
      expect(await ok('provisioning:getPlan', { productId: key })).toMatchObject(plan);
      const file = JSON.parse(
        readFileSync(join(get().dataDir, 'provisioning-plans.json'), 'utf8'),
      ) as { plans: Record<string, unknown> };
      expect(Object.hasOwn(file.plans, key)).toBe(true);
    },
  );
});

describe('text that reaches a URL', () => {
  it.each([
    ['things:getScenarioSet', { productId: '\ud800' }, 'productId'],
    ['things:deleteTrialProduct', { productId: 'a\udc00b' }, 'productId'],
    ['things:getDevice', { deviceId: '\udfff' }, 'deviceId'],
    ['modules:addChat', { botId: '\ud800', chatId: 'C1' }, 'botId'],
    ['names:get', { scope: '\ud800' }, 'scope'],
  ])('%s with a lone surrogate is invalid_input naming %s', async (name, input, field) => {
    const error = await fails(name, input);
    expect(error.code).toBe('invalid_input');
    expect(error.fields).toEqual([{ field, message: expect.stringContaining('UTF-16') }]);
  });

  it.each([
    ['things:getScenarioSet', { productId: 'x'.repeat(200_000) }, 'productId', 256],
    ['things:getDevice', { deviceId: '9'.repeat(257) }, 'deviceId', 256],
    ['iap:completeOrder', { orderId: 'o'.repeat(300) }, 'orderId', 256],
    ['missionStickers:send', { to: 'U'.repeat(9_000), productId: '1' }, 'to', 8_192],
  ])(
    '%s with an over-long ID is invalid_input naming it, before any request',
    async (name, input, field, max) => {
      const error = await fails(name, input);
      expect(error.code).toBe('invalid_input');
      expect(error.fields).toEqual([{ field, message: `must be at most ${max} characters` }]);
    },
  );

  it('a pair of surrogates (an emoji) is text like any other', async () => {
    const error = await fails('things:getScenarioSet', { productId: 'x😀' });
    expect(error.code).toBe('platform');
  });
});

describe('a CSV PSDI list', () => {
  const csv = `PSDI\nAB-0001\nAB-0001\n\n${'X'.repeat(80)}\nAB-0002\n`;
  const plan = (extra: object = {}) => ({
    productId: 'csvproduct',
    profileId: 'devicebench-v1',
    psdi: { kind: 'list', csv, ...extra },
  });

  it('refuses a first row that reads like a header, on psdi.header', async () => {
    for (const name of ['provisioning:savePlan', 'provisioning:nextPsdi']) {
      const error = await fails(name, plan());
      expect(error.fields?.[0]).toMatchObject({
        field: 'psdi.header',
        message: expect.stringContaining('line 1 ("PSDI") reads like a column name'),
      });
    }
    expect(await ok('provisioning:getPlan', { productId: 'csvproduct' })).toBeNull();
  });

  it('with the header declared, names every row it leaves out with its line', async () => {
    const next = await ok<{ psdi: string; skipped: { line: number; message: string }[] }>(
      'provisioning:nextPsdi',
      plan({ header: true }),
    );
    expect(next.psdi).toBe('AB-0001');
    expect(next.skipped).toEqual([
      { line: 3, message: '"AB-0001" repeats line 2' },
      { line: 4, message: 'blank PSDI' },
      { line: 5, message: expect.stringContaining('is 80 bytes') },
    ]);
    await ok('provisioning:savePlan', plan({ header: true }));
  });
});

describe('the database password', () => {
  it('never rests in audit-settings.json in local mode, nor comes back', async () => {
    const url = 'postgres://u:pw-Secret-9@db.example:5432/x';
    const saved = await ok<{ url?: string; passwordSet: boolean }>('line:saveSettings', {
      mode: 'local',
      url,
    });
    expect(saved.url).toBe('postgres://u@db.example:5432/x');
    expect(saved.passwordSet).toBe(true);
    expect(JSON.stringify(await ok('line:getSettings'))).not.toContain('pw-Secret-9');
    const file = readFileSync(join(get().dataDir, 'audit-settings.json'), 'utf8');
    expect(file).not.toContain('pw-Secret-9');
    expect(file).toContain('postgres://u@db.example:5432/x');
  });
});

describe('modules:attach', () => {
  it("sends a channel's ID and secret only to its environment's origin unless that other origin is confirmed", async () => {
    const requests: string[] = [];
    const { createServer } = await import('node:http');
    const other = createServer((req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"no"}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as { port: number };
    const managerBaseUrl = `http://127.0.0.1:${port}`;
    try {
      const { channelId } = await ok<{ channelId: string }>('modules:createModuleChannel', {
        name: 'Module',
      });
      const attach = { code: 'c', redirectUri: 'https://module.example.com/cb', managerBaseUrl };
      for (const input of [{ moduleChannelId: channelId, ...attach }, attach]) {
        const refused = await fails('modules:attach', input);
        expect(refused.fields?.[0]).toMatchObject({
          field: 'managerBaseUrl',
          message: expect.stringContaining(`confirmManagerOrigin: "${managerBaseUrl}"`),
        });
      }
      expect(requests).toEqual([]);
      const sent = await fails('modules:attach', {
        moduleChannelId: channelId,
        ...attach,
        confirmManagerOrigin: managerBaseUrl,
      });
      expect(sent.code).toBe('platform');
      expect(requests).toEqual([expect.stringMatching(/^POST \/module\/auth\/v1\/token Basic /)]);
    } finally {
      other.close();
    }
  });
});
