// The platform's own Node SDK pointed at the emulator with `baseURL`, as a developer would use it:
// its messaging, shop and module clients on their success and documented error paths, and its
// webhook middleware verifying the emulator's real deliveries, read through the SDK's own event
// types (docs/decisions.md, "Module events typed clients can read").
import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  HTTPFetchError,
  messagingApi,
  middleware,
  moduleAttach,
  moduleOperation,
  shop,
  validateSignature,
  webhook,
} from '@line/bot-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER } from '../../../../src/core/webhooks/signature';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
const BOT_HEADER = 'X-Platform-Bot-User-Id';
const REDIRECT = 'https://module.example.com/callback';

interface Channel {
  channelId: string;
  channelSecret: string;
  channelAccessToken: string;
}

const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await emu().admin(method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body as T;
};
const newUser = async () => (await admin<{ userId: string }>('POST', '/users', {})).userId;

/** The SDK's failure for a call, with the status and parsed body it carries. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HTTPFetchError);
  const { status, body } = error as HTTPFetchError;
  return { status, body: JSON.parse(body) };
}

/** A bot's webhook receiver: the SDK's middleware in front, typed events behind it. */
class Receiver {
  /** Each delivery in arrival order: its events, or the middleware's reason for refusing it. */
  readonly deliveries: (webhook.Event[] | string)[] = [];
  private server: Server | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly channelSecret: string) {}

  async start(): Promise<string> {
    const verify = middleware({ channelSecret: this.channelSecret });
    this.server = createServer((req, res) => {
      void verify(req as Parameters<typeof verify>[0], res, (err) => {
        if (err) {
          this.deliveries.push(err.message);
          res.writeHead(401).end();
        } else {
          this.deliveries.push((req as unknown as { body: webhook.CallbackRequest }).body.events);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
  }

  /** The `n`th delivery (from 1), once it has arrived. */
  async nth(n: number): Promise<webhook.Event[] | string> {
    while (this.deliveries.length < n)
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.deliveries[n - 1]!;
  }

  /** The one event of the `n`th delivery, which the middleware must have accepted. */
  async event(n: number): Promise<webhook.Event> {
    const delivery = await this.nth(n);
    if (typeof delivery === 'string') throw new Error(`delivery ${n} refused: ${delivery}`);
    expect(delivery).toHaveLength(1);
    return delivery[0]!;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** What a typed client makes of an event: only documented values reach its switches. */
function read(event: webhook.Event): string {
  switch (event.type) {
    case 'module': {
      const content = event.module;
      if (content.type === 'attached') return `attached ${content.scopes.join(' ')}`;
      if (content.type === 'detached') {
        const reasons: Record<webhook.DetachedModuleContent.ReasonEnum, string> = {
          bot_deleted: 'account deleted',
        };
        return `detached: ${reasons[content.reason] ?? 'UNDOCUMENTED'}`;
      }
      return 'UNDOCUMENTED module content';
    }
    case 'activated':
      return `activated until ${new Date(event.chatControl.expireAt).toISOString()}`;
    case 'deactivated':
      return 'deactivated';
    default:
      return `other ${event.type}`;
  }
}

describe('messaging and shop clients', () => {
  let channel: Channel;
  let messaging: messagingApi.MessagingApiClient;
  let shopClient: shop.ShopClient;
  beforeAll(async () => {
    channel = await admin<Channel>('POST', '/channels', { name: 'SDK' });
    const config = { channelAccessToken: channel.channelAccessToken, baseURL: emu().emulator.url };
    messaging = new messagingApi.MessagingApiClient(config);
    shopClient = new shop.ShopClient(config);
  });

  it('marks as read, and the 400 for an unknown user reaches the caller', async () => {
    const userId = await newUser();
    expect(await messaging.markMessagesAsRead({ chat: { userId } })).toEqual({});
    const bad = await refusal(messaging.markMessagesAsRead({ chat: { userId: 'nobody' } }));
    expect(bad.status).toBe(400);
  });

  it('sends a notification message by phone and reads the count; 422 for an unknown number', async () => {
    await admin('PUT', '/notifications/users', { phoneNumber: '+66 81 234 0001' });
    const to = createHash('sha256').update('+66812340001').digest('hex');
    await messaging.pushMessagesByPhone({ to, messages: [{ type: 'text', text: 'Parcel' }] });
    const stats = await messaging.getPNPMessageStatistics('20180330');
    expect(stats).toEqual({ status: 'out_of_service' });
    const unknown = createHash('sha256').update('+66812349999').digest('hex');
    const refused = await refusal(
      messaging.pushMessagesByPhone({ to: unknown, messages: [{ type: 'text', text: 'x' }] }),
    );
    expect(refused.status).toBe(422);
  });

  it('sends a mission sticker, and each documented error reaches the caller with its message', async () => {
    const to = await newUser();
    const mission = (productId: string) =>
      shopClient.missionStickerV3({
        to,
        productId,
        productType: 'STICKER',
        sendPresentMessage: false,
      });
    await mission('1000001');
    expect(await refusal(mission('999999'))).toEqual({
      status: 404,
      body: { message: 'not found' },
    });
    expect(await refusal(mission('1000004'))).toEqual({
      status: 400,
      body: { message: 'illegal argument' },
    });
    expect(await refusal(mission('1000002'))).toEqual({
      status: 400,
      body: { message: 'not in sales period' },
    });
    await admin('PUT', `/mission-stickers/permissions/${channel.channelId}`, { allowed: false });
    expect(await refusal(mission('1000001'))).toEqual({
      status: 403,
      body: { message: 'not allowed to use the API' },
    });
  });

  it('a wrong channel token is a 401 whose challenge names the error', async () => {
    const stranger = new messagingApi.MessagingApiClient({
      channelAccessToken: 'not-a-token',
      baseURL: emu().emulator.url,
    });
    const error = (await stranger
      .markMessagesAsRead({ chat: { userId: await newUser() } })
      .catch((e: unknown) => e)) as HTTPFetchError;
    expect(error.status).toBe(401);
    expect(error.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="Authentication failed: the channel access token is not valid."',
    );
  });
});

describe('module clients and the webhook middleware', () => {
  let module: Channel;
  let receiver: Receiver;
  let botId: string;
  let userId: string;
  let operations: moduleOperation.LineModuleClient;
  beforeAll(async () => {
    module = await admin<Channel>('POST', '/modules/channels', { name: 'SDK module' });
    receiver = new Receiver(module.channelSecret);
    await admin('PUT', '/webhooks/settings', { signatureHeader: 'x-line-signature' });
    await admin('PUT', '/webhooks/urls', {
      channelId: module.channelId,
      url: await receiver.start(),
    });
    botId = (await admin<{ botId: string }>('POST', '/modules/bots', { displayName: 'Cafe' }))
      .botId;
    userId = await newUser();
    await admin('POST', `/modules/bots/${botId}/chats`, { chatId: userId });
    operations = new moduleOperation.LineModuleClient({
      channelAccessToken: module.channelAccessToken,
      baseURL: emu().emulator.url,
      defaultHeaders: { [BOT_HEADER]: botId },
    });
  });
  afterAll(() => receiver.close());

  it('attaches with the attach client, and the middleware verifies the attached event', async () => {
    const { code } = await admin<{ code: string }>('POST', '/modules/authorize', {
      moduleChannelId: module.channelId,
      botId,
      redirectUri: REDIRECT,
    });
    const attach = new moduleAttach.LineModuleAttachClient({
      channelAccessToken: module.channelAccessToken,
      baseURL: emu().emulator.url,
    });
    const attached = await attach.attachModule(
      'authorization_code',
      code,
      REDIRECT,
      undefined,
      module.channelId,
      module.channelSecret,
    );
    expect(attached.bot_id).toBe(botId);
    expect(read(await receiver.event(1))).toBe('attached message:send message:receive');
    const again = await refusal(
      attach.attachModule(
        'authorization_code',
        code,
        REDIRECT,
        undefined,
        module.channelId,
        module.channelSecret,
      ),
    );
    expect(again.status).toBe(400);
  });

  it('lists bots, acquires (with and without a time limit) and releases control, each event typed', async () => {
    expect((await operations.getModules()).bots.map((b) => b.userId)).toEqual([botId]);
    expect(await refusal(operations.getModules('not-a-token'))).toMatchObject({ status: 400 });

    const { now } = await admin<{ now: number }>('GET', '/clock');
    await operations.acquireChatControl(userId, { expired: true, ttl: 60 });
    const limited = await receiver.event(2);
    expect(limited.type).toBe('activated');
    const { expireAt } = (limited as webhook.ActivatedEvent).chatControl;
    expect(expireAt - now).toBeGreaterThanOrEqual(60_000);
    expect(expireAt - now).toBeLessThan(70_000);

    await operations.acquireChatControl(userId, { expired: false });
    expect(read(await receiver.event(3))).toBe('activated until +275760-09-13T00:00:00.000Z');

    await operations.releaseChatControl(userId);
    expect(read(await receiver.event(4))).toBe('deactivated');
    expect(await refusal(operations.acquireChatControl('not-a-chat'))).toMatchObject({
      status: 400,
    });
  });

  it('gets the documented 404 for a chat the account is not in and 423 for a fresh acquire by another channel', async () => {
    const stranger = await newUser();
    expect(await refusal(operations.acquireChatControl(stranger))).toEqual({
      status: 404,
      body: { message: `The user ${stranger} has not added the account as a friend.` },
    });
    const rival = await admin<Channel>('POST', '/modules/channels', { name: 'Rival' });
    const { code } = await admin<{ code: string }>('POST', '/modules/authorize', {
      moduleChannelId: rival.channelId,
      botId,
      redirectUri: REDIRECT,
    });
    await new moduleAttach.LineModuleAttachClient({
      channelAccessToken: rival.channelAccessToken,
      baseURL: emu().emulator.url,
    }).attachModule(
      'authorization_code',
      code,
      REDIRECT,
      undefined,
      rival.channelId,
      rival.channelSecret,
    );
    // Past the few seconds this channel's own acquires hold the chat for.
    await admin('POST', '/clock/advance', { ms: 6_000 });
    await new moduleOperation.LineModuleClient({
      channelAccessToken: rival.channelAccessToken,
      baseURL: emu().emulator.url,
      defaultHeaders: { [BOT_HEADER]: botId },
    }).acquireChatControl(userId);
    expect(await refusal(operations.acquireChatControl(userId))).toMatchObject({ status: 423 });
  });

  it('detaches: 200 and a detached event with the documented reason, as the deletion detach sends', async () => {
    await operations.detachModule({ botId });
    expect(read(await receiver.event(5))).toBe('detached: account deleted');
    expect(await refusal(operations.detachModule({ botId }))).toMatchObject({ status: 400 });
    const other = (await admin<{ botId: string }>('POST', '/modules/bots', { displayName: 'Bar' }))
      .botId;
    const { code } = await admin<{ code: string }>('POST', '/modules/authorize', {
      moduleChannelId: module.channelId,
      botId: other,
      redirectUri: REDIRECT,
    });
    await new moduleAttach.LineModuleAttachClient({
      channelAccessToken: module.channelAccessToken,
      baseURL: emu().emulator.url,
    }).attachModule(
      'authorization_code',
      code,
      REDIRECT,
      undefined,
      module.channelId,
      module.channelSecret,
    );
    expect(read(await receiver.event(6))).toBe('attached message:send message:receive');
    await admin('POST', `/modules/bots/${other}/delete`);
    await admin('POST', '/clock/advance', { ms: 90 * 86_400_000 });
    await admin('GET', '/modules/state');
    expect(read(await receiver.event(7))).toBe('detached: account deleted');
    // One event per detach, and nothing else between.
    expect(receiver.deliveries).toHaveLength(7);
  });

  it('by default signs in the emulator’s own header, which validateSignature accepts and the middleware does not read', async () => {
    await admin('PUT', '/webhooks/settings', { signatureHeader: SIGNATURE_HEADER });
    const delivery = await admin<{ body: string; signature: string }>('POST', '/webhooks/test', {
      channelId: module.channelId,
    });
    expect(validateSignature(delivery.body, module.channelSecret, delivery.signature)).toBe(true);
    expect(await receiver.nth(8)).toBe('no signature');
  });
});
