// Module channels through HTTP: attach (form body, Basic or client_secret, PKCE, fields that
// must match the authorization URL), detach, the chat-control state table on the virtual
// clock, the bot list with 24-hour continuation tokens, and every module webhook event.
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../../src/core/webhooks/signature';
import { ModulesClient } from '../../../../src/core/platform/modules/client';
import { request, useEmulator } from '../../../helpers/emulator';
import { rawRequest } from '../../../helpers/raw-http';

const emu = useEmulator();
const HEADER = 'X-Platform-Bot-User-Id';

interface Channel {
  channelId: string;
  channelSecret: string;
  channelAccessToken: string;
}
interface Delivery {
  channelId: string;
  kind: string;
  body: string;
  signature: string;
}

const admin = (method: string, path: string, body?: unknown) => emu().admin(method, path, body);

async function moduleChannel(name = 'Module'): Promise<Channel> {
  return (await admin('POST', '/modules/channels', { name })).body as Channel;
}
async function account(displayName = 'Cafe'): Promise<string> {
  return ((await admin('POST', '/modules/bots', { displayName })).body as { botId: string }).botId;
}
async function friend(botId: string): Promise<string> {
  const { userId } = (await admin('POST', '/users', { displayName: 'Friend' })).body as {
    userId: string;
  };
  await admin('POST', `/modules/bots/${botId}/chats`, { chatId: userId });
  return userId;
}

/** POSTs a form to the attach endpoint (the shared helper only sends JSON). */
async function form(
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const body = new URLSearchParams(
    Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
  const res = await fetch(emu().emulator.url + '/module/auth/v1/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}
const basic = (c: Channel) => ({
  authorization: `Basic ${Buffer.from(`${c.channelId}:${c.channelSecret}`).toString('base64')}`,
});

async function authorize(c: Channel, botId: string, extra: Record<string, unknown> = {}) {
  const res = await admin('POST', '/modules/authorize', {
    moduleChannelId: c.channelId,
    botId,
    redirectUri: 'https://module.example.com/callback',
    ...extra,
  });
  expect(res.status).toBe(201);
  return (res.body as { code: string }).code;
}

async function attach(c: Channel, botId: string) {
  const code = await authorize(c, botId);
  const res = await form(
    { grant_type: 'authorization_code', code, redirect_uri: 'https://module.example.com/callback' },
    basic(c),
  );
  expect(res.status).toBe(200);
  return res.body as { bot_id: string; scopes: string[] };
}

/** Deliveries to a channel, oldest first, waiting until there are at least `count`. */
async function deliveries(channelId: string, count: number): Promise<Delivery[]> {
  let list: Delivery[] = [];
  for (let i = 0; i < 100; i++) {
    list = ((await admin('GET', `/webhooks?channelId=${channelId}`)).body as Delivery[]).reverse();
    if (list.length >= count) return list;
    await new Promise((r) => setTimeout(r, 20));
  }
  return list;
}
const events = (list: Delivery[]) =>
  list.map((d) => (JSON.parse(d.body) as { events: Record<string, unknown>[] }).events[0]!);

const call = (
  c: Channel,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  request(emu().emulator.url + path, method, body, {
    authorization: `Bearer ${c.channelAccessToken}`,
    ...headers,
  });
const acquire = (c: Channel, botId: string, chatId: string, body: unknown = {}) =>
  call(c, 'POST', `/v2/bot/chat/${chatId}/control/acquire`, body, { [HEADER]: botId });
const release = (c: Channel, botId: string, chatId: string) =>
  call(c, 'POST', `/v2/bot/chat/${chatId}/control/release`, {}, { [HEADER]: botId });
const state = async () =>
  (await admin('GET', '/modules/state')).body as {
    controls: { botId: string; chatId: string; moduleChannelId: string; expireAt: number | null }[];
    attachments: { moduleChannelId: string; botId: string; state: string }[];
  };
const advance = (ms: number) => admin('POST', '/clock/advance', { ms });

describe('attach', () => {
  it('exchanges a code with Basic auth: 200 with bot_id and scopes, and an attached event', async () => {
    const c = await moduleChannel();
    const botId = await account();
    const res = await attach(c, botId);
    expect(res).toEqual({
      bot_id: botId,
      scope: 'message:send message:receive',
      scopes: ['message:send', 'message:receive'],
    });
    const [delivery] = await deliveries(c.channelId, 1);
    expect(delivery!.kind).toBe('module.attached');
    expect(verifySignature(delivery!.body, c.channelSecret, delivery!.signature)).toBe(true);
    const envelope = JSON.parse(delivery!.body) as Record<string, unknown>;
    expect(envelope).toEqual({
      destination: botId,
      events: [
        {
          type: 'module',
          module: { type: 'attached', botId, scopes: ['message:send', 'message:receive'] },
          webhookEventId: expect.stringMatching(/^[0-9A-Z]{26}$/),
          deliveryContext: { isRedelivery: false },
          timestamp: expect.any(Number),
          mode: 'active',
        },
      ],
    });
  });

  it('takes client_id and client_secret in the form, with PKCE S256 and matching optional fields', async () => {
    const c = await moduleChannel();
    const botId = await account();
    const verifier = 'v'.repeat(50);
    const code = await authorize(c, botId, {
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      scope: 'message:send',
      region: 'TH',
      brandType: 'premium',
    });
    const base = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://module.example.com/callback',
      client_id: c.channelId,
      client_secret: c.channelSecret,
    };
    const wrongVerifier = await form({ ...base, code_verifier: 'w'.repeat(50) });
    expect(wrongVerifier.status).toBe(400);
    const wrongRegion = await form({ ...base, code_verifier: verifier, region: 'JP' });
    expect(wrongRegion.status).toBe(400);
    expect(wrongRegion.body).toMatchObject({ message: expect.stringContaining('region') });
    const ok = await form({
      ...base,
      code_verifier: verifier,
      region: 'TH',
      basic_search_id: '@x',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ bot_id: botId, scopes: ['message:send'] });
    // Single use.
    const again = await form({ ...base, code_verifier: verifier });
    expect([again.status, (again.body as { error: string }).error]).toEqual([400, 'invalid_grant']);
  });

  it.each([
    ['a JSON body', 'json', 400],
    ['no grant_type', { grant_type: undefined }, 400],
    ['another grant_type', { grant_type: 'client_credentials' }, 400],
    ['no code', { code: undefined }, 400],
    ['another redirect_uri', { redirect_uri: 'https://evil.example.com/' }, 400],
    ['an unknown code', { code: 'nope' }, 400],
    ['no client authentication', { noAuth: true }, 400],
    ['Basic and client_secret both', { client_id: 'x', client_secret: 'y' }, 400],
    ['a wrong secret', { wrongSecret: true }, 403],
    ['a code_verifier the authorization did not ask for', { code_verifier: 'v'.repeat(43) }, 400],
  ])('refuses %s (%s) and attaches nothing', async (_, change, status) => {
    const c = await moduleChannel();
    const botId = await account();
    const code = await authorize(c, botId);
    let res;
    if (change === 'json') {
      res = await request(emu().emulator.url + '/module/auth/v1/token', 'POST', { code }, basic(c));
    } else {
      const { noAuth, wrongSecret, ...fields } = change as Record<string, string | boolean>;
      const auth = noAuth ? {} : wrongSecret ? basic({ ...c, channelSecret: 'wrong' }) : basic(c);
      res = await form(
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'https://module.example.com/callback',
          ...(fields as Record<string, string | undefined>),
        },
        auth,
      );
    }
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect((await state()).attachments.filter((a) => a.botId === botId)).toEqual([]);
  });

  it('answers 403 for a channel that is not a module channel, and for a suspended account', async () => {
    const plain = (await admin('POST', '/channels', { name: 'Plain' })).body as Channel;
    const c = await moduleChannel();
    const botId = await account();
    const code = await authorize(c, botId);
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://module.example.com/callback',
    };
    expect((await form(fields, basic(plain))).status).toBe(403);
    await admin('POST', `/modules/bots/${botId}/suspend`);
    expect((await form(fields, basic(c))).status).toBe(403);
  });

  it('refuses an expired code (10 minutes on the virtual clock)', async () => {
    const c = await moduleChannel();
    const botId = await account();
    const code = await authorize(c, botId);
    await advance(10 * 60_000);
    const res = await form(
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://module.example.com/callback',
      },
      basic(c),
    );
    expect(res.body).toMatchObject({
      error: 'invalid_grant',
      message: expect.stringContaining('expired'),
    });
  });
});

describe('detach', () => {
  it('detaches an attached module: 200, a detached event with the documented reason bot_deleted, and it is gone from the list', async () => {
    const c = await moduleChannel();
    const botId = await account();
    await attach(c, botId);
    const res = await call(c, 'POST', '/v2/bot/channel/detach', { botId });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(events(await deliveries(c.channelId, 2)).map((e) => e.module)).toEqual([
      { type: 'attached', botId, scopes: expect.any(Array) },
      { type: 'detached', botId, reason: 'bot_deleted' },
    ]);
    expect((await call(c, 'GET', '/v2/bot/list')).body).toEqual({ bots: [] });
    // A second detach: the module is no longer attached.
    expect((await call(c, 'POST', '/v2/bot/channel/detach', { botId })).status).toBe(400);
  });

  it('answers 400 for a bad or unknown bot ID and for a non-module channel token', async () => {
    const c = await moduleChannel();
    const plain = (await admin('POST', '/channels', { name: 'Plain' })).body as Channel;
    expect((await call(c, 'POST', '/v2/bot/channel/detach', { botId: 'x' })).status).toBe(400);
    expect((await call(c, 'POST', '/v2/bot/channel/detach', {})).status).toBe(400);
    expect(
      (await call(c, 'POST', '/v2/bot/channel/detach', { botId: `U${'1'.repeat(32)}` })).status,
    ).toBe(400);
    expect(
      (await call(plain, 'POST', '/v2/bot/channel/detach', { botId: `U${'1'.repeat(32)}` })).status,
    ).toBe(400);
  });
});

describe('chat control', () => {
  let a: Channel;
  let b: Channel;
  let botId: string;
  let userId: string;
  beforeEach(async () => {
    [a, b] = [await moduleChannel('A'), await moduleChannel('B')];
    botId = await account();
    await attach(a, botId);
    await attach(b, botId);
    userId = await friend(botId);
  });
  const controller = async () =>
    (await state()).controls.find((c) => c.botId === botId && c.chatId === userId);

  it('standby → active with activated (expireAt = now + ttl); returns to primary when ttl passes, silently', async () => {
    const { now } = (await admin('GET', '/modules/state')).body as { now: number };
    const res = await acquire(a, botId, userId, { ttl: 60 });
    expect([res.status, res.body]).toEqual([200, {}]);
    const list = await deliveries(a.channelId, 2);
    const activated = events(list)[1]!;
    expect(activated).toMatchObject({
      type: 'activated',
      source: { type: 'user', userId },
      mode: 'active',
      deliveryContext: { isRedelivery: false },
    });
    const expireAt = (activated.chatControl as { expireAt: number }).expireAt;
    expect(expireAt - now).toBeGreaterThanOrEqual(60_000);
    expect(expireAt - now).toBeLessThan(70_000);
    expect((await controller())?.moduleChannelId).toBe(a.channelId);
    await advance(59_000);
    expect((await controller())?.moduleChannelId).toBe(a.channelId);
    await advance(1_500);
    expect(await controller()).toBeUndefined();
    // No event for the expiry.
    await new Promise((r) => setTimeout(r, 100));
    expect((await deliveries(a.channelId, 2)).length).toBe(2);
  });

  it('uses ttl 3600 by default, and no time limit with expired false', async () => {
    const { now } = (await admin('GET', '/modules/state')).body as { now: number };
    await acquire(a, botId, userId);
    const expireAt = (await controller())?.expireAt as number;
    expect(expireAt - now).toBeGreaterThanOrEqual(3_600_000);
    expect(expireAt - now).toBeLessThan(3_610_000);
    await acquire(a, botId, userId, { expired: false, ttl: 5 });
    expect((await controller())?.expireAt).toBeNull();
    const activated = events(await deliveries(a.channelId, 3))[2]!;
    // The latest time a Date holds: a number, as typed clients expect, that never passes.
    expect(activated).toMatchObject({ type: 'activated', chatControl: { expireAt: 8.64e15 } });
    expect(new Date((activated.chatControl as { expireAt: number }).expireAt).getTime()).toBe(
      8.64e15,
    );
    await advance(400 * 86_400_000);
    expect((await controller())?.moduleChannelId).toBe(a.channelId);
  });

  it('another channel acquiring: 423 within a few seconds, then active with deactivated to the previous one', async () => {
    await acquire(a, botId, userId);
    const locked = await acquire(b, botId, userId);
    expect(locked.status).toBe(423);
    expect((await controller())?.moduleChannelId).toBe(a.channelId);
    await advance(5_000);
    expect((await acquire(b, botId, userId)).status).toBe(200);
    expect((await controller())?.moduleChannelId).toBe(b.channelId);
    expect(events(await deliveries(a.channelId, 3))[2]).toMatchObject({
      type: 'deactivated',
      source: { type: 'user', userId },
    });
    expect(events(await deliveries(b.channelId, 2))[1]).toMatchObject({ type: 'activated' });
  });

  /** A POST with the documented JSON headers and no body, as a client writing from the document sends it. */
  const bodiless = (c: Channel, action: 'acquire' | 'release', contentLength: boolean) =>
    rawRequest(new URL(emu().emulator.url), [
      `POST /v2/bot/chat/${userId}/control/${action} HTTP/1.1`,
      'Content-Type: application/json',
      `Authorization: Bearer ${c.channelAccessToken}`,
      `${HEADER}: ${botId}`,
      ...(contentLength ? ['Content-Length: 0'] : []),
      'Connection: close',
    ]);

  it.each([
    ['with Content-Length: 0', true],
    ['without Content-Length', false],
  ])(
    'acquire (its defaults) and release take the JSON headers and no body, %s',
    async (_, contentLength) => {
      const { now } = (await admin('GET', '/modules/state')).body as { now: number };
      const acquired = await bodiless(a, 'acquire', contentLength);
      expect([acquired.status, acquired.body]).toEqual([200, '{}']);
      const expireAt = (await controller())?.expireAt as number;
      expect(expireAt - now).toBeGreaterThanOrEqual(3_600_000);
      expect(expireAt - now).toBeLessThan(3_610_000);
      const released = await bodiless(a, 'release', contentLength);
      expect([released.status, released.body]).toEqual([200, '{}']);
      expect(await controller()).toBeUndefined();
    },
  );

  it("the project's client releases with the document's headers and no body", async () => {
    await acquire(a, botId, userId);
    const sent: RequestInit[] = [];
    const client = new ModulesClient(
      { baseUrl: emu().emulator.url, channelAccessToken: a.channelAccessToken },
      { fetch: (url, init) => (sent.push(init ?? {}), fetch(url, init)) },
    );
    await client.releaseControl(userId, botId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toBeUndefined();
    expect(sent[0]!.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(await controller()).toBeUndefined();
  });

  it('423 within 5 s of another channel acquiring, even after it released control', async () => {
    expect((await acquire(b, botId, userId)).status).toBe(200);
    expect((await release(b, botId, userId)).status).toBe(200);
    expect(await controller()).toBeUndefined();
    const locked = await acquire(a, botId, userId);
    expect(locked.status).toBe(423);
    expect(await controller()).toBeUndefined();
    // The releasing channel itself may take it back at once.
    expect((await acquire(b, botId, userId)).status).toBe(200);
    expect((await release(b, botId, userId)).status).toBe(200);
    // The virtual clock also runs in real time: a margin for a loaded machine.
    await advance(3_000);
    expect((await acquire(a, botId, userId)).status).toBe(423);
    await advance(2_000);
    expect((await acquire(a, botId, userId)).status).toBe(200);
    expect((await controller())?.moduleChannelId).toBe(a.channelId);
  });

  it.each([0, 31_536_001, 1.5, 'soon'])(
    'ignores ttl %s when expired is false: no time limit',
    async (ttl) => {
      const res = await acquire(a, botId, userId, { expired: false, ttl });
      expect([res.status, res.body]).toEqual([200, {}]);
      expect((await controller())?.expireAt).toBeNull();
    },
  );

  it('release returns control to primary with deactivated; releasing again changes nothing', async () => {
    await acquire(a, botId, userId);
    const res = await release(a, botId, userId);
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(await controller()).toBeUndefined();
    expect(events(await deliveries(a.channelId, 3))[2]).toMatchObject({ type: 'deactivated' });
    expect((await release(a, botId, userId)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect((await deliveries(a.channelId, 3)).length).toBe(3);
  });

  it.each([
    ['ttl above one year', { ttl: 31_536_001 }],
    ['ttl zero', { ttl: 0 }],
    ['ttl as a string', { ttl: '60' }],
    ['expired as a string', { expired: 'no' }],
  ])('answers 400 for %s and changes nothing', async (_, body) => {
    const res = await acquire(a, botId, userId, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: expect.any(String), details: [expect.any(Object)] });
    expect(await controller()).toBeUndefined();
  });

  it('accepts the one-year maximum ttl', async () => {
    expect((await acquire(a, botId, userId, { ttl: 31_536_000 })).status).toBe(200);
  });

  it('answers 400 for a bad chatId, 404 for a user who is not a friend or a group the account is not in', async () => {
    expect((await acquire(a, botId, 'nobody')).status).toBe(400);
    expect((await release(a, botId, 'nobody')).status).toBe(400);
    const stranger = (await admin('POST', '/users', { displayName: 'Stranger' })).body as {
      userId: string;
    };
    const notFriend = await acquire(a, botId, stranger.userId);
    expect(notFriend.status).toBe(404);
    expect(notFriend.body).toMatchObject({ message: expect.stringContaining('friend') });
    expect((await acquire(a, botId, `C${'2'.repeat(32)}`)).status).toBe(404);
    await admin('POST', `/modules/bots/${botId}/chats`, { chatId: `C${'2'.repeat(32)}` });
    expect((await acquire(a, botId, `C${'2'.repeat(32)}`)).status).toBe(200);
    expect(events(await deliveries(a.channelId, 2))[1]).toMatchObject({
      source: { type: 'group', groupId: `C${'2'.repeat(32)}` },
    });
  });

  it('needs the bot-user-ID header, of an account the caller is attached to; its name is configurable', async () => {
    const noHeader = await call(a, 'POST', `/v2/bot/chat/${userId}/control/acquire`, {});
    expect(noHeader.status).toBe(400);
    expect(noHeader.body).toMatchObject({ message: expect.stringContaining(HEADER) });
    const other = await account('Other');
    expect((await acquire(a, other, userId)).status).toBe(400);
    await admin('PUT', '/modules/settings', { botUserIdHeader: 'X-Partner-Bot' });
    try {
      expect((await acquire(a, botId, userId)).status).toBe(400);
      const renamed = await call(
        a,
        'POST',
        `/v2/bot/chat/${userId}/control/acquire`,
        {},
        { 'X-Partner-Bot': botId },
      );
      expect(renamed.status).toBe(200);
    } finally {
      await admin('PUT', '/modules/settings', { botUserIdHeader: HEADER });
    }
  });

  it('answers 403 to a channel that is not a module channel', async () => {
    const plain = (await admin('POST', '/channels', { name: 'Plain' })).body as Channel;
    expect((await acquire(plain, botId, userId)).status).toBe(403);
    expect((await call(plain, 'GET', '/v2/bot/list')).status).toBe(403);
  });
});

describe('account lifecycle events', () => {
  it('suspend sends botSuspended to modules (not the primary), resume sends botResumed', async () => {
    const c = await moduleChannel();
    const botId = await account();
    await attach(c, botId);
    const userId = await friend(botId);
    expect((await admin('POST', `/modules/bots/${botId}/suspend`)).status).toBe(200);
    expect(events(await deliveries(c.channelId, 2))[1]).toMatchObject({
      type: 'botSuspended',
      mode: 'active',
    });
    expect((await state()).attachments.find((x) => x.botId === botId)?.state).toBe('suspended');
    expect((await acquire(c, botId, userId)).status).toBe(403);
    expect((await call(c, 'GET', '/v2/bot/list')).body).toEqual({ bots: [] });
    expect((await admin('POST', `/modules/bots/${botId}/suspend`)).status).toBe(409);
    await admin('POST', `/modules/bots/${botId}/resume`);
    expect(events(await deliveries(c.channelId, 3))[2]).toMatchObject({ type: 'botResumed' });
    expect((await acquire(c, botId, userId)).status).toBe(200);
    const primary = (await state()) as unknown as {
      bots: { botId: string; primaryChannelId: string }[];
    };
    const primaryId = primary.bots.find((x) => x.botId === botId)!.primaryChannelId;
    expect(await deliveries(primaryId, 0)).toEqual([]);
  });

  it('account deletion detaches only after three months, with reason bot_deleted', async () => {
    const c = await moduleChannel();
    const botId = await account();
    await attach(c, botId);
    await admin('POST', `/modules/bots/${botId}/delete`);
    await advance(89 * 86_400_000);
    expect((await state()).attachments.find((x) => x.botId === botId)?.state).toBe('attached');
    await advance(86_400_000);
    expect((await state()).attachments.find((x) => x.botId === botId)?.state).toBe('detached');
    expect(events(await deliveries(c.channelId, 2))[1]).toMatchObject({
      type: 'module',
      module: { type: 'detached', botId, reason: 'bot_deleted' },
    });
  });
});

describe('bot list', () => {
  it('pages with limit ≤ 100 and continuation tokens that expire after 24 hours', async () => {
    const c = await moduleChannel();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const botId = await account(`Shop ${i}`);
      await attach(c, botId);
      ids.push(botId);
    }
    const first = await call(c, 'GET', '/v2/bot/list?limit=2');
    const page1 = first.body as {
      bots: { userId: string; basicId: string; displayName: string }[];
      next: string;
    };
    expect(page1.bots.map((b) => b.userId)).toEqual(ids.slice(0, 2));
    expect(page1.bots[0]).toEqual({
      userId: ids[0],
      basicId: expect.stringMatching(/^@/),
      displayName: 'Shop 0',
    });
    const page2 = (await call(c, 'GET', `/v2/bot/list?limit=2&start=${page1.next}`))
      .body as typeof page1;
    expect(page2.bots.map((b) => b.userId)).toEqual(ids.slice(2, 4));
    const page3 = (await call(c, 'GET', `/v2/bot/list?limit=2&start=${page2.next}`))
      .body as typeof page1;
    expect(page3).toEqual({ bots: [expect.objectContaining({ userId: ids[4] })] });
    expect(((await call(c, 'GET', '/v2/bot/list')).body as typeof page1).bots).toHaveLength(5);

    await advance(86_400_000);
    const expired = await call(c, 'GET', `/v2/bot/list?limit=2&start=${page1.next}`);
    expect(expired.status).toBe(400);
    expect(expired.body).toMatchObject({ message: expect.stringContaining('continuation token') });
  });

  it.each(['0', '101', 'abc', '2.5'])('answers 400 for limit=%s', async (limit) => {
    const c = await moduleChannel();
    const res = await call(c, 'GET', `/v2/bot/list?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [expect.objectContaining({ property: 'limit' })] });
  });

  it("answers 400 for an unknown token or another channel's token", async () => {
    const c = await moduleChannel();
    const d = await moduleChannel();
    for (let i = 0; i < 2; i++) await attach(c, await account());
    const { next } = (await call(c, 'GET', '/v2/bot/list?limit=1')).body as { next: string };
    expect((await call(d, 'GET', `/v2/bot/list?start=${next}`)).status).toBe(400);
    expect((await call(c, 'GET', '/v2/bot/list?start=bogus')).status).toBe(400);
  });
});
