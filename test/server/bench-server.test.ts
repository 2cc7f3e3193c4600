// The bench server: the contract over HTTP with envelopes, events over WebSocket, and only
// its own page allowed to call it.
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBenchServer, type BenchServer } from '../../src/server/bench-server';
import { request } from '../helpers/emulator';

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

  it('says how to build the renderer when it is missing', async () => {
    const res = await request(`${server.url}/`, 'GET');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('npm run build:web');
  });
});
