// The typed device-service client against the emulator: every method, typed errors with the
// request id, 429 backoff, the 2 MB guard, and tolerance of properties it does not know.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  PlatformError,
  PlatformUnreachableError,
  RequestTooLargeError,
} from '../../../../src/core/platform/http';
import { ThingsClient } from '../../../../src/core/platform/things/client';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
const FAST = { backoffMs: 5 };
let client: ThingsClient;

beforeEach(async () => {
  const channel = (await emu().admin('POST', '/channels', {})).body as {
    channelAccessToken: string;
  };
  client = new ThingsClient(
    { baseUrl: emu().emulator.url, channelAccessToken: channel.channelAccessToken },
    FAST,
  );
});

describe('ThingsClient', () => {
  it('covers the whole device service', async () => {
    const product = await client.createTrialProduct('Sensor');
    expect(product).toMatchObject({ name: 'Sensor', type: 'BLE' });
    expect(await client.listTrialProducts()).toEqual([product]);

    const set = await client.putScenarioSet(product.id, {
      autoClose: false,
      suppressionInterval: 0,
      scenarios: [
        { trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP', sleepMillis: 10 }] },
      ],
    });
    expect(set.revision).toBe(1);
    expect(await client.getScenarioSet(product.id)).toEqual(set);

    const userId = `U${'c'.repeat(32)}`;
    const { device } = (
      await emu().admin('POST', '/things/devices', {
        productId: product.id,
        productSpecificDeviceId: 'A1',
        userId,
      })
    ).body as { device: { id: string } };
    expect(await client.getDevice(device.id)).toEqual({
      id: device.id,
      productId: product.id,
      productSpecificDeviceId: 'A1',
    });
    expect((await client.getLinks(product.id, userId)).items).toHaveLength(1);

    await client.deleteScenarioSet(product.id);
    await client.deleteTrialProduct(product.id);
    expect(await client.listTrialProducts()).toEqual([]);
  });

  it('throws PlatformError with status, body and request id', async () => {
    const err = await client.getScenarioSet('missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    const pe = err as PlatformError;
    expect(pe.status).toBe(404);
    expect(pe.body).toEqual({ message: 'Product not found.' });
    expect(pe.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(pe.message).toContain('404');
  });

  it('retries after 429 and succeeds when the platform recovers', async () => {
    await emu().admin('POST', '/faults', { kind: 'status', status: 429, count: 2 });
    expect(await client.listTrialProducts()).toEqual([]);
  });

  it('gives up after its retries and reports the 429', async () => {
    await emu().admin('POST', '/faults', { kind: 'status', status: 429, count: 3 });
    const limited = new ThingsClient(
      { baseUrl: emu().emulator.url, channelAccessToken: emu().token },
      { backoffMs: 5, maxRetries: 2 },
    );
    const err = (await limited.listTrialProducts().catch((e: unknown) => e)) as PlatformError;
    expect(err.status).toBe(429);
    await emu().admin('DELETE', '/faults');
  });

  it('does not retry a 500', async () => {
    await emu().admin('POST', '/faults', { kind: 'status', status: 500, count: 1 });
    const err = (await client.listTrialProducts().catch((e: unknown) => e)) as PlatformError;
    expect(err.status).toBe(500);
    expect(await client.listTrialProducts()).toEqual([]);
  });

  it('refuses to send a body over 2 MB, before it reaches the platform', async () => {
    const before = ((await emu().admin('GET', '/log?limit=1000')).body as unknown[]).length;
    const err = await client
      .createTrialProduct('x'.repeat(2 * 1024 * 1024))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTooLargeError);
    expect(((await emu().admin('GET', '/log?limit=1000')).body as unknown[]).length).toBe(before);
  });

  it('reports an unreachable platform plainly', async () => {
    const dead = new ThingsClient({ baseUrl: 'http://127.0.0.1:9', channelAccessToken: 't' }, FAST);
    const err = await dead.listTrialProducts().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformUnreachableError);
    expect((err as Error).message).toContain('cannot reach http://127.0.0.1:9');
  });

  it('accepts properties it does not know and reports a body of the wrong shape', async () => {
    let body: unknown = [];
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const tolerant = new ThingsClient({ baseUrl: url, channelAccessToken: 't' }, FAST);
      body = {
        id: 'd1',
        productId: 'p1',
        productSpecificDeviceId: 's1',
        firmware: '2.0',
        extra: { a: 1 },
      };
      expect(await tolerant.getDevice('d1')).toMatchObject({
        id: 'd1',
        productSpecificDeviceId: 's1',
      });
      body = { id: 'd1' };
      await expect(tolerant.getDevice('d1')).rejects.toThrow(/not the documented shape/);
    } finally {
      server.close();
    }
  });
});
