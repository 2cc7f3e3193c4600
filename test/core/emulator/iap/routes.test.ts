// In-app purchase through HTTP: reserve and every errorCode of docs/platform-api.md#iap-server,
// orders completed and refunded through the admin API with signed webhooks that verify, and the
// webhook history (window, bounds, status filter, paging, restarts).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../src/core/webhooks/receiver';
import { SIGNATURE_HEADER, verifySignature } from '../../../../src/core/webhooks/signature';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver({
    port: 0,
    secrets: () =>
      emu()
        .emulator.channels()
        .map(({ channelId, channelSecret }) => ({ channelId, channelSecret })),
  });
});
afterAll(() => receiver.close());

interface Channel {
  channelId: string;
  channelSecret: string;
  channelAccessToken: string;
}
interface ErrorBody {
  errorCode: string;
  message: string;
  details: { property: string; message: string }[];
}

let channel: Channel;
let userId: string;
let userToken: string;
const admin = (method: string, path: string, body?: unknown) => emu().admin(method, path, body);
const reserveBody = {
  clientIp: '203.0.113.7',
  clientOs: 'ios',
  productId: 'gems_100',
  shopProductName: 'Gems 100',
};

async function setUp(options: { webhook?: boolean; agreed?: boolean } = {}) {
  channel = (await admin('POST', '/channels', { name: 'Mini app' })).body as Channel;
  userId = ((await admin('POST', '/users', { displayName: 'Buyer' })).body as { userId: string })
    .userId;
  userToken = (
    (await admin('POST', '/user-tokens', { userId, channelId: channel.channelId })).body as {
      accessToken: string;
    }
  ).accessToken;
  await admin('PUT', '/iap/products', {
    channelId: channel.channelId,
    productId: 'gems_100',
    currency: 'JPY',
    price: 160,
    productName: '100 gems',
  });
  if (options.webhook !== false)
    await admin('PUT', '/webhooks/urls', {
      channelId: channel.channelId,
      url: `${receiver.url}/webhook`,
    });
  if (options.agreed !== false) await admin('PUT', `/iap/users/${userId}`, { termsAgreed: true });
}

const reserve = (body: unknown = reserveBody, token: string | null = userToken) =>
  emu().call('POST', '/iap/v1/product/reserve', body, token);
const orders = async () =>
  (await admin('GET', `/iap/orders?channelId=${channel.channelId}`)).body as {
    orderId: string;
    state: string;
  }[];
async function reserved(): Promise<string> {
  const res = await reserve();
  expect(res.status).toBe(200);
  return (res.body as { orderId: string }).orderId;
}
function expectError(res: { status: number; body: unknown }, status: number, errorCode: string) {
  expect(res.status).toBe(status);
  const body = res.body as ErrorBody;
  expect(body.errorCode).toBe(errorCode);
  expect(typeof body.message).toBe('string');
  expect(Array.isArray(body.details)).toBe(true);
  expect(res).toHaveProperty('headers');
  return body;
}

describe('reserve', () => {
  beforeEach(() => setUp());

  it('returns an order ID and keeps the order reserved', async () => {
    const res = await reserve();
    expect(res.status).toBe(200);
    const { orderId } = res.body as { orderId: string };
    expect(orderId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-platform-request-id')).toBeTruthy();
    expect(await orders()).toMatchObject([
      { orderId, state: 'RESERVED', userId, productId: 'gems_100' },
    ]);
  });

  it('takes IPv6 addresses and android', async () => {
    expect(
      (await reserve({ ...reserveBody, clientIp: '2001:db8::1', clientOs: 'android' })).status,
    ).toBe(200);
  });

  it('takes a 20-unit Japanese name and refuses 21 units', async () => {
    expect(
      (await reserve({ ...reserveBody, shopProductName: 'ジェム'.repeat(6) + 'ジェ' })).status,
    ).toBe(200);
    const long = await reserve({ ...reserveBody, shopProductName: 'a'.repeat(21) });
    expectError(long, 400, 'VALIDATION_ERROR');
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['clientOs other than ios/android', { clientOs: 'windows' }, 'clientOs'],
    ['clientIp not an address', { clientIp: '300.1.1.1' }, 'clientIp'],
    ['clientIp a host name', { clientIp: 'localhost' }, 'clientIp'],
    ['productId missing', { productId: undefined }, 'productId'],
    ['shopProductName empty', { shopProductName: '' }, 'shopProductName'],
    ['shopProductName with emoji', { shopProductName: 'Gems 💎' }, 'shopProductName'],
    ['shopProductName with a symbol', { shopProductName: 'Gems ★ pack' }, 'shopProductName'],
    [
      'shopProductName of 11 characters but 22 UTF-16 units',
      { shopProductName: '𠮷'.repeat(11) },
      'shopProductName',
    ],
    ['clientOs not a string', { clientOs: 1 }, 'clientOs'],
  ];
  it.each(invalid)(
    'answers VALIDATION_ERROR with details[].property: %s',
    async (_n, change, property) => {
      const body = expectError(
        await reserve({ ...reserveBody, ...change }),
        400,
        'VALIDATION_ERROR',
      );
      expect(body.details.map((d) => d.property)).toContain(property);
      expect(await orders()).toEqual([]);
    },
  );

  it('answers VALIDATION_ERROR for a body that is not JSON', async () => {
    expectError(await reserve('{oops'), 400, 'VALIDATION_ERROR');
  });

  it('answers PRODUCT_ID_NOT_FOUND for a product of no catalogue', async () => {
    const body = expectError(
      await reserve({ ...reserveBody, productId: 'nope' }),
      400,
      'PRODUCT_ID_NOT_FOUND',
    );
    expect(body.details).toEqual([{ property: 'productId', message: 'does not exist' }]);
    expect(await orders()).toEqual([]);
  });

  it('answers BLOCKED_USER for a blocked user', async () => {
    await admin('PUT', `/iap/users/${userId}`, { blocked: true });
    expectError(await reserve(), 403, 'BLOCKED_USER');
    expect(await orders()).toEqual([]);
  });

  it('answers TERMS_AGREEMENT_ERROR until the user agrees', async () => {
    await admin('PUT', `/iap/users/${userId}`, { termsAgreed: false });
    expectError(await reserve(), 403, 'TERMS_AGREEMENT_ERROR');
    await admin('PUT', `/iap/users/${userId}`, { termsAgreed: true });
    expect((await reserve()).status).toBe(200);
  });

  it('answers WEBHOOK_URL_IS_NOT_SET when the channel has no webhook URL', async () => {
    await admin('PUT', '/webhooks/urls', { channelId: channel.channelId, url: null });
    expectError(await reserve(), 400, 'WEBHOOK_URL_IS_NOT_SET');
    expect(await orders()).toEqual([]);
  });

  it('answers INTERNAL_SERVER_ERROR through fault injection', async () => {
    await admin('POST', '/faults', { kind: 'status', status: 500, pathPrefix: '/iap/' });
    expectError(await reserve(), 500, 'INTERNAL_SERVER_ERROR');
    expect(await orders()).toEqual([]);
    expect((await reserve()).status).toBe(200);
  });

  it('answers 401 without a valid user access token (a channel token is not one)', async () => {
    expectError(await reserve(reserveBody, null), 401, 'UNAUTHORIZED');
    expectError(await reserve(reserveBody, channel.channelAccessToken), 401, 'UNAUTHORIZED');
    await admin('POST', '/clock/advance', { ms: 31 * 86_400_000 });
    expectError(await reserve(), 401, 'UNAUTHORIZED');
  });

  it('answers 403 when the channel has no in-app purchase', async () => {
    await admin('PUT', `/embed/channels/${channel.channelId}`, { inAppPurchase: false });
    expectError(await reserve(), 403, 'FORBIDDEN');
  });
});

describe('purchase webhooks', () => {
  beforeEach(() => setUp());

  it('sends purchaseComplete then refundComplete, signed with the channel secret', async () => {
    receiver.clear();
    const orderId = await reserved();
    const complete = await admin('POST', `/iap/orders/${orderId}/complete`);
    expect(complete.status).toBe(200);
    const done = complete.body as {
      order: { state: string; purchaseTimestamp: number };
      delivery: { status: string; body: string; signature: string; kind: string };
    };
    expect(done.order.state).toBe('COMPLETED');
    expect(done.delivery).toMatchObject({ status: 'SUCCESS', kind: 'iap.purchaseComplete' });
    expect(
      verifySignature(done.delivery.body, channel.channelSecret, done.delivery.signature),
    ).toBe(true);
    expect(verifySignature(done.delivery.body, 'another secret', done.delivery.signature)).toBe(
      false,
    );
    const event = {
      orderId,
      productId: 'gems_100',
      userId,
      purchaseTimestamp: done.order.purchaseTimestamp,
      channelId: channel.channelId,
    };
    expect(JSON.parse(done.delivery.body)).toEqual({
      destination: channel.channelId,
      events: [{ type: 'purchaseComplete', ...event }],
    });

    await admin('POST', '/clock/advance', { ms: 3_600_000 });
    const refund = await admin('POST', `/iap/orders/${orderId}/refund`);
    expect(refund.status).toBe(200);
    const refunded = refund.body as { order: { state: string }; delivery: { body: string } };
    expect(refunded.order.state).toBe('REFUNDED');
    expect(JSON.parse(refunded.delivery.body).events).toEqual([
      { type: 'refundComplete', ...event },
    ]);

    // Both arrived at a receiver that verified them.
    const got = receiver.list().filter((w) => w.channelId === channel.channelId);
    expect(got.map((w) => w.eventTypes)).toEqual([['refundComplete'], ['purchaseComplete']]);
    expect(got.every((w) => w.signature === 'valid' && w.status === 200)).toBe(true);
    expect(got[0]!.signatureHeader).toBe(await lastSignature());
  });

  async function lastSignature() {
    const [last] = (await admin('GET', `/webhooks?channelId=${channel.channelId}&limit=1`))
      .body as {
      signature: string;
    }[];
    return last!.signature;
  }

  it('answers 409 for a move the order cannot make, 404 for an unknown order', async () => {
    const orderId = await reserved();
    expect((await admin('POST', `/iap/orders/${orderId}/refund`)).status).toBe(409);
    expect((await admin('POST', `/iap/orders/${orderId}/complete`)).status).toBe(200);
    expect((await admin('POST', `/iap/orders/${orderId}/complete`)).status).toBe(409);
    expect((await admin('POST', '/iap/orders/none/complete')).status).toBe(404);
    expect((await orders())[0]!.state).toBe('COMPLETED');
  });

  it('keeps a FAILED delivery when the receiver refuses', async () => {
    const orderId = await reserved();
    await admin('PUT', '/webhooks/urls', {
      channelId: channel.channelId,
      url: 'http://127.0.0.1:9/none',
    });
    const res = await admin('POST', `/iap/orders/${orderId}/complete`);
    expect((res.body as { delivery: { status: string } }).delivery.status).toBe('FAILED');
  });

  it('signs with the documented header', () => {
    expect(SIGNATURE_HEADER).toBe('x-platform-signature');
  });
});

describe('webhook history', () => {
  beforeEach(() => setUp());
  const history = (
    query: Record<string, string | number> = {},
    token = channel.channelAccessToken,
  ) =>
    emu().call(
      'GET',
      `/iap/v1/webhook/events?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
      undefined,
      token,
    );
  interface Page {
    events: { transactionType: string; event: { orderId: string; type: string }; status: string }[];
    nextCursor: string | null;
  }
  async function purchase(): Promise<string> {
    const orderId = await reserved();
    await admin('POST', `/iap/orders/${orderId}/complete`);
    await admin('POST', '/clock/advance', { ms: 1000 });
    return orderId;
  }

  it('answers 403 FORBIDDEN when the channel has no in-app purchase, as reserve does', async () => {
    await purchase();
    await admin('PUT', `/embed/channels/${channel.channelId}`, { inAppPurchase: false });
    expectError(await history(), 403, 'FORBIDDEN');
    await admin('PUT', `/embed/channels/${channel.channelId}`, { inAppPurchase: true });
    expect(((await history()).body as Page).events).toHaveLength(1);
  });

  it('pages ascending across three pages and ends with a null cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await purchase());
    const first = (await history({ pageSize: 2 })).body as Page;
    expect(first.events.map((e) => e.event.orderId)).toEqual(ids.slice(0, 2));
    expect(first.events[0]).toMatchObject({ transactionType: 'PRODUCT', status: 'SUCCESS' });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await history({ pageSize: 2, cursor: first.nextCursor! })).body as Page;
    expect(second.events.map((e) => e.event.orderId)).toEqual(ids.slice(2, 4));
    const third = (await history({ pageSize: 2, cursor: second.nextCursor! })).body as Page;
    expect(third.events.map((e) => e.event.orderId)).toEqual(ids.slice(4));
    expect(third.nextCursor).toBeNull();

    // Changing another parameter with the cursor starts again from the first page.
    const restarted = (await history({ pageSize: 3, cursor: first.nextCursor! })).body as Page;
    expect(restarted.events.map((e) => e.event.orderId)).toEqual(ids.slice(0, 3));
    const withStatus = (
      await history({ pageSize: 2, status: 'SUCCESS', cursor: first.nextCursor! })
    ).body as Page;
    expect(withStatus.events.map((e) => e.event.orderId)).toEqual(ids.slice(0, 2));
  });

  it('lists purchase events only, of the calling channel, filtered by status', async () => {
    const ok = await purchase();
    await admin('POST', `/iap/orders/${ok}/refund`);
    await admin('PUT', '/webhooks/urls', {
      channelId: channel.channelId,
      url: 'http://127.0.0.1:9/x',
    });
    const failed = await purchase();
    const all = (await history()).body as Page;
    expect(all.events.map((e) => [e.event.orderId, e.event.type, e.status])).toEqual([
      [ok, 'purchaseComplete', 'SUCCESS'],
      [failed, 'purchaseComplete', 'FAILED'],
    ]);
    expect(
      ((await history({ status: 'FAILED' })).body as Page).events.map((e) => e.event.orderId),
    ).toEqual([failed]);
    expect(
      ((await history({ status: 'SUCCESS' })).body as Page).events.map((e) => e.event.orderId),
    ).toEqual([ok]);
    const other = (await admin('POST', '/channels', { name: 'Other' })).body as Channel;
    expect((await history({}, other.channelAccessToken)).body).toEqual({
      events: [],
      nextCursor: null,
    });
  });

  it('treats both bounds as inclusive and keeps a 7-day window', async () => {
    const orderId = await purchase();
    const [delivery] = (await admin('GET', `/webhooks?channelId=${channel.channelId}&limit=1`))
      .body as {
      startedAt: number;
    }[];
    const at = Math.floor(delivery!.startedAt / 1000);
    const ids = async (q: Record<string, number>) =>
      ((await history(q)).body as Page).events.map((e) => e.event.orderId);
    expect(await ids({ startEpochSeconds: at, endEpochSeconds: at })).toEqual([orderId]);
    expect(await ids({ startEpochSeconds: at + 1 })).toEqual([]);
    expect(await ids({ startEpochSeconds: at - 10, endEpochSeconds: at - 1 })).toEqual([]);
    await admin('POST', '/clock/advance', { ms: 7 * 86_400_000 + 5000 });
    expect(await ids({})).toEqual([]);
    const old = await history({ startEpochSeconds: at });
    expectError(old, 400, 'VALIDATION_ERROR');
    expect((old.body as ErrorBody).details[0]!.property).toBe('startEpochSeconds');
  });

  const badQueries: [string, Record<string, string | number>, string][] = [
    ['status other than SUCCESS/FAILED', { status: 'PENDING' }, 'status'],
    ['pageSize 0', { pageSize: 0 }, 'pageSize'],
    ['pageSize 101', { pageSize: 101 }, 'pageSize'],
    ['pageSize not a number', { pageSize: 'ten' }, 'pageSize'],
    ['start not a number', { startEpochSeconds: 'yesterday' }, 'startEpochSeconds'],
    [
      'end in the future',
      { endEpochSeconds: Math.floor(Date.now() / 1000) + 400 * 86_400 },
      'endEpochSeconds',
    ],
    ['cursor not one of ours', { cursor: 'garbage' }, 'cursor'],
  ];
  it.each(badQueries)('answers VALIDATION_ERROR: %s', async (_n, query, property) => {
    const body = expectError(await history(query), 400, 'VALIDATION_ERROR');
    expect(body.details.map((d) => d.property)).toContain(property);
  });

  it('answers VALIDATION_ERROR when start is after end', async () => {
    const now = Math.floor(((await admin('GET', '/clock')).body as { now: number }).now / 1000);
    const body = expectError(
      await history({ startEpochSeconds: now - 10, endEpochSeconds: now - 20 }),
      400,
      'VALIDATION_ERROR',
    );
    expect(body.details[0]!.property).toBe('endEpochSeconds');
  });

  it('answers 401 with an error object without a channel token, INTERNAL_SERVER_ERROR on a fault', async () => {
    expectError(await history({}, 'bogus'), 401, 'UNAUTHORIZED');
    await admin('POST', '/faults', { kind: 'status', status: 500, pathPrefix: '/iap/v1/webhook' });
    expectError(await history(), 500, 'INTERNAL_SERVER_ERROR');
    expect((await history()).status).toBe(200);
  });
});

describe('iap admin', () => {
  beforeEach(() => setUp({ webhook: false, agreed: false }));

  it('keeps a catalogue per channel and refuses bad products', async () => {
    const products = (await admin('GET', `/iap/products?channelId=${channel.channelId}`)).body;
    expect(products).toEqual([
      { productId: 'gems_100', currency: 'JPY', price: 160, productName: '100 gems' },
    ]);
    const bad = await admin('PUT', '/iap/products', {
      channelId: channel.channelId,
      productId: 'x',
      currency: 'yen',
      price: -1,
      productName: '',
    });
    expect(bad.status).toBe(400);
    expect(
      (bad.body as { details: { property: string }[] }).details.map((d) => d.property),
    ).toEqual(['currency', 'price', 'productName']);
    expect(
      (await admin('PUT', '/iap/products', { ...(products as object[])[0], channelId: '1' }))
        .status,
    ).toBe(404);
    expect((await admin('DELETE', `/iap/products/${channel.channelId}/gems_100`)).status).toBe(204);
    expect((await admin('GET', `/iap/products?channelId=${channel.channelId}`)).body).toEqual([]);
  });

  it('keeps users blocked and agreed flags', async () => {
    expect((await admin('GET', `/iap/users/${userId}`)).body).toEqual({
      userId,
      blocked: false,
      termsAgreed: false,
    });
    expect((await admin('PUT', `/iap/users/${userId}`, { blocked: 'no' })).status).toBe(400);
    expect((await admin('PUT', `/iap/users/${userId}`, { blocked: true })).body).toEqual({
      userId,
      blocked: true,
      termsAgreed: false,
    });
  });
});
