// Service messages through HTTP: every row of the notification token's state table
// (docs/platform-api.md#service-messages-token), templates and their variables, token kinds on mini
// app channels (docs/platform-api.md#service-messages), and bad input.
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
const YEAR = 31_536_000;

interface Channel {
  channelId: string;
  channelAccessToken: string;
}
interface Token {
  notificationToken: string;
  expiresIn: number;
  remainingCount: number;
  sessionId: string;
}

let channel: Channel;
let userId: string;
beforeEach(async () => {
  channel = (await emu().admin('POST', '/channels', { name: 'Mini app' })).body as Channel;
  userId = (
    (await emu().admin('POST', '/users', { displayName: 'Hana' })).body as { userId: string }
  ).userId;
});
const call = (path: string, body?: unknown, t: string | null = channel.channelAccessToken) =>
  emu().call('POST', path, body, t);

async function userToken(channelId = channel.channelId) {
  const res = await emu().admin('POST', '/user-tokens', { userId, channelId, scopes: ['profile'] });
  return (res.body as { accessToken: string }).accessToken;
}
async function issue(embedAccessToken?: string): Promise<Token> {
  const res = await call('/message/v3/notifier/token', {
    embedAccessToken: embedAccessToken ?? (await userToken()),
  });
  expect(res.status).toBe(200);
  return res.body as Token;
}
const send = (notificationToken: string, extra: Record<string, unknown> = {}, t?: string) =>
  call(
    '/message/v3/notifier/send?target=service',
    { templateName: 'thank_you_en', params: {}, notificationToken, ...extra },
    t,
  );
const sentCount = async () =>
  (
    (await emu().admin('GET', `/service-messages/messages?channelId=${channel.channelId}`))
      .body as unknown[]
  ).length;

describe('notification token', () => {
  it('is issued once per user access token with a 1-year life and 5 sends', async () => {
    const access = await userToken();
    const token = await issue(access);
    expect(token).toMatchObject({ expiresIn: YEAR, remainingCount: 5 });
    expect(token.notificationToken).toEqual(expect.any(String));
    expect(token.sessionId).toEqual(expect.any(String));
    const again = await call('/message/v3/notifier/token', { embedAccessToken: access });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ details: [{ property: 'embedAccessToken' }] });
    // A second user access token of the same user gets its own.
    expect((await issue()).sessionId).not.toBe(token.sessionId);
  });

  it('renews on each send, the old value stops working, and the fifth send ends it', async () => {
    let token = await issue();
    const seen = new Set([token.notificationToken]);
    for (const remaining of [4, 3, 2, 1]) {
      const res = await send(token.notificationToken);
      expect(res.status).toBe(200);
      const next = res.body as Token;
      expect(next.remainingCount).toBe(remaining);
      expect(next.sessionId).toBe(token.sessionId);
      expect(next.expiresIn).toBeGreaterThan(YEAR - 5);
      expect(seen.has(next.notificationToken)).toBe(false);
      seen.add(next.notificationToken);
      const stale = await send(token.notificationToken);
      expect(stale.status).toBe(400);
      expect(stale.body).toMatchObject({ details: [{ property: 'notificationToken' }] });
      token = next;
    }
    const last = await send(token.notificationToken);
    expect(last.status).toBe(200);
    expect(last.body).toEqual({
      notificationToken: token.notificationToken,
      expiresIn: 0,
      remainingCount: 0,
      sessionId: token.sessionId,
    });
    expect(await sentCount()).toBe(5);
    const after = await send(token.notificationToken);
    expect(after.status).toBe(400);
    expect(await sentCount()).toBe(5);
  });

  it('sends without renewing once the year is over, then refuses the token', async () => {
    const token = await issue();
    const renewed = (await send(token.notificationToken)).body as Token;
    await emu().admin('POST', '/clock/advance', { ms: 200 * 86_400_000 });
    const mid = (await send(renewed.notificationToken)).body as Token;
    expect(mid.expiresIn).toBeLessThanOrEqual(YEAR - 200 * 86_400 + 1);
    expect(mid.remainingCount).toBe(3);
    await emu().admin('POST', '/clock/advance', { ms: 166 * 86_400_000 });
    const expired = await send(mid.notificationToken);
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({
      notificationToken: mid.notificationToken,
      expiresIn: 0,
      remainingCount: 0,
    });
    expect(await sentCount()).toBe(3);
    expect((await send(mid.notificationToken)).status).toBe(400);
  });

  it('takes only a valid user access token of the calling channel', async () => {
    const other = (await emu().admin('POST', '/channels', { name: 'Other' })).body as Channel;
    for (const embedAccessToken of [await userToken(other.channelId), 'nope', '', 42]) {
      const res = await call('/message/v3/notifier/token', { embedAccessToken });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ details: [{ property: 'embedAccessToken' }] });
    }
    expect((await call('/message/v3/notifier/token', {})).status).toBe(400);
  });

  it("refuses another channel's notification token", async () => {
    const token = await issue();
    const other = (await emu().admin('POST', '/channels', { name: 'Other' })).body as Channel;
    expect((await send(token.notificationToken, {}, other.channelAccessToken)).status).toBe(400);
    expect((await send(token.notificationToken)).status).toBe(200);
  });
});

describe('templates', () => {
  it('checks the required variables of the seeded template and sends with them', async () => {
    const token = await issue();
    const missing = await send(token.notificationToken, {
      templateName: 'reservation_confirm_ja',
      params: { date: '2025-05-01' },
    });
    expect(missing.status).toBe(400);
    expect(
      (missing.body as { details: { property: string }[] }).details.map((d) => d.property),
    ).toEqual(['params.time', 'params.shop_name']);
    const unknown = await send(token.notificationToken, {
      templateName: 'reservation_confirm_ja',
      params: { date: 'd', time: 't', shop_name: 's', colour: 'red' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ details: [{ property: 'params.colour' }] });
    expect(await sentCount()).toBe(0);
    const ok = await send(token.notificationToken, {
      templateName: 'reservation_confirm_ja',
      params: { date: '2025-05-01', time: '18:00', shop_name: 'Sakura', seats: '2' },
    });
    expect(ok.status).toBe(200);
    expect((ok.body as Token).remainingCount).toBe(4);
  });

  const badSends: [string, Record<string, unknown>, string][] = [
    ['no language tag', { templateName: 'thank_you' }, 'templateName'],
    ['unlisted tag', { templateName: 'thank_you_fr' }, 'templateName'],
    ['over 30 characters', { templateName: `${'a'.repeat(28)}_en` }, 'templateName'],
    ['unknown template', { templateName: 'no_such_template_en' }, 'templateName'],
    [
      'language the template lacks',
      { templateName: 'delivery_notice_ko', params: { tracking_number: '1' } },
      'templateName',
    ],
    ['params missing', { params: undefined }, 'params'],
    ['params not strings', { params: { a: 1 } }, 'params.a'],
    ['templateName missing', { templateName: undefined }, 'templateName'],
  ];
  it.each(badSends)('answers 400 naming the field: %s', async (_name, extra, property) => {
    const token = await issue();
    const res = await send(token.notificationToken, extra);
    expect(res.status).toBe(400);
    expect(
      (res.body as { details: { property: string }[] }).details.map((d) => d.property),
    ).toContain(property);
    // Nothing was used up: the token still has all its sends.
    expect(((await send(token.notificationToken)).body as Token).remainingCount).toBe(4);
  });

  it('takes zh-TW, and a template added through the admin API', async () => {
    const token = await issue();
    const zh = (await send(token.notificationToken, { templateName: 'thank_you_zh-TW' }))
      .body as Token;
    expect(zh.remainingCount).toBe(4);
    const put = await emu().admin('PUT', '/service-messages/templates', {
      name: 'coupon_issued',
      languages: ['en'],
      required: ['code'],
    });
    expect(put.status).toBe(200);
    const res = await send(zh.notificationToken, {
      templateName: 'coupon_issued_en',
      params: { code: 'X1' },
    });
    expect(res.status).toBe(200);
    expect(
      (await emu().admin('PUT', '/service-messages/templates', { name: 'Bad Name' })).status,
    ).toBe(400);
  });

  it('answers 400 when the target query is not service', async () => {
    const token = await issue();
    const res = await call('/message/v3/notifier/send?target=push', {
      templateName: 'thank_you_en',
      params: {},
      notificationToken: token.notificationToken,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [{ property: 'target' }] });
  });
});

describe('channel tokens and permission', () => {
  const tokenOf = async (kind: string) =>
    (
      (await emu().admin('POST', '/embed/channel-tokens', { channelId: channel.channelId, kind }))
        .body as {
        accessToken: string;
      }
    ).accessToken;

  it('refuses long-lived and user-expiry tokens on mini app channels, takes stateless and short-lived', async () => {
    const access = await userToken();
    await emu().admin('PUT', `/embed/channels/${channel.channelId}`, { miniApp: true });
    for (const t of [
      channel.channelAccessToken,
      await tokenOf('long-lived'),
      await tokenOf('user-expiry'),
    ]) {
      const res = await call('/message/v3/notifier/token', { embedAccessToken: access }, t);
      expect(res.status).toBe(401);
      expect((res.body as { message: string }).message).toContain('stateless or short-lived');
    }
    const token = (
      await call(
        '/message/v3/notifier/token',
        { embedAccessToken: access },
        await tokenOf('stateless'),
      )
    ).body as Token;
    expect(token.remainingCount).toBe(5);
    const sent = await send(token.notificationToken, {}, await tokenOf('short-lived'));
    expect(sent.status).toBe(200);
    const refused = await send(
      (sent.body as Token).notificationToken,
      {},
      channel.channelAccessToken,
    );
    expect(refused.status).toBe(401);
  });

  it('accepts long-lived tokens on channels that are not mini apps', async () => {
    const token = await issue();
    expect((await send(token.notificationToken, {}, await tokenOf('long-lived'))).status).toBe(200);
  });

  it('answers 403 on issue and send when the channel is not authorized, 401 without a token', async () => {
    const token = await issue();
    await emu().admin('PUT', `/embed/channels/${channel.channelId}`, { serviceMessages: false });
    const issueRes = await call('/message/v3/notifier/token', {
      embedAccessToken: await userToken(),
    });
    expect(issueRes.status).toBe(403);
    expect(issueRes.body).toEqual({
      message: 'This channel is not authorized to send service messages.',
    });
    expect((await send(token.notificationToken)).status).toBe(403);
    expect((await call('/message/v3/notifier/token', {}, null)).status).toBe(401);
    expect((await send(token.notificationToken, {}, 'bogus')).status).toBe(401);
    expect(await sentCount()).toBe(0);
  });

  it('answers 500 on token issue through fault injection', async () => {
    await emu().admin('POST', '/faults', {
      kind: 'status',
      status: 500,
      pathPrefix: '/message/v3/notifier/token',
    });
    const res = await call('/message/v3/notifier/token', { embedAccessToken: await userToken() });
    expect(res.status).toBe(500);
    expect((res.body as { message: string }).message).toBeTruthy();
  });
});
