// The app's webhook operations end to end: an emulator channel pointed at the app's receiver
// delivers a signed event; the receiver verifies it with that channel's secret and says so.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type AppService } from '../../../src/core/app/service';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';
import type { ReceivedWebhook } from '../../../src/core/webhooks/schema';

let app: AppService;
beforeAll(async () => {
  app = await startApp({
    dataDir: mkdtempSync(join(tmpdir(), 'app-webhooks-')),
    credentials: new MemoryCredentialStore(),
    keychain: { kind: 'memory', reason: 'test' },
    version: '0.0.0-test',
    webhookPort: 0,
  });
});
afterAll(() => app.close());

async function ok<T>(name: string, input: unknown = {}): Promise<T> {
  const result = await app.invoke(name, input);
  if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
  return result.value as T;
}

it('points a channel at the receiver, and a delivery arrives verified', async () => {
  const state = await ok<{ channels: { channelId: string }[] }>('emulator:getState');
  const channelId = state.channels[0]!.channelId;
  const receiver = await ok<{ url: string }>('webhooks:getReceiver');
  const set = await ok<{ url: string }>('webhooks:useReceiver', { channelId });
  expect(set.url).toBe(receiver.url);

  const arrived = new Promise<ReceivedWebhook>((resolve) => {
    const off = app.subscribe('webhooks:received', (w) => {
      off();
      resolve(w as ReceivedWebhook);
    });
  });
  const delivery = await ok<{ status: string; responseStatus: number }>('webhooks:sendTest', {
    channelId,
  });
  expect(delivery).toMatchObject({ status: 'SUCCESS', responseStatus: 200 });
  const webhook = await arrived;
  expect(webhook).toMatchObject({ signature: 'valid', channelId, path: '/webhook' });
  expect(webhook.json).toEqual({ destination: channelId, events: [] });

  const deliveries = await ok<{ id: number }[]>('webhooks:listDeliveries', { channelId });
  expect(deliveries).toHaveLength(1);
  const received = await ok<{ received: ReceivedWebhook[] }>('webhooks:getReceiver');
  expect(received.received.map((w) => w.id)).toEqual([webhook.id]);
  await ok('webhooks:clearReceived');
  expect((await ok<{ received: unknown[] }>('webhooks:getReceiver')).received).toEqual([]);
});

it('refuses a bad URL and an unknown channel, naming the field', async () => {
  const bad = await app.invoke('webhooks:setUrl', { channelId: 'x', url: 'ftp://nowhere' });
  expect(bad.ok).toBe(false);
  if (!bad.ok) expect(bad.error.fields?.map((f) => f.field).sort()).toEqual(['channelId', 'url']);
});
