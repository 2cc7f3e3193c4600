// The app's webhook operations end to end: an emulator channel pointed at the app's receiver
// delivers a signed event; the receiver verifies it with that channel's secret and says so.
import { expect, it } from 'vitest';
import { useApp } from '../../helpers/app';
import type { ReceivedWebhook } from '../../../src/core/webhooks/schema';

const get = useApp('app-webhooks');
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);

it('points a channel at the receiver, and a delivery arrives verified', async () => {
  const state = await ok<{ channels: { channelId: string }[] }>('emulator:getState');
  const channelId = state.channels[0]!.channelId;
  const receiver = await ok<{ url: string }>('webhooks:getReceiver');
  const set = await ok<{ url: string }>('webhooks:useReceiver', { channelId });
  expect(set.url).toBe(receiver.url);

  const arrived = new Promise<ReceivedWebhook>((resolve) => {
    const off = get().app.subscribe('webhooks:received', (w) => {
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
  const bad = await get().app.invoke('webhooks:setUrl', { channelId: 'x', url: 'ftp://nowhere' });
  expect(bad.ok).toBe(false);
  if (!bad.ok) expect(bad.error.fields?.map((f) => f.field).sort()).toEqual(['channelId', 'url']);
});
