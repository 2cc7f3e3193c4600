// In-app purchase emulator (docs/platform-api.md#iap): reserve with a user access token, every
// errorCode of docs/platform-api.md#iap-server, orders the admin API completes or refunds (each
// sending a signed purchaseComplete or refundComplete webhook), and the webhook history of purchase
// events.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { notFound, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import { bearerTokenOf, refuseBearer } from '../bearer';
import { sql, type Db } from '../store';
import type { WebhookDelivery } from '../../webhooks/schema';
import { fieldErrors } from '../../platform/field-errors';
import { ChannelAccess } from '../embed/channel-access';
import { decodeCursor, encodeCursor, queryKey } from './history';
import {
  HISTORY_WINDOW_SECONDS,
  historyQuerySchema,
  productSchema,
  reserveInputSchema,
  type HistoryPage,
  type IapErrorBody,
  type IapErrorCode,
  type IapUserState,
  type Order,
  type Product,
  type PurchaseEvent,
} from '../../platform/iap/schema';

const DEFAULT_PAGE_SIZE = 100;

const STATUS_CODES: Record<number, IapErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  413: 'VALIDATION_ERROR',
  429: 'TOO_MANY_REQUESTS',
};

interface OrderRow {
  order_id: string;
  channel_id: string;
  user_id: string;
  product_id: string;
  shop_product_name: string;
  client_ip: string;
  client_os: string;
  state: Order['state'];
  reserved_at: number;
  purchase_timestamp: number | null;
  refunded_at: number | null;
}

function toOrder(row: OrderRow): Order {
  return {
    orderId: row.order_id,
    channelId: row.channel_id,
    userId: row.user_id,
    productId: row.product_id,
    shopProductName: row.shop_product_name,
    clientIp: row.client_ip,
    clientOs: row.client_os,
    state: row.state,
    reservedAt: row.reserved_at,
    purchaseTimestamp: row.purchase_timestamp,
    refundedAt: row.refunded_at,
  };
}

function fail(
  reply: FastifyReply,
  status: number,
  errorCode: IapErrorCode,
  message: string,
  details: IapErrorBody['details'] = [],
): void {
  void reply.code(status).send({ errorCode, message, details } satisfies IapErrorBody);
}

function invalid(reply: FastifyReply, error: z.ZodError): void {
  const details = fieldErrors(error).map((e) => ({ property: e.field, message: e.message }));
  fail(
    reply,
    400,
    'VALIDATION_ERROR',
    `Invalid value: ${details.map((d) => `${d.property}: ${d.message}`).join('; ')}`,
    details,
  );
}

function userState(db: Db, userId: string): IapUserState {
  const row = sql(db, 'SELECT blocked, terms_agreed FROM iap_users WHERE user_id = ?').get(
    userId,
  ) as { blocked: number; terms_agreed: number } | undefined;
  return { userId, blocked: row?.blocked === 1, termsAgreed: row?.terms_agreed === 1 };
}

function product(db: Db, channelId: string, productId: string): Product | undefined {
  return sql(
    db,
    `SELECT product_id AS productId, currency, price, product_name AS productName
       FROM iap_products WHERE channel_id = ? AND product_id = ?`,
  ).get(channelId, productId) as Product | undefined;
}

function routes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { db, clock, directory, userTokens, webhooks } = ctx;
  const access = new ChannelAccess(db, clock, directory);
  const open = { config: { auth: 'none' as const } };

  void app.register(async (scope) => {
    // Every 4xx/5xx of this API is the error object of docs/platform-api.md#iap-server, whoever
    // answered it (an injected fault, the body parser, the size limit): give those bodies an
    // errorCode.
    scope.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return done(null, payload);
      let body: { errorCode?: unknown; message?: unknown; details?: unknown };
      try {
        body = JSON.parse(payload) as typeof body;
      } catch {
        body = { message: payload };
      }
      if (typeof body.errorCode === 'string') return done(null, payload);
      const converted: IapErrorBody = {
        errorCode:
          STATUS_CODES[reply.statusCode] ??
          (reply.statusCode >= 500 ? 'INTERNAL_SERVER_ERROR' : 'VALIDATION_ERROR'),
        message: typeof body.message === 'string' ? body.message : `HTTP ${reply.statusCode}`,
        details: Array.isArray(body.details) ? (body.details as IapErrorBody['details']) : [],
      };
      void reply.header('content-type', 'application/json; charset=utf-8');
      done(null, JSON.stringify(converted));
    });

    scope.post('/iap/v1/product/reserve', open, async (req, reply) => {
      const user = userTokens.fromRequest(req);
      if (!user) {
        const message =
          'Authentication failed: an Authorization: Bearer <user access token> header with a valid token is required.';
        return refuseBearer(
          reply,
          bearerTokenOf(req) === undefined ? 'invalid_request' : 'invalid_token',
          message,
          { errorCode: 'UNAUTHORIZED', message, details: [] } satisfies IapErrorBody,
        );
      }
      const channelId = user.channelId;
      if (!access.settings(channelId).inAppPurchase)
        return fail(reply, 403, 'FORBIDDEN', 'In-app purchase is not enabled for this channel.');
      const parsed = reserveInputSchema.safeParse(req.body ?? {});
      if (!parsed.success) return invalid(reply, parsed.error);
      const input = parsed.data;
      const state = userState(db, user.userId);
      if (state.blocked)
        return fail(
          reply,
          403,
          'BLOCKED_USER',
          'The user was judged fraudulent; requests for this user cannot be processed.',
        );
      if (!state.termsAgreed)
        return fail(
          reply,
          403,
          'TERMS_AGREEMENT_ERROR',
          'The user has not agreed to the latest in-app purchase terms.',
        );
      if (!webhooks.url(channelId))
        return fail(
          reply,
          400,
          'WEBHOOK_URL_IS_NOT_SET',
          'No webhook URL is set for payment notifications on this channel.',
        );
      if (!product(db, channelId, input.productId))
        return fail(
          reply,
          400,
          'PRODUCT_ID_NOT_FOUND',
          `Product ${input.productId} does not exist.`,
          [{ property: 'productId', message: 'does not exist' }],
        );
      const orderId = randomUUID();
      sql(
        db,
        `INSERT INTO iap_orders (order_id, channel_id, user_id, product_id, shop_product_name,
           client_ip, client_os, state, reserved_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'RESERVED', ?)`,
      ).run(
        orderId,
        channelId,
        user.userId,
        input.productId,
        input.shopProductName,
        input.clientIp,
        input.clientOs,
        clock.now(),
      );
      return { orderId };
    });

    scope.get('/iap/v1/webhook/events', open, async (req, reply) => {
      const caller = access.authenticate(req, reply);
      if (!caller) return;
      // Reading the history is part of in-app purchase, which needs the application
      // (docs/platform-api.md#iap-server): the same 403 as reserve.
      if (!access.settings(caller.channel.channelId).inAppPurchase)
        return fail(reply, 403, 'FORBIDDEN', 'In-app purchase is not enabled for this channel.');
      const parsed = historyQuerySchema.safeParse(req.query ?? {});
      if (!parsed.success) return invalid(reply, parsed.error);
      const query = parsed.data;
      const now = Math.floor(clock.now() / 1000);
      const oldest = now - HISTORY_WINDOW_SECONDS;
      const problems: IapErrorBody['details'] = [];
      for (const key of ['startEpochSeconds', 'endEpochSeconds'] as const) {
        const value = query[key];
        if (value !== undefined && (value < oldest || value > now))
          problems.push({
            property: key,
            message: `must be within the past 7 days (${oldest} to ${now})`,
          });
      }
      const start = query.startEpochSeconds ?? oldest;
      const end = query.endEpochSeconds ?? now;
      if (!problems.length && start > end)
        problems.push({
          property: 'endEpochSeconds',
          message: 'must not be before startEpochSeconds',
        });
      const key = queryKey(query);
      const position = query.cursor === undefined ? 'first' : decodeCursor(query.cursor, key);
      if (position === 'invalid')
        problems.push({ property: 'cursor', message: 'is not a cursor this endpoint returned' });
      if (problems.length)
        return fail(
          reply,
          400,
          'VALIDATION_ERROR',
          `Invalid value: ${problems.map((p) => `${p.property}: ${p.message}`).join('; ')}`,
          problems,
        );

      const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
      const after = position === 'first' || position === 'invalid' ? undefined : position;
      const rows = sql(
        db,
        `SELECT e.body, d.id, d.status, d.started_at FROM iap_events e
           JOIN webhook_deliveries d ON d.id = e.delivery_id
         WHERE e.channel_id = @channelId AND e.type = 'purchaseComplete'
           AND d.started_at >= @from AND d.started_at < @to
           AND (@status IS NULL OR d.status = @status)
           AND (@afterAt IS NULL OR d.started_at > @afterAt OR (d.started_at = @afterAt AND d.id > @afterId))
         ORDER BY d.started_at, d.id LIMIT @limit`,
      ).all({
        channelId: caller.channel.channelId,
        from: start * 1000,
        to: (end + 1) * 1000,
        status: query.status ?? null,
        afterAt: after?.startedAt ?? null,
        afterId: after?.id ?? 0,
        limit: pageSize + 1,
      }) as { body: string; id: number; status: string; started_at: number }[];
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      return {
        events: page.map((r) => ({
          transactionType: 'PRODUCT',
          event: JSON.parse(r.body) as Record<string, unknown>,
          status: r.status,
          deliveryStartedAt: Math.floor(r.started_at / 1000),
        })),
        nextCursor:
          rows.length > pageSize && last
            ? encodeCursor(key, { startedAt: last.started_at, id: last.id })
            : null,
      } satisfies HistoryPage;
    });
  });
}

const channelQuery = z.object({ channelId: z.string().regex(/^\d+$/, 'must be a channel ID') });
const putProductInput = productSchema.extend(channelQuery.shape);
const userStateInput = z.object({
  blocked: z.boolean({ error: 'must be true or false' }).optional(),
  termsAgreed: z.boolean({ error: 'must be true or false' }).optional(),
});

function admin(app: FastifyInstance, ctx: EmulatorContext): void {
  const { db, clock, directory, webhooks } = ctx;
  const knownChannel = (channelId: string) =>
    directory.channels().some((c) => c.channelId === channelId);

  app.get('/products', async (req, reply) => {
    const query = parseOr400(channelQuery, req.query, reply);
    if (!query) return;
    return sql(
      db,
      `SELECT product_id AS productId, currency, price, product_name AS productName
         FROM iap_products WHERE channel_id = ? ORDER BY product_id`,
    ).all(query.channelId);
  });
  app.put('/products', async (req, reply) => {
    const input = parseOr400(putProductInput, req.body, reply);
    if (!input) return;
    if (!knownChannel(input.channelId)) return notFound(reply, `No channel ${input.channelId}.`);
    sql(
      db,
      `INSERT OR REPLACE INTO iap_products (channel_id, product_id, currency, price, product_name)
       VALUES (?, ?, ?, ?, ?)`,
    ).run(input.channelId, input.productId, input.currency, input.price, input.productName);
    return productSchema.parse(input);
  });
  app.delete<{ Params: { channelId: string; productId: string } }>(
    '/products/:channelId/:productId',
    async (req, reply) => {
      const { changes } = sql(
        db,
        'DELETE FROM iap_products WHERE channel_id = ? AND product_id = ?',
      ).run(req.params.channelId, req.params.productId);
      return changes ? reply.code(204).send() : notFound(reply, 'No such product.');
    },
  );

  app.get<{ Params: { userId: string } }>('/users/:userId', async (req) =>
    userState(db, req.params.userId),
  );
  app.put<{ Params: { userId: string } }>('/users/:userId', async (req, reply) => {
    const input = parseOr400(userStateInput, req.body, reply);
    if (!input) return;
    const next = { ...userState(db, req.params.userId), ...input };
    sql(
      db,
      'INSERT OR REPLACE INTO iap_users (user_id, blocked, terms_agreed) VALUES (?, ?, ?)',
    ).run(next.userId, Number(next.blocked), Number(next.termsAgreed));
    return next;
  });

  app.get('/orders', async (req, reply) => {
    const query = parseOr400(channelQuery.partial(), req.query, reply);
    if (!query) return;
    return (
      sql(
        db,
        `SELECT * FROM iap_orders WHERE (@channelId IS NULL OR channel_id = @channelId)
         ORDER BY reserved_at DESC, rowid DESC LIMIT 200`,
      ).all({ channelId: query.channelId ?? null }) as OrderRow[]
    ).map(toOrder);
  });

  /** Moves an order on and sends its event; 409 when the order is not in the state it needs. */
  async function settle(
    orderId: string,
    reply: FastifyReply,
    from: Order['state'],
    type: PurchaseEvent['type'],
  ) {
    const row = sql(db, 'SELECT * FROM iap_orders WHERE order_id = ?').get(orderId) as
      OrderRow | undefined;
    if (!row) return notFound(reply, `No order ${orderId}.`);
    if (row.state !== from)
      return reply.code(409).send({
        message: `Order ${orderId} is ${row.state}; only a ${from} order can be ${type === 'purchaseComplete' ? 'completed' : 'refunded'}.`,
      });
    const purchaseTimestamp = row.purchase_timestamp ?? Math.floor(clock.now() / 1000);
    if (type === 'purchaseComplete')
      sql(
        db,
        "UPDATE iap_orders SET state = 'COMPLETED', purchase_timestamp = ? WHERE order_id = ?",
      ).run(purchaseTimestamp, orderId);
    else
      sql(db, "UPDATE iap_orders SET state = 'REFUNDED', refunded_at = ? WHERE order_id = ?").run(
        clock.now(),
        orderId,
      );
    const event: PurchaseEvent = {
      type,
      orderId,
      productId: row.product_id,
      userId: row.user_id,
      purchaseTimestamp,
      channelId: row.channel_id,
    };
    const delivery: WebhookDelivery = await webhooks.deliver(row.channel_id, `iap.${type}`, {
      destination: row.channel_id,
      events: [event],
    });
    sql(
      db,
      'INSERT INTO iap_events (channel_id, order_id, type, body, delivery_id) VALUES (?, ?, ?, ?, ?)',
    ).run(row.channel_id, orderId, type, JSON.stringify(event), delivery.id);
    const updated = sql(db, 'SELECT * FROM iap_orders WHERE order_id = ?').get(orderId) as OrderRow;
    return { order: toOrder(updated), event, delivery };
  }

  app.post<{ Params: { orderId: string } }>('/orders/:orderId/complete', (req, reply) =>
    settle(req.params.orderId, reply, 'RESERVED', 'purchaseComplete'),
  );
  app.post<{ Params: { orderId: string } }>('/orders/:orderId/refund', (req, reply) =>
    settle(req.params.orderId, reply, 'COMPLETED', 'refundComplete'),
  );
}

export const iapArea: EmulatorArea = {
  name: 'iap',
  migrate({ db }) {
    ChannelAccess.migrate(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS iap_products (
        channel_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        price REAL NOT NULL,
        product_name TEXT NOT NULL,
        PRIMARY KEY (channel_id, product_id)
      );
      CREATE TABLE IF NOT EXISTS iap_users (
        user_id TEXT PRIMARY KEY,
        blocked INTEGER NOT NULL,
        terms_agreed INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS iap_orders (
        order_id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        shop_product_name TEXT NOT NULL,
        client_ip TEXT NOT NULL,
        client_os TEXT NOT NULL,
        state TEXT NOT NULL,
        reserved_at INTEGER NOT NULL,
        purchase_timestamp INTEGER,
        refunded_at INTEGER
      );
      CREATE TABLE IF NOT EXISTS iap_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        delivery_id INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS iap_events_by_channel ON iap_events (channel_id, type);
    `);
  },
  routes,
  admin,
};
