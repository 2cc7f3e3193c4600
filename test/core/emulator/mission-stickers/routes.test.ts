// Mission stickers through HTTP: the send, and every error of docs/platform-api.md#mission-stickers
// with its exact message, each reached through state the admin API sets.
import { beforeAll, describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
const DAY = 86_400_000;
let userId = '';
let token = '';
let channelId = '';

beforeAll(async () => {
  userId = (
    (await emu().admin('POST', '/users', { displayName: 'Winner' })).body as { userId: string }
  ).userId;
  const channel = (await emu().admin('POST', '/channels', { name: 'Shop' })).body as {
    channelId: string;
    channelAccessToken: string;
  };
  token = channel.channelAccessToken;
  channelId = channel.channelId;
});

const send = (body: Record<string, unknown>, t = token) =>
  emu().call(
    'POST',
    '/shop/v3/mission',
    { to: userId, productType: 'STICKER', sendPresentMessage: false, ...body },
    t,
  );
const putSet = (productId: string, set: Record<string, unknown>) =>
  emu().admin('PUT', `/mission-stickers/sets/${productId}`, { name: `Set ${productId}`, ...set });
const grants = async () =>
  ((await emu().admin('GET', '/mission-stickers/state')).body as { grants: unknown[] }).grants;

describe('POST /shop/v3/mission', () => {
  it('sends a mission sticker set: 200 with an empty body, and records the grant', async () => {
    const res = await send({ productId: '1000001' });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(await grants()).toEqual(
      expect.arrayContaining([{ channelId, userId, productId: '1000001', at: expect.any(Number) }]),
    );
  });

  it.each([
    ['to missing', { to: undefined, productId: '1000001' }, 'to'],
    ['a malformed user ID', { to: 'someone', productId: '1000001' }, 'to'],
    ['an unknown user', { to: `U${'a'.repeat(32)}`, productId: '1000001' }, 'to'],
    ['productType not STICKER', { productType: 'THEME', productId: '1000001' }, 'productType'],
    ['productId missing', {}, 'productId'],
    [
      'sendPresentMessage true',
      { sendPresentMessage: true, productId: '1000001' },
      'sendPresentMessage',
    ],
    [
      'sendPresentMessage as a string',
      { sendPresentMessage: 'false', productId: '1000001' },
      'sendPresentMessage',
    ],
  ])('answers 400 invalid request for %s, naming the field', async (_, body, field) => {
    const before = await grants();
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: 'invalid request',
      details: [expect.objectContaining({ property: field })],
    });
    expect(await grants()).toEqual(before);
  });

  it('answers 404 not found for a set that does not exist', async () => {
    const res = await send({ productId: '999999' });
    expect([res.status, res.body]).toEqual([404, { message: 'not found' }]);
  });

  it('answers 400 illegal argument for a set that is not a mission set', async () => {
    const res = await send({ productId: '1000004' });
    expect([res.status, res.body]).toEqual([400, { message: 'illegal argument' }]);
  });

  it('answers 400 not in sales period before the start and after the end', async () => {
    expect((await send({ productId: '1000002' })).body).toEqual({ message: 'not in sales period' });
    const now = Date.now();
    await putSet('2000001', { salesStart: now + DAY, salesEnd: now + 2 * DAY });
    const early = await send({ productId: '2000001' });
    expect([early.status, early.body]).toEqual([400, { message: 'not in sales period' }]);
    await emu().admin('POST', '/clock/advance', { ms: DAY + 1000 });
    expect((await send({ productId: '2000001' })).status).toBe(200);
  });

  it('answers 400 sticker set not available for channel when the set names other channels', async () => {
    await putSet('2000002', { channelIds: ['1'] });
    const res = await send({ productId: '2000002' });
    expect([res.status, res.body]).toEqual([
      400,
      { message: 'sticker set not available for channel' },
    ]);
    await putSet('2000002', { channelIds: ['1', channelId] });
    expect((await send({ productId: '2000002' })).status).toBe(200);
  });

  it("answers 400 not available outside the set's regions or below its app version", async () => {
    const region = await send({ productId: '1000003' });
    expect([region.status, region.body]).toEqual([400, { message: 'not available' }]);
    await emu().admin('PUT', `/mission-stickers/users/${userId}`, {
      country: 'TH',
      appVersion: '13.1.0',
    });
    expect((await send({ productId: '1000003' })).status).toBe(200);
    await putSet('2000003', { minAppVersion: '13.10' });
    expect((await send({ productId: '2000003' })).body).toEqual({ message: 'not available' });
    await emu().admin('PUT', `/mission-stickers/users/${userId}`, {
      country: 'TH',
      appVersion: '13.10.2',
    });
    expect((await send({ productId: '2000003' })).status).toBe(200);
  });

  it('answers 500 internal error and 502 upstream error when the backend fails', async () => {
    await putSet('2000004', { failure: 'internal' });
    const internal = await send({ productId: '2000004' });
    expect([internal.status, internal.body]).toEqual([500, { message: 'internal error' }]);
    await putSet('2000004', { failure: 'upstream' });
    const upstream = await send({ productId: '2000004' });
    expect([upstream.status, upstream.body]).toEqual([502, { message: 'upstream error' }]);
  });

  it('answers 403 not allowed to use the API without the permission, before reading the body', async () => {
    await emu().admin('PUT', `/mission-stickers/permissions/${channelId}`, { allowed: false });
    const res = await send({ productId: 'anything' });
    expect([res.status, res.body]).toEqual([403, { message: 'not allowed to use the API' }]);
    await emu().admin('PUT', `/mission-stickers/permissions/${channelId}`, { allowed: true });
    expect((await send({ productId: '1000001' })).status).toBe(200);
  });

  it('answers 401 without a channel token', async () => {
    expect((await send({ productId: '1000001' }, null as unknown as string)).status).toBe(401);
  });
});

describe('admin', () => {
  it('refuses a bad sticker set, naming the field, and keeps the old one', async () => {
    const res = await putSet('1000001', { salesStart: 10, salesEnd: 5, regions: ['japan'] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('regions[0]');
    const state = (await emu().admin('GET', '/mission-stickers/state')).body as {
      sets: { productId: string; name: string }[];
    };
    expect(state.sets.find((s) => s.productId === '1000001')?.name).toBe('Bench Buddies (mission)');
  });

  it('refuses users it does not know', async () => {
    const res = await emu().admin('PUT', `/mission-stickers/users/U${'b'.repeat(32)}`, {
      country: 'JP',
      appVersion: '1.0.0',
    });
    expect(res.status).toBe(404);
  });
});
