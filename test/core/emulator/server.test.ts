// Behaviour every emulated endpoint shares: request ids, size limit, error bodies, the admin
// API, fault injection, the activity log and persistence across restarts.
import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/core/emulator/server';
import { harness, useEmulator } from '../../helpers/emulator';
import { rawRequest } from '../../helpers/raw-http';

const emu = useEmulator();
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('platform conventions', () => {
  it('puts a fresh x-platform-request-id on every answer, success or error', async () => {
    const answers = await Promise.all([
      emu().call('GET', '/things/v1/trial/products'),
      emu().call('GET', '/things/v1/trial/products', undefined, 'bad'),
      emu().call('GET', '/things/v1/devices/none'),
      emu().call('GET', '/no/such/path'),
    ]);
    const ids = answers.map((a) => a.headers.get('x-platform-request-id'));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers 413 to a body over 2 MB and accepts one just under', async () => {
    const big = { name: 'x'.repeat(2 * 1024 * 1024) };
    const res = await emu().call('POST', '/things/v1/trial/products', big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Request exceeds 2 MB.' });
    const under = await emu().call('POST', '/things/v1/trial/products', {
      name: 'x'.repeat(2 * 1024 * 1024 - 100),
    });
    expect(under.status).toBe(400); // reached validation: the name is too long, not too big
  });

  it('answers malformed JSON with 400 and a message', async () => {
    const res = await emu().call('POST', '/things/v1/trial/products', '{"name":');
    expect(res.status).toBe(400);
    expect(typeof (res.body as { message: unknown }).message).toBe('string');
  });

  it('reads the JSON headers with an empty body as no body: a call without fields answers, one with names them', async () => {
    const { emulator, token } = emu();
    const jsonHeaders = (line: string) =>
      rawRequest(new URL(emulator.url), [
        line,
        'Content-Type: application/json',
        `Authorization: Bearer ${token}`,
        'Content-Length: 0',
        'Connection: close',
      ]);
    const created = await emu().call('POST', '/things/v1/trial/products', { name: 'Empty' });
    const { id } = created.body as { id: string };
    expect((await jsonHeaders(`DELETE /things/v1/trial/products/${id} HTTP/1.1`)).status).toBe(204);
    const markAsRead = await jsonHeaders('POST /v2/bot/message/markAsRead HTTP/1.1');
    expect(markAsRead.status).toBe(400);
    expect(JSON.parse(markAsRead.body)).toMatchObject({ details: [{ property: 'chat' }] });
  });

  it('answers an unknown endpoint with 404 naming it', async () => {
    const res = await emu().call('GET', '/things/v9/nothing');
    expect(res.status).toBe(404);
    expect((res.body as { message: string }).message).toContain('/things/v9/nothing');
  });
});

describe('admin API', () => {
  it('seeds channels whose tokens authenticate, and users', async () => {
    const created = await emu().admin('POST', '/channels', { name: 'Bench B' });
    expect(created.status).toBe(201);
    const channel = created.body as {
      channelId: string;
      channelAccessToken: string;
      channelSecret: string;
    };
    expect(channel.channelId).toMatch(/^\d+$/);
    expect(channel.channelSecret).toMatch(/^[0-9a-f]{32}$/);
    const products = await emu().call(
      'GET',
      '/things/v1/trial/products',
      undefined,
      channel.channelAccessToken,
    );
    expect(products.status).toBe(200);

    const user = await emu().admin('POST', '/users', { displayName: 'Alice' });
    expect(user.status).toBe(201);
    expect((user.body as { userId: string }).userId).toMatch(/^U[0-9a-f]{32}$/);
    const state = await emu().admin('GET', '/state');
    expect(
      (state.body as { users: { displayName: string }[] }).users.map((u) => u.displayName),
    ).toContain('Alice');
  });

  it('moves the virtual clock forward only, and timestamps follow it', async () => {
    const before = (await emu().admin('GET', '/clock')).body as { now: number; offsetMs: number };
    const day = 24 * 3600 * 1000;
    const moved = await emu().admin('POST', '/clock/advance', { ms: day });
    expect((moved.body as { offsetMs: number }).offsetMs).toBe(before.offsetMs + day);
    const other = (await emu().admin('POST', '/channels', {})).body as {
      channelAccessToken: string;
    };
    const product = (
      await emu().call(
        'POST',
        '/things/v1/trial/products',
        { name: 'Clocked' },
        other.channelAccessToken,
      )
    ).body as { id: string };
    const set = await emu().call(
      'PUT',
      `/things/v1/products/${product.id}/scenario-set`,
      { autoClose: false, suppressionInterval: 0, scenarios: [] },
      other.channelAccessToken,
    );
    expect((set.body as { createdAt: number }).createdAt).toBeGreaterThanOrEqual(before.now + day);
    const back = await emu().admin('POST', '/clock/advance', { ms: -5 });
    expect(back.status).toBe(400);
    expect((back.body as { message: string }).message).toContain('ms');
  });

  it('injects status faults for the next N requests, then recovers', async () => {
    const add = await emu().admin('POST', '/faults', { kind: 'status', status: 429, count: 2 });
    expect(add.status).toBe(201);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await emu().call('GET', '/things/v1/trial/products')).status);
    expect(statuses).toEqual([429, 429, 200]);
  });

  it('injects 500 only under a path prefix', async () => {
    await emu().admin('POST', '/faults', {
      kind: 'status',
      status: 500,
      count: 1,
      pathPrefix: '/things/v1/devices',
    });
    expect((await emu().call('GET', '/things/v1/trial/products')).status).toBe(200);
    const res = await emu().call('GET', '/things/v1/devices/x');
    expect(res.status).toBe(500);
    expect(res.headers.get('x-platform-request-id')).toMatch(REQUEST_ID);
  });

  it('injects latency', async () => {
    await emu().admin('POST', '/faults', { kind: 'latency', latencyMs: 300, count: 1 });
    const t0 = performance.now();
    expect((await emu().call('GET', '/things/v1/trial/products')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('lists and clears pending faults; rejects a bad fault naming the field', async () => {
    await emu().admin('POST', '/faults', { kind: 'status', status: 503, count: 5 });
    expect(((await emu().admin('GET', '/faults')).body as unknown[]).length).toBe(1);
    expect((await emu().admin('DELETE', '/faults')).status).toBe(204);
    expect((await emu().admin('GET', '/faults')).body).toEqual([]);
    const bad = await emu().admin('POST', '/faults', { kind: 'status', status: 418 });
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toContain('status');
  });

  it('logs what it did: platform requests with status, request id and fault', async () => {
    await emu().admin('POST', '/faults', { kind: 'status', status: 500, count: 1 });
    const res = await emu().call('GET', '/things/v1/trial/products');
    const log = (await emu().admin('GET', '/log?limit=5')).body as {
      path: string;
      status: number;
      requestId: string;
      fault?: string;
    }[];
    const entry = log.find((e) => e.requestId === res.headers.get('x-platform-request-id'));
    expect(entry).toMatchObject({
      path: '/things/v1/trial/products',
      status: 500,
      fault: 'status 500',
    });
  });

  it('logs a credential in a request target masked', async () => {
    const secret = 'kX93hQ-leaked-token-Zr2w';
    await emu().call('GET', `/things/v1/trial/products?access_token=${secret}`);
    const log = (await emu().admin('GET', '/log?limit=5')).body as { path: string }[];
    expect(JSON.stringify(log)).not.toContain(secret);
    expect(log.at(-1)?.path).toBe('/things/v1/trial/products?access_token=•••• Zr2w');
  });
});

describe('persistence', () => {
  it('keeps channels, products, scenario sets and the clock across a restart with a data file', async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), 'emu-')), 'state.sqlite');
    const first = harness(await startEmulator({ dataFile }));
    const { id } = (await first.call('POST', '/things/v1/trial/products', { name: 'Kept' }))
      .body as { id: string };
    await first.call('PUT', `/things/v1/products/${id}/scenario-set`, {
      autoClose: false,
      suppressionInterval: 0,
      scenarios: [],
    });
    await first.admin('POST', '/clock/advance', { ms: 1000 });
    // It holds the channel's secret and access token: only its owner reads it.
    expect(statSync(dataFile).mode & 0o777).toBe(0o600);
    expect(statSync(`${dataFile}-wal`).mode & 0o777).toBe(0o600);
    await first.emulator.close();
    chmodSync(dataFile, 0o644);

    const second = harness(await startEmulator({ dataFile }));
    try {
      // A file an older version left readable by others is made its owner's again.
      expect(statSync(dataFile).mode & 0o777).toBe(0o600);
      expect(second.token).toBe(first.token);
      const list = await second.call('GET', '/things/v1/trial/products');
      expect((list.body as { name: string }[]).map((p) => p.name)).toEqual(['Kept']);
      const set = await second.call('GET', `/things/v1/products/${id}/scenario-set`);
      expect((set.body as { revision: number }).revision).toBe(1);
      expect(((await second.admin('GET', '/clock')).body as { offsetMs: number }).offsetMs).toBe(
        1000,
      );
      // numbering continues rather than reusing ids
      const next = (await second.call('POST', '/things/v1/trial/products', { name: 'Next' }))
        .body as { id: string };
      expect(next.id).not.toBe(id);
    } finally {
      await second.emulator.close();
    }
  });

  it('keeps nothing without a data file', async () => {
    const first = harness(await startEmulator());
    await first.call('POST', '/things/v1/trial/products', { name: 'Gone' });
    await first.emulator.close();
    const second = harness(await startEmulator());
    try {
      expect((await second.call('GET', '/things/v1/trial/products')).body).toEqual([]);
    } finally {
      await second.emulator.close();
    }
  });
});
