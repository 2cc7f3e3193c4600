// Hardening (docs/decisions.md) against the emulator: it answers only loopback Host names (DNS
// rebinding), refuses other pages' Origins, and bounds every input before a route sees it: one
// value per query parameter, a bounded clock, bounded JSON depth.
import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../src/core/net/json-body';
import { startEmulator } from '../../../src/core/emulator/server';
import { MAX_CLOCK_OFFSET_MS } from '../../../src/core/emulator/schema';
import { request, useEmulator } from '../../helpers/emulator';
import { rawRequest } from '../../helpers/raw-http';
import { refusedUpgrades } from '../../helpers/refused-upgrade';

const emu = useEmulator();

/** A GET with any Host header, as a rebinding page's browser would send it. */
function getWithHost(
  url: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number | undefined; body: string }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, path: pathname + search, headers: { host, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      },
    );
    req.once('error', reject).end();
  });
}

describe('emulator hardening', () => {
  it('/__admin/state does not answer a foreign Host; loopback names answer on any port', async () => {
    const state = `${emu().emulator.adminUrl}/state`;
    const rebound = await getWithHost(state, 'evil.example');
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('channelSecret');
    expect(JSON.parse(rebound.body)).toHaveProperty('message');
    expect((await getWithHost(state, 'evil.example:80')).status).toBe(403);
    expect((await getWithHost(state, '127.0.0.1.evil.example')).status).toBe(403);
    for (const host of ['localhost', 'localhost:1', '127.0.0.1:65535', '[::1]:8080', '[::1]'])
      expect((await getWithHost(state, host)).status, host).toBe(200);
  });

  it("refuses another page's Origin, and admits the emulator's own", async () => {
    const state = `${emu().emulator.adminUrl}/state`;
    const { host } = new URL(state);
    expect((await getWithHost(state, host, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await getWithHost(state, host, { origin: 'null' })).status).toBe(403);
    expect((await getWithHost(state, host, { origin: `http://${host}` })).status).toBe(200);
  });

  it('admits the names it was told to (a container service name)', async () => {
    const emulator = await startEmulator({ allowedHostnames: ['emulator'] });
    try {
      const state = `${emulator.adminUrl}/state`;
      expect((await getWithHost(state, 'emulator:4000')).status).toBe(200);
      expect((await getWithHost(state, 'evil.example')).status).toBe(403);
    } finally {
      await emulator.close();
    }
  });

  it('closes the connections it refuses, upgrades included, and keeps answering', async () => {
    const url = new URL(emu().emulator.url);
    expect(await refusedUpgrades(url, '/__admin/state', 200)).toBe(200);
    expect((await emu().admin('GET', '/state')).status).toBe(200);
  });

  it('closes an admitted WebSocket upgrade it answers over HTTP (404), as soon as the answer is written', async () => {
    const url = new URL(emu().emulator.url);
    const upgrade = (path: string) =>
      rawRequest(url, [
        `GET ${path} HTTP/1.1`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
      ]);
    const answers = await Promise.all(
      ['/ws', '/__admin/ws', '/v2/bot/list'].map((path) => upgrade(path)),
    );
    expect(answers.map((a) => [a.status, a.closed])).toEqual([
      [404, true],
      [404, true],
      [401, true],
    ]);
    expect((await emu().admin('GET', '/state')).status).toBe(200);
  });

  it('a repeated query parameter is a 400 naming it, never an array reaching SQLite', async () => {
    const verify = await emu().call(
      'GET',
      '/oauth2/v2.1/verify?access_token=a&access_token=b',
      undefined,
      null,
    );
    expect(verify.status).toBe(400);
    expect(verify.body).toMatchObject({
      message: expect.stringContaining('access_token'),
      details: [{ property: 'access_token' }],
    });
    const list = await emu().admin('GET', '/service-messages/messages?channelId=1&channelId=2');
    expect(list.status).toBe(400);
    expect(list.body).toMatchObject({ details: [{ property: 'channelId' }] });
    // Behind channel auth it still answers 401 first (docs/decisions.md, order of checks).
    const unauthenticated = await emu().call(
      'GET',
      '/things/v1/trial/products?a=1&a=2',
      undefined,
      null,
    );
    expect(unauthenticated.status).toBe(401);
  });

  it('the clock moves at most 100 years ahead, in one move or many', async () => {
    const emulator = await startEmulator({
      dataFile: join(mkdtempSync(join(tmpdir(), 'emu-clock-')), 'state.sqlite'),
    });
    try {
      const advance = (ms: number) => request(`${emulator.adminUrl}/clock/advance`, 'POST', { ms });
      const huge = await advance(Number.MAX_SAFE_INTEGER);
      expect(huge.status).toBe(400);
      expect(huge.body).toMatchObject({ details: [{ property: 'ms' }] });
      expect((await advance(MAX_CLOCK_OFFSET_MS - 1)).status).toBe(200);
      const past = await advance(2);
      expect(past.status).toBe(400);
      expect(past.body).toMatchObject({ details: [{ property: 'ms' }] });
      expect(
        ((await request(`${emulator.adminUrl}/clock`, 'GET')).body as { offsetMs: number })
          .offsetMs,
      ).toBe(MAX_CLOCK_OFFSET_MS - 1);
      // Every date the emulator makes is still a date.
      const token = emulator.channels()[0]!.channelAccessToken;
      const created = await request(
        `${emulator.url}/things/v1/trial/products`,
        'POST',
        { name: 'Far future' },
        { authorization: `Bearer ${token}` },
      );
      expect(created.status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  it('JSON nested deeper than the limit is a 400 before parsing; the limit itself passes', async () => {
    const nested = (depth: number) =>
      `${'['.repeat(depth - 1)}{"type":"flex"}${']'.repeat(depth - 1)}`;
    const flexible = (messages: string) => `{"to":"${'a'.repeat(64)}","messages":[${messages}]}`;
    const deep = await emu().call('POST', '/bot/pnp/push', flexible(nested(5_000)));
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ message: expect.stringContaining(`${MAX_JSON_DEPTH}`) });
    // Brackets inside strings do not count.
    const quoted = await emu().call(
      'POST',
      '/bot/pnp/push',
      flexible(`{"type":"text","text":"${'['.repeat(200)}"}`),
    );
    expect(quoted.status).not.toBe(400);
    const proto = await emu().call('POST', '/things/v1/trial/products', '{"__proto__":{"x":1}}');
    expect(proto.status).toBe(400);
    expect(await emu().admin('GET', '/state')).toMatchObject({ status: 200 });
  });
});
