// The embedded-app server API emulator through HTTP: add with defaults, partial update, list,
// delete, the 30-app limit, other channels' apps, and every rule on bad input.
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();

interface Channel {
  channelId: string;
  channelAccessToken: string;
}
async function newChannel(): Promise<Channel> {
  return (await emu().admin('POST', '/channels', { name: 'Mini app' })).body as Channel;
}

let channel: Channel;
beforeEach(async () => {
  channel = await newChannel();
});
const call = (
  method: string,
  path: string,
  body?: unknown,
  t: string | null = channel.channelAccessToken,
) => emu().call(method, path, body, t);
const list = async () => call('GET', '/embed/v1/apps');
const apps = async () => ((await list()).body as { apps: Record<string, unknown>[] }).apps;
const view = { type: 'full', url: 'https://example.com/app' };

async function add(body: unknown = { view }) {
  const res = await call('POST', '/embed/v1/apps', body);
  expect(res.status).toBe(200);
  return (res.body as { embedId: string }).embedId;
}

describe('embedded apps', () => {
  it('adds an app with the documented defaults and lists it with features.ble', async () => {
    const embedId = await add({ view, description: 'Booking' });
    expect(embedId).toMatch(new RegExp(`^${channel.channelId}-[A-Za-z0-9]{8}$`));
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      apps: [
        {
          embedId,
          view: { type: 'full', url: 'https://example.com/app', moduleMode: false },
          description: 'Booking',
          features: { ble: false, qrCode: false },
          permanentLinkPattern: 'concat',
          scope: ['profile', 'chat_message.write'],
          botPrompt: 'none',
        },
      ],
    });
  });

  it('keeps every optional field given on add, and features.ble follows the channel', async () => {
    await emu().admin('PUT', `/embed/channels/${channel.channelId}`, { ble: true });
    await add({
      view: { type: 'compact', url: 'https://example.com/a?x=1', moduleMode: true },
      features: { qrCode: true },
      permanentLinkPattern: 'concat',
      scope: ['openid', 'email'],
      botPrompt: 'aggressive',
    });
    const [app] = await apps();
    expect(app).toMatchObject({
      view: { type: 'compact', url: 'https://example.com/a?x=1', moduleMode: true },
      features: { ble: true, qrCode: true },
      scope: ['openid', 'email'],
      botPrompt: 'aggressive',
    });
  });

  it('updates only the given properties', async () => {
    const embedId = await add({ view, description: 'Before', scope: ['openid'] });
    const res = await call('PUT', `/embed/v1/apps/${embedId}`, {
      view: { url: 'https://example.com/v2' },
      botPrompt: 'normal',
    });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    const [app] = await apps();
    expect(app).toMatchObject({
      embedId,
      view: { type: 'full', url: 'https://example.com/v2' },
      description: 'Before',
      scope: ['openid'],
      botPrompt: 'normal',
    });
  });

  it('answers 404 on list when the channel has no app, and after the last is deleted', async () => {
    const empty = await list();
    expect(empty.status).toBe(404);
    expect(empty.body).toEqual({ message: 'No app exists on this channel.' });
    const embedId = await add();
    const del = await call('DELETE', `/embed/v1/apps/${embedId}`);
    expect(del.status).toBe(200);
    expect((await list()).status).toBe(404);
    expect((await call('DELETE', `/embed/v1/apps/${embedId}`)).status).toBe(404);
  });

  it('refuses the 31st app with 400 and keeps 30', async () => {
    for (let i = 0; i < 30; i++) await add({ view, description: `App ${i}` });
    const res = await call('POST', '/embed/v1/apps', { view });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'The maximum number of apps (30) has been reached for this channel.',
    });
    expect(((await list()).body as { apps: unknown[] }).apps).toHaveLength(30);
  });

  it("answers 404 for another channel's app on update and delete, and leaves it alone", async () => {
    const other = await newChannel();
    const embedId = await add();
    for (const [method, body] of [
      ['PUT', { description: 'Hijack' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `/embed/v1/apps/${embedId}`, body, other.channelAccessToken);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        message: 'The app does not exist or belongs to another channel.',
      });
    }
    expect((await call('GET', '/embed/v1/apps', undefined, other.channelAccessToken)).status).toBe(
      404,
    );
    const [app] = await apps();
    expect(app!.description).toBeUndefined();
  });

  it('answers 401 on every operation without a valid token', async () => {
    const embedId = await add();
    for (const [method, path, body] of [
      ['POST', '/embed/v1/apps', { view }],
      ['PUT', `/embed/v1/apps/${embedId}`, { description: 'x' }],
      ['GET', '/embed/v1/apps', undefined],
      ['DELETE', `/embed/v1/apps/${embedId}`, undefined],
    ] as const) {
      expect((await call(method, path, body, null)).status).toBe(401);
      const bad = await call(method, path, body, 'not-a-token');
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({
        message: 'Authentication failed: the channel access token is not valid.',
      });
    }
    expect(((await list()).body as { apps: unknown[] }).apps).toHaveLength(1);
  });

  it('accepts issued channel tokens and refuses expired ones', async () => {
    const issued = await emu().admin('POST', '/embed/channel-tokens', {
      channelId: channel.channelId,
      kind: 'stateless',
    });
    expect(issued.status).toBe(201);
    const token = (issued.body as { accessToken: string }).accessToken;
    await add();
    expect((await call('GET', '/embed/v1/apps', undefined, token)).status).toBe(200);
    await emu().admin('POST', '/clock/advance', { ms: 15 * 60 * 1000 });
    expect((await call('GET', '/embed/v1/apps', undefined, token)).status).toBe(401);
  });

  const badAdds: [string, unknown, string][] = [
    ['missing view', {}, 'view'],
    ['missing view.type', { view: { url: view.url } }, 'view.type'],
    ['missing view.url', { view: { type: 'full' } }, 'view.url'],
    ['unknown view.type', { view: { ...view, type: 'half' } }, 'view.type'],
    ['http URL', { view: { ...view, url: 'http://example.com/' } }, 'view.url'],
    ['URL with a fragment', { view: { ...view, url: 'https://example.com/#top' } }, 'view.url'],
    ['relative URL', { view: { ...view, url: '/app' } }, 'view.url'],
    ['moduleMode not boolean', { view: { ...view, moduleMode: 'yes' } }, 'view.moduleMode'],
    ['brand in description', { view, description: 'My LINE shop' }, 'description'],
    ['full-width brand', { view, description: 'ＬＩＮＥ coupons' }, 'description'],
    ['look-alike brand', { view, description: 'L1NE deals' }, 'description'],
    ['spaced brand', { view, description: 'L I N E' }, 'description'],
    ['katakana brand', { view, description: 'ラインで予約' }, 'description'],
    ['qrCode not boolean', { view, features: { qrCode: 1 } }, 'features.qrCode'],
    ['other link pattern', { view, permanentLinkPattern: 'replace' }, 'permanentLinkPattern'],
    ['unknown scope', { view, scope: ['profile', 'friends'] }, 'scope[1]'],
    ['empty scope', { view, scope: [] }, 'scope'],
    ['repeated scope', { view, scope: ['openid', 'openid'] }, 'scope'],
    ['unknown botPrompt', { view, botPrompt: 'always' }, 'botPrompt'],
  ];
  it.each(badAdds)('answers 400 naming the field on add: %s', async (_name, body, property) => {
    const res = await call('POST', '/embed/v1/apps', body);
    expect(res.status).toBe(400);
    const details = (res.body as { details: { property: string }[] }).details;
    expect(details.map((d) => d.property)).toContain(property);
    expect((await list()).status).toBe(404);
  });

  it('accepts descriptions that only contain the letters inside a word', async () => {
    await add({ view, description: 'Online pipeline timeline' });
  });

  it('answers 400 on a bad update and changes nothing', async () => {
    const embedId = await add({ view, description: 'Kept' });
    for (const body of [
      { view: { url: 'http://example.com' } },
      { description: 'LINE' },
      { scope: ['nope'] },
      { botPrompt: 1 },
      'not json',
    ]) {
      const res = await call('PUT', `/embed/v1/apps/${embedId}`, body);
      expect(res.status).toBe(400);
    }
    const [app] = await apps();
    expect(app).toMatchObject({ view, description: 'Kept', botPrompt: 'none' });
  });
});

describe('embed admin', () => {
  it('reads and changes channel settings, 404 for an unknown channel, 400 for bad input', async () => {
    const path = `/embed/channels/${channel.channelId}`;
    expect((await emu().admin('GET', path)).body).toEqual({
      channelId: channel.channelId,
      miniApp: false,
      ble: false,
      serviceMessages: true,
      inAppPurchase: true,
    });
    expect((await emu().admin('PUT', path, { miniApp: true })).body).toMatchObject({
      miniApp: true,
      ble: false,
    });
    expect((await emu().admin('PUT', path, { miniApp: 'yes' })).status).toBe(400);
    expect((await emu().admin('GET', path)).body).toMatchObject({ miniApp: true });
    expect((await emu().admin('GET', '/embed/channels/1')).status).toBe(404);
  });

  it('issues channel tokens of each kind and refuses bad kinds', async () => {
    for (const kind of ['long-lived', 'short-lived', 'stateless', 'user-expiry']) {
      const res = await emu().admin('POST', '/embed/channel-tokens', {
        channelId: channel.channelId,
        kind,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ channelId: channel.channelId, kind });
    }
    const bad = await emu().admin('POST', '/embed/channel-tokens', {
      channelId: channel.channelId,
      kind: 'forever',
    });
    expect(bad.status).toBe(400);
    const stray = await emu().admin('POST', '/embed/channel-tokens', {
      channelId: channel.channelId,
      kind: 'stateless',
      expiresIn: 60,
    });
    expect(stray.status).toBe(400);
  });
});
