// Notification messages through HTTP: template (202) and flexible (200) sends with every limit,
// the delivery tag, the four 422 causes from phone users the admin API seeds, 403, and the
// daily counts in UTC+9 with their three statuses.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { request, useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
const sha = (e164: string) => createHash('sha256').update(e164).digest('hex');
const READY = sha('+818000001234');
let channel: { channelId: string; channelAccessToken: string };

beforeAll(async () => {
  channel = (await emu().admin('POST', '/channels', { name: 'Notifier' })).body as typeof channel;
  const users = [
    { phoneNumber: '080-0000-1234', defaultCountry: 'JP' },
    { phoneNumber: '+1 202 555 0143' },
    { phoneNumber: '+66 81 234 5678', refused: true },
    { phoneNumber: '+66 81 234 5679', policyAgreed: false },
  ];
  for (const u of users)
    expect((await emu().admin('PUT', '/notifications/users', u)).status).toBe(200);
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  request(emu().emulator.url + path, 'POST', body, {
    authorization: `Bearer ${channel.channelAccessToken}`,
    ...headers,
  });
const template = (body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  post(
    '/v2/bot/message/pnp/templated/push',
    { to: READY, templateKey: 'delivery_completed_en', ...body },
    headers,
  );
const flexible = (body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  post(
    '/bot/pnp/push',
    { to: READY, messages: [{ type: 'text', text: 'Hello' }], ...body },
    headers,
  );
const count = (kind: 'templated' | 'flexible', date: string) =>
  emu().call(
    'GET',
    `/v2/bot/message/delivery/pnp${kind === 'templated' ? '/templated' : ''}?date=${date}`,
    undefined,
    channel.channelAccessToken,
  );
const sends = async () =>
  ((await emu().admin('GET', '/notifications/state')).body as { sends: unknown[] }).sends.length;
const today = async () =>
  ((await emu().admin('GET', '/notifications/state')).body as { today: string }).today;

const item = (itemKey: string, content = 'x') => ({ itemKey, content });
const fullBody = {
  emphasizedItem: item('total', '฿1,250'),
  items: [item('order_number', 'A-1001'), item('carrier', 'Kerry')],
  buttons: [{ buttonKey: 'track_parcel', url: 'https://shop.example.com/track/A-1001' }],
};

describe('template send', () => {
  it('answers 202 with {} and records the send, with a delivery tag', async () => {
    const before = await sends();
    const res = await template(
      { body: fullBody },
      { 'X-Platform-Delivery-Tag': 'order-A-1001-2024' },
    );
    expect([res.status, res.body]).toEqual([202, {}]);
    expect(await sends()).toBe(before + 1);
    const state = (await emu().admin('GET', '/notifications/state')).body as {
      sends: { deliveryTag: string; kind: string }[];
    };
    expect(state.sends[0]).toMatchObject({ kind: 'template', deliveryTag: 'order-A-1001-2024' });
  });

  it('accepts the limits exactly: 15 items, 2 buttons, 15/300 characters, 1000-character URL', async () => {
    await emu().admin('PUT', '/notifications/templates/wide', {
      itemKeys: Array.from({ length: 16 }, (_, i) => `k${i}`),
      buttonKeys: ['a', 'b'],
    });
    const res = await template({
      templateKey: 'wide',
      body: {
        emphasizedItem: item('k15', 'e'.repeat(15)),
        items: Array.from({ length: 15 }, (_, i) => item(`k${i}`, 'i'.repeat(300))),
        buttons: [
          { buttonKey: 'a', url: `https://e.example.com/${'u'.repeat(1000 - 23)}` },
          { buttonKey: 'b', url: 'https://e.example.com/' },
        ],
      },
    });
    expect(res.status).toBe(202);
  });

  it.each([
    ['to missing', { to: undefined }, 'to'],
    ['a phone number instead of its hash', { to: '+818000001234' }, 'to'],
    ['an uppercase hash', { to: READY.toUpperCase() }, 'to'],
    ['templateKey missing', { templateKey: undefined }, 'templateKey'],
    [
      'an emphasized item over 15 characters',
      { body: { emphasizedItem: item('total', 'e'.repeat(16)) } },
      'body.emphasizedItem.content',
    ],
    [
      'emphasizedItem as an array',
      { body: { emphasizedItem: [item('total')] } },
      'body.emphasizedItem',
    ],
    [
      '16 items',
      { body: { items: Array.from({ length: 16 }, (_, i) => item(`k${i}`)) } },
      'body.items',
    ],
    [
      'an item over 300 characters',
      { body: { items: [item('carrier', 'c'.repeat(301))] } },
      'body.items[0].content',
    ],
    [
      'an item without content',
      { body: { items: [{ itemKey: 'carrier' }] } },
      'body.items[0].content',
    ],
    [
      '3 buttons',
      {
        body: {
          buttons: [1, 2, 3].map((i) => ({ buttonKey: `b${i}`, url: 'https://e.example.com' })),
        },
      },
      'body.buttons',
    ],
    [
      'a URL over 1000 characters',
      {
        body: {
          buttons: [
            { buttonKey: 'track_parcel', url: `https://e.example.com/${'u'.repeat(1000)}` },
          ],
        },
      },
      'body.buttons[0].url',
    ],
    [
      'a button URL that is not a URL',
      { body: { buttons: [{ buttonKey: 'track_parcel', url: 'track me' }] } },
      'body.buttons[0].url',
    ],
    [
      'an item twice',
      { body: { items: [item('carrier'), item('carrier')] } },
      'body.items[1].itemKey',
    ],
    [
      'the emphasized item again in items',
      { body: { emphasizedItem: item('total'), items: [item('total')] } },
      'body.items[0].itemKey',
    ],
    ['a template the account cannot use', { templateKey: 'secret_template' }, 'templateKey'],
    ['an item not in the template', { body: { items: [item('colour')] } }, 'body.items[0].itemKey'],
    [
      'a button not in the template',
      { body: { buttons: [{ buttonKey: 'buy', url: 'https://e.example.com' }] } },
      'body.buttons[0].buttonKey',
    ],
  ])('answers 400 for %s, naming %s, and sends nothing', async (_, change, field) => {
    const before = await sends();
    const res = await template(change);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: expect.any(String),
      details: expect.arrayContaining([expect.objectContaining({ property: field })]),
    });
    expect(await sends()).toBe(before);
  });

  it.each([
    ['15 characters', 'a'.repeat(15)],
    ['101 characters', 'a'.repeat(101)],
  ])('answers 400 for a delivery tag of %s', async (_, tag) => {
    const res = await template({}, { 'X-Platform-Delivery-Tag': tag });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [{ property: 'X-Platform-Delivery-Tag' }] });
    expect((await template({}, { 'X-Platform-Delivery-Tag': 'a'.repeat(100) })).status).toBe(202);
  });
});

describe('flexible send', () => {
  it('answers 200 with {} for up to 5 messages', async () => {
    const res = await flexible({
      messages: Array.from({ length: 5 }, () => ({ type: 'text', text: 'Hi' })),
    });
    expect([res.status, res.body]).toEqual([200, {}]);
  });

  it.each([
    ['no messages', { messages: undefined }, 'messages'],
    ['an empty list', { messages: [] }, 'messages'],
    ['6 messages', { messages: Array.from({ length: 6 }, () => ({ type: 'text' })) }, 'messages'],
    ['a message without type', { messages: [{ text: 'Hi' }] }, 'messages[0].type'],
    ['an invalid destination', { to: 'nobody' }, 'to'],
  ])('answers 400 for %s', async (_, change, field) => {
    const before = await sends();
    const res = await flexible(change);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      details: expect.arrayContaining([expect.objectContaining({ property: field })]),
    });
    expect(await sends()).toBe(before);
  });
});

describe('422 causes', () => {
  it.each([
    ['no user has the number', sha('+818011112222'), 'No user'],
    ['the number is outside the target countries', sha('+12025550143'), 'target country'],
    ['the user refused notification messages', sha('+66812345678'), 'refused'],
    [
      'the user has not agreed to the revised privacy policy',
      sha('+66812345679'),
      'privacy policy',
    ],
  ])('answers 422 when %s, for both sends', async (_, to, message) => {
    const before = await sends();
    for (const res of [await template({ to }), await flexible({ to })]) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: expect.stringContaining(message) });
    }
    expect(await sends()).toBe(before);
  });
});

describe('endpoint permission', () => {
  it('answers 403 to both sends when the channel is not authorized', async () => {
    await emu().admin('PUT', `/notifications/permissions/${channel.channelId}`, { allowed: false });
    try {
      expect((await template()).status).toBe(403);
      expect((await flexible()).status).toBe(403);
    } finally {
      await emu().admin('PUT', `/notifications/permissions/${channel.channelId}`, {
        allowed: true,
      });
    }
  });
});

describe('daily counts', () => {
  it('is unready for today and ready with the count once the UTC+9 day is over', async () => {
    const fresh = (await emu().admin('POST', '/channels', { name: 'Counter' }))
      .body as typeof channel;
    const asFresh = (path: string, body: unknown) =>
      request(emu().emulator.url + path, 'POST', body, {
        authorization: `Bearer ${fresh.channelAccessToken}`,
      });
    const day = await today();
    await asFresh('/v2/bot/message/pnp/templated/push', {
      to: READY,
      templateKey: 'delivery_completed_en',
    });
    await asFresh('/v2/bot/message/pnp/templated/push', {
      to: READY,
      templateKey: 'delivery_completed_en',
    });
    await asFresh('/bot/pnp/push', { to: READY, messages: [{ type: 'text', text: 'x' }] });
    const get = (kind: string) =>
      emu().call(
        'GET',
        `/v2/bot/message/delivery/${kind}?date=${day}`,
        undefined,
        fresh.channelAccessToken,
      );
    expect((await get('pnp/templated')).body).toEqual({ status: 'unready' });
    await emu().admin('POST', '/clock/advance', { ms: 86_400_000 });
    expect((await get('pnp/templated')).body).toEqual({ status: 'ready', success: 2 });
    expect((await get('pnp')).body).toEqual({ status: 'ready', success: 1 });
  });

  it('is out_of_service before 31 March 2018 and ready (0) from that day', async () => {
    expect((await count('templated', '20180330')).body).toEqual({ status: 'out_of_service' });
    expect((await count('flexible', '20180330')).body).toEqual({ status: 'out_of_service' });
    expect((await count('templated', '20180331')).body).toEqual({ status: 'ready', success: 0 });
  });

  it.each(['', '2024-01-01', '20240230', '2024011', 'yesterday'])(
    'answers 400 for date=%j',
    async (date) => {
      const res = await count('templated', date);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ details: [expect.objectContaining({ property: 'date' })] });
    },
  );

  it('answers 400 when date is missing', async () => {
    const res = await emu().call(
      'GET',
      '/v2/bot/message/delivery/pnp',
      undefined,
      channel.channelAccessToken,
    );
    expect(res.status).toBe(400);
  });
});

describe('admin', () => {
  it('refuses a phone number it cannot normalize, saying why', async () => {
    const res = await emu().admin('PUT', '/notifications/users', { phoneNumber: '080-0000-1234' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: expect.stringContaining('country code') });
  });
});
