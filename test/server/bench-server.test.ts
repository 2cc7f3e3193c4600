// The bench server: the contract over HTTP with envelopes, events over WebSocket, and only
// its own page allowed to call it.
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_OPERATION_BODY_BYTES } from '../../src/core/app/contracts/fields';
import { CONTENT_SECURITY_POLICY } from '../../src/core/content-security-policy';
import { startBenchServer, type BenchServer } from '../../src/server/bench-server';
import { request } from '../helpers/emulator';
import { heldFor, rawRequest } from '../helpers/raw-http';

let server: BenchServer;
beforeAll(async () => {
  server = await startBenchServer({
    dataDir: mkdtempSync(join(tmpdir(), 'bench-')),
    staticDir: join(tmpdir(), 'no-such-renderer'),
  });
});
afterAll(() => server.close());

const op = (name: string, input: unknown, headers: Record<string, string> = {}) =>
  request(`${server.url}/api/ops/${name}`, 'POST', input, headers);

describe('bench server', () => {
  it('answers operations with Result envelopes and fitting statuses', async () => {
    const created = await op('things:createTrialProduct', { name: 'Web lamp' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ ok: true, value: { name: 'Web lamp', type: 'BLE' } });

    const bad = await op('things:createTrialProduct', { name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', fields: [{ field: 'name' }] },
    });

    const missing = await op('things:getScenarioSet', { productId: 'none' });
    expect(missing.status).toBe(502);
    expect(missing.body).toMatchObject({ ok: false, error: { code: 'platform', status: 404 } });

    expect((await op('nope:nothing', {})).status).toBe(404);
  });

  it('refuses requests from another origin or host', async () => {
    const foreign = await op('things:listTrialProducts', {}, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    // fetch will not forge a Host header; node:http will, as a rebinding attack would.
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const req = httpRequest(
        {
          hostname,
          port,
          method: 'POST',
          path: '/api/ops/things:listTrialProducts',
          headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
        },
        (res) => resolve(res.statusCode),
      );
      req.once('error', reject).end('{}');
    });
    expect(rebound).toBe(403);
    // An empty or missing Host is no more this machine's than a foreign one, read-only or not.
    const url = new URL(server.url);
    for (const host of ['', ' ', null]) {
      const answer = await rawRequest(
        url,
        [
          'POST /api/ops/things:listTrialProducts HTTP/1.0',
          'Content-Length: 2',
          'Connection: close',
        ],
        5_000,
        host,
      );
      expect(answer.status, `Host ${JSON.stringify(host)}: ${answer.body}`).toBe(403);
    }
    const same = await op('things:listTrialProducts', {}, { origin: server.url });
    expect(same.status).toBe(200);
  });

  it('pushes emulator activity over the events WebSocket', async () => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/events`, {
      origin: server.url,
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const message = new Promise<{ event: string; payload: { path: string } }>((resolve) =>
      ws.once('message', (data) => resolve(JSON.parse(String(data)))),
    );
    await op('things:listTrialProducts', {});
    expect(await message).toMatchObject({
      event: 'emulator:activity',
      payload: { path: '/things/v1/trial/products', status: 200 },
    });
    ws.close();
  });

  // 120,000 PSDIs parsed and checked: about 1 s alone, 5.7 s in a full run on a loaded
  // machine, where Vitest's default 5 s failed it (what is tested is the limit, not the time).
  it('takes a 1.3 MB CSV plan, as the contract allows; a body over the limit is a field-named 413', async () => {
    const csv = Array.from({ length: 120_000 }, (_, i) => `PSDI${String(i).padStart(6, '0')}`)
      .join('\n')
      .concat('\n');
    expect(csv.length).toBeGreaterThan(1_300_000);
    const saved = await op('provisioning:savePlan', {
      productId: '3000000001',
      profileId: 'devicebench-v1',
      psdi: { kind: 'list', csv },
    });
    expect(saved.status).not.toBe(413);
    expect(saved.body).toMatchObject({ ok: true });

    const tooBig = await op('sim:loadBoards', {
      fileName: 'huge.json',
      text: 'x'.repeat(MAX_OPERATION_BODY_BYTES),
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', fields: [{ field: '(body)' }] },
    });
  }, 30_000);

  it('a __proto__ or constructor key anywhere is a field-named 400; unknown properties are stripped', async () => {
    const proto = await op('things:createTrialProduct', '{"name":"Lamp","__proto__":{"x":1}}');
    expect(proto.status).toBe(400);
    expect(proto.body).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', fields: [{ field: '__proto__' }] },
    });
    const nested = await op(
      'things:createTrialProduct',
      '{"name":"Lamp","extra":[{"constructor":{"prototype":{}}}]}',
    );
    expect(nested.body).toMatchObject({
      error: { code: 'invalid_input', fields: [{ field: 'extra[0].constructor' }] },
    });
    const extra = await op('things:createTrialProduct', { name: 'Stripped', color: 'red' });
    expect(extra.body).toMatchObject({ ok: true, value: { name: 'Stripped' } });
    expect(extra.body).not.toHaveProperty('value.color');
  });

  it('bench server side: JSON nested past the limit and malformed JSON are field-named 400s', async () => {
    const deep = await op('things:createTrialProduct', `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const broken = await op('things:createTrialProduct', '{"name":');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', fields: [{ field: '(body)' }] },
    });
  });

  it('refuses numbers past their bounds in plain words, never rounding them', async () => {
    const rssi = await op('ble:startScan', '{"minRssi":20}');
    expect(rssi.status).toBe(400);
    expect(rssi.body).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        fields: [{ field: 'minRssi', message: 'must be between −127 and 0 dBm' }],
      },
    });
    const set = (interval: string) =>
      `{"productId":"1","scenarioSet":{"autoClose":true,"suppressionInterval":${interval},"scenarios":[]}}`;
    for (const interval of ['1e+23', '9007199254740993']) {
      const refused = await op('things:putScenarioSet', set(interval));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: {
          fields: [
            {
              field: 'scenarioSet.suppressionInterval',
              message: 'must be between 0 and 86400000 milliseconds',
            },
          ],
        },
      });
    }
    const typeError = await op('things:createTrialProduct', '{"name":5}');
    expect(typeError.body).toMatchObject({
      error: { fields: [{ field: 'name', message: 'is required and must be a string' }] },
    });
    expect(JSON.stringify(typeError.body)).not.toMatch(/Invalid input|expected string/);
  });

  it('answers what were 500s (issue 44) as field-named 400s, or as the values they are', async () => {
    for (const recordId of [0, -1]) {
      const refused = await op('audit:releasePsdi', { recordId, reason: 'board scrapped' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: { code: 'invalid_input', fields: [{ field: 'recordId' }] },
      });
    }
    // The simulated bench's boards start the BLE process; its pairing prompts are then asked of
    // it, with or without a body.
    expect((await op('sim:listBoards', {})).status).toBe(200);
    for (const body of [undefined, {}, { extra: 1 }]) {
      const prompts = await op('ble:listPairingPrompts', body);
      expect(prompts).toMatchObject({ status: 200, body: { ok: true, value: [] } });
    }
    const noBoard = await op('sim:pressButton', { boardId: 'no-such-board' });
    expect(noBoard.status).toBe(400);
    expect(noBoard.body).toMatchObject({
      error: {
        message: 'boardId: no simulated board "no-such-board"',
        fields: [{ field: 'boardId' }],
      },
    });
  });

  it('closes a connection that sends too little within 5 s; its WebSocket stays open', async () => {
    const url = new URL(server.url);
    const head = (lines: string[]) =>
      [`POST /api/ops/app:getStatus HTTP/1.1`, `Host: ${url.host}`, ...lines].join('\r\n');
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/events`, {
      origin: server.url,
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const [shortBody, shortHeaders, nothing, idle] = await Promise.all([
      // A Content-Length that promises more than is sent: this held a connection 12 s and more.
      heldFor(
        url,
        head(['Content-Type: application/json', 'Content-Length: 100', '', '{']),
        12_000,
      ),
      heldFor(url, head(['Content-Type: application/json']), 12_000),
      heldFor(url, '', 12_000),
      // Answered, then idle on keep-alive.
      heldFor(url, head(['Content-Type: application/json', 'Content-Length: 2', '', '{}']), 12_000),
    ]);
    for (const held of [shortBody, shortHeaders, nothing, idle]) {
      expect(held.closed).toBe(true);
      // The check runs once a second: closed between 5 and 7 s.
      expect(held.ms).toBeGreaterThanOrEqual(4_900);
      expect(held.ms).toBeLessThan(7_500);
    }
    expect(shortBody.status).toBe(408);
    expect(idle.status).toBe(200);
    // The events WebSocket, idle as long, still carries events.
    const message = new Promise((resolve) => ws.once('message', resolve));
    await op('things:listTrialProducts', {});
    await message;
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  }, 20_000);

  it("sends the renderer's content security policy", async () => {
    const res = await request(`${server.url}/`, 'GET');
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('says how to build the renderer when it is missing', async () => {
    const res = await request(`${server.url}/`, 'GET');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('npm run build:web');
  });
});
