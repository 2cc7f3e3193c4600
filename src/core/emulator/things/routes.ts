// Device service emulator (docs/platform-api.md#things-endpoints): trial products (≤ 10 per
// channel), scenario sets with revisions, devices and links. The admin API registers devices and
// links them to users, standing in for the messaging client a real user would link with.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  callerChannel,
  notFound,
  parseOr400,
  type EmulatorArea,
  type EmulatorContext,
} from '../area';
import { nextSequence, sql, type Db } from '../store';
import type { WebhookDelivery } from '../../webhooks/schema';
import { SCENARIO_RESULT_KIND } from '../../platform/things/event-schema';
import { deliverScenarioResultsInputSchema } from '../schema';
import { userIdField } from '../../platform/user-id';
import { dryRunDeviceId, scenarioResultEnvelope } from '../../platform/things/events';
import {
  createTrialProductSchema,
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
  scenarioSetInputSchema,
  TRIAL_PRODUCT_LIMIT,
  type Device,
  type ScenarioSet,
  type TrialProduct,
} from '../../platform/things/schema';

/** Every trial product's service UUID shares this prefix; the last group is its number. */
const SERVICE_UUID_PREFIX = '9d5e0000-4a1b-4c8e-9f0d-';
const FIRST_PRODUCT_ID = 3_000_000_000;

const registerDeviceInput = z.object({
  productId: z.string({ error: 'is required' }).min(1, 'is required'),
  productSpecificDeviceId: z.string({ error: 'is required' }).trim().min(1, 'is required').max(256),
  userId: userIdField.optional(),
});
const linkInput = z.object({ deviceId: z.string({ error: 'is required' }), userId: userIdField });

interface ProductRow {
  id: string;
  channel_id: number;
  name: string;
  service_uuid: string;
}
interface SetRow {
  product_id: string;
  auto_close: number;
  suppression_interval: number;
  revision: number;
  scenarios: string;
  created_at: number;
  updated_at: number;
}
interface DeviceRow {
  id: string;
  product_id: string;
  psdi: string;
}

function toProduct(row: ProductRow): TrialProduct {
  return {
    id: row.id,
    name: row.name,
    type: 'BLE',
    channelId: row.channel_id,
    serviceUuid: row.service_uuid,
    psdiServiceUuid: PLATFORM_PSDI_SERVICE_UUID,
    psdiCharacteristicUuid: PLATFORM_PSDI_CHARACTERISTIC_UUID,
  };
}

function toSet(row: SetRow): ScenarioSet {
  return {
    productId: row.product_id,
    autoClose: row.auto_close === 1,
    suppressionInterval: row.suppression_interval,
    revision: row.revision,
    scenarios: JSON.parse(row.scenarios) as ScenarioSet['scenarios'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toDevice(row: DeviceRow): Device {
  return { id: row.id, productId: row.product_id, productSpecificDeviceId: row.psdi };
}

/** The product if it exists and belongs to the channel: another channel's product is a 404. */
function ownedProduct(db: Db, productId: string, channelId: string): ProductRow | undefined {
  return sql(db, 'SELECT * FROM things_products WHERE id = ? AND channel_id = ?').get(
    productId,
    Number(channelId),
  ) as ProductRow | undefined;
}

function routes(app: FastifyInstance, { db, clock }: EmulatorContext): void {
  // Each channel's product list, serialized: clients poll it far more often than it changes.
  // Every write to things_products clears its channel's entry.
  const productLists = new Map<number, string>();
  const productGone = (reply: FastifyReply) => notFound(reply, 'Product not found.');

  app.get<{ Params: { deviceId: string } }>('/things/v1/devices/:deviceId', async (req, reply) => {
    const row = sql(
      db,
      `SELECT d.* FROM things_devices d JOIN things_products p ON p.id = d.product_id
         WHERE d.id = ? AND p.channel_id = ?`,
    ).get(req.params.deviceId, Number(callerChannel(req).channelId)) as DeviceRow | undefined;
    return row ? toDevice(row) : notFound(reply, 'Device not found.');
  });

  app.get<{ Params: { productId: string; userId: string } }>(
    '/things/v1/products/:productId/users/:userId/links',
    async (req, reply) => {
      const userId = parseOr400(z.object({ userId: userIdField }), req.params, reply)?.userId;
      if (!userId) return;
      const product = ownedProduct(db, req.params.productId, callerChannel(req).channelId);
      if (!product) return productGone(reply);
      const rows = sql(
        db,
        `SELECT d.*, l.user_id FROM things_links l JOIN things_devices d ON d.id = l.device_id
           WHERE d.product_id = ? AND l.user_id = ? ORDER BY l.created_at, d.id`,
      ).all(product.id, userId) as (DeviceRow & { user_id: string })[];
      return {
        items: rows.map((r) => ({
          userId: r.user_id,
          device: toDevice(r),
          deviceDisplayName: product.name,
        })),
      };
    },
  );

  app.post('/things/v1/trial/products', async (req, reply) => {
    const input = parseOr400(createTrialProductSchema, req.body, reply);
    if (!input) return;
    const channelId = Number(callerChannel(req).channelId);
    const { n } = sql(db, 'SELECT COUNT(*) AS n FROM things_products WHERE channel_id = ?').get(
      channelId,
    ) as { n: number };
    if (n >= TRIAL_PRODUCT_LIMIT)
      return reply.code(403).send({
        message: `The maximum number of trial products (${TRIAL_PRODUCT_LIMIT}) has been reached.`,
      });
    const row: ProductRow = db.transaction(() => {
      const seq = nextSequence(db, 'things.product');
      const created = {
        id: String(FIRST_PRODUCT_ID + seq),
        channel_id: channelId,
        name: input.name,
        service_uuid: SERVICE_UUID_PREFIX + seq.toString(16).padStart(12, '0'),
      };
      sql(
        db,
        `INSERT INTO things_products (id, channel_id, name, service_uuid, created_at)
         VALUES (@id, @channel_id, @name, @service_uuid, @created_at)`,
      ).run({ ...created, created_at: clock.now() });
      return created;
    })();
    productLists.delete(channelId);
    return toProduct(row);
  });

  app.get('/things/v1/trial/products', (req, reply) => {
    const channelId = Number(callerChannel(req).channelId);
    let body = productLists.get(channelId);
    if (body === undefined) {
      const rows = sql(
        db,
        'SELECT * FROM things_products WHERE channel_id = ? ORDER BY created_at, id',
      ).all(channelId) as ProductRow[];
      productLists.set(channelId, (body = JSON.stringify(rows.map(toProduct))));
    }
    void reply.type('application/json; charset=utf-8').send(body);
  });

  app.delete<{ Params: { productId: string } }>(
    '/things/v1/trial/products/:productId',
    async (req, reply) => {
      const product = ownedProduct(db, req.params.productId, callerChannel(req).channelId);
      if (!product) return productGone(reply);
      // Scenario set, devices and links go with the product (ON DELETE CASCADE).
      sql(db, 'DELETE FROM things_products WHERE id = ?').run(product.id);
      productLists.delete(product.channel_id);
      return reply.code(204).send();
    },
  );

  app.put<{ Params: { productId: string } }>(
    '/things/v1/products/:productId/scenario-set',
    async (req, reply) => {
      const product = ownedProduct(db, req.params.productId, callerChannel(req).channelId);
      if (!product) return productGone(reply);
      const input = parseOr400(scenarioSetInputSchema, req.body, reply);
      if (!input) return;
      const now = clock.now();
      const existing = sql(db, 'SELECT * FROM things_scenario_sets WHERE product_id = ?').get(
        product.id,
      ) as SetRow | undefined;
      const keptIds = new Set(existing ? toSet(existing).scenarios.map((s) => s.id) : []);
      const scenarios = input.scenarios.map(({ id, trigger, actions }) => ({
        id: id && keptIds.has(id) ? id : randomUUID(),
        trigger,
        actions,
      }));
      const row: SetRow = {
        product_id: product.id,
        auto_close: input.autoClose ? 1 : 0,
        suppression_interval: input.suppressionInterval,
        revision: (existing?.revision ?? 0) + 1,
        scenarios: JSON.stringify(scenarios),
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      sql(
        db,
        `INSERT OR REPLACE INTO things_scenario_sets
         (product_id, auto_close, suppression_interval, revision, scenarios, created_at, updated_at)
         VALUES (@product_id, @auto_close, @suppression_interval, @revision, @scenarios, @created_at, @updated_at)`,
      ).run(row);
      return toSet(row);
    },
  );

  app.get<{ Params: { productId: string } }>(
    '/things/v1/products/:productId/scenario-set',
    async (req, reply) => {
      const product = ownedProduct(db, req.params.productId, callerChannel(req).channelId);
      if (!product) return productGone(reply);
      const row = sql(db, 'SELECT * FROM things_scenario_sets WHERE product_id = ?').get(
        product.id,
      ) as SetRow | undefined;
      return row ? toSet(row) : notFound(reply, 'Scenario set not found.');
    },
  );

  app.delete<{ Params: { productId: string } }>(
    '/things/v1/products/:productId/scenario-set',
    async (req, reply) => {
      const product = ownedProduct(db, req.params.productId, callerChannel(req).channelId);
      if (!product) return productGone(reply);
      const { changes } = sql(db, 'DELETE FROM things_scenario_sets WHERE product_id = ?').run(
        product.id,
      );
      return changes ? reply.code(204).send() : notFound(reply, 'Scenario set not found.');
    },
  );
}

function admin(app: FastifyInstance, { db, clock, directory, webhooks }: EmulatorContext): void {
  const linkDevice = (deviceId: string, userId: string) => {
    if (!directory.user(userId)) directory.createUser('Bench user', userId);
    sql(
      db,
      `INSERT INTO things_links (device_id, user_id, created_at) VALUES (?, ?, ?)
       ON CONFLICT(device_id) DO UPDATE SET user_id = excluded.user_id, created_at = excluded.created_at`,
    ).run(deviceId, userId, clock.now());
    return { deviceId, userId };
  };

  app.get('/devices', async () =>
    sql(
      db,
      `SELECT d.id, d.product_id AS productId, d.psdi AS productSpecificDeviceId,
                l.user_id AS userId
         FROM things_devices d LEFT JOIN things_links l ON l.device_id = d.id
         ORDER BY d.created_at, d.id`,
    ).all(),
  );

  app.post('/devices', async (req, reply) => {
    const input = parseOr400(registerDeviceInput, req.body, reply);
    if (!input) return;
    const product = sql(db, 'SELECT id FROM things_products WHERE id = ?').get(input.productId);
    if (!product) return notFound(reply, `productId: no trial product ${input.productId}.`);
    const clash = sql(db, 'SELECT id FROM things_devices WHERE product_id = ? AND psdi = ?').get(
      input.productId,
      input.productSpecificDeviceId,
    );
    if (clash)
      return reply.code(409).send({
        message: `productSpecificDeviceId: ${input.productSpecificDeviceId} is already registered for product ${input.productId}.`,
      });
    const device: Device = {
      id: randomUUID(),
      productId: input.productId,
      productSpecificDeviceId: input.productSpecificDeviceId,
    };
    db.transaction(() => {
      sql(
        db,
        'INSERT INTO things_devices (id, product_id, psdi, created_at) VALUES (?, ?, ?, ?)',
      ).run(device.id, device.productId, device.productSpecificDeviceId, clock.now());
      if (input.userId) linkDevice(device.id, input.userId);
    })();
    return reply.code(201).send({ device, link: input.userId ? { userId: input.userId } : null });
  });

  app.post('/links', async (req, reply) => {
    const input = parseOr400(linkInput, req.body, reply);
    if (!input) return;
    if (!sql(db, 'SELECT id FROM things_devices WHERE id = ?').get(input.deviceId))
      return notFound(reply, `deviceId: no device ${input.deviceId}.`);
    return reply.code(201).send(linkDevice(input.deviceId, input.userId));
  });

  app.delete<{ Params: { deviceId: string } }>('/links/:deviceId', async (req, reply) => {
    const { changes } = sql(db, 'DELETE FROM things_links WHERE device_id = ?').run(
      req.params.deviceId,
    );
    return changes ? reply.code(204).send() : notFound(reply, 'No link for that device.');
  });

  // Stands in for the platform's client reporting scenario runs: each result goes to the
  // product's channel as its own envelope, in order, and the call answers once all are kept.
  app.post('/scenario-results', async (req, reply) => {
    const input = parseOr400(deliverScenarioResultsInputSchema, req.body, reply);
    if (!input) return;
    const product = sql(db, 'SELECT id, channel_id FROM things_products WHERE id = ?').get(
      input.productId,
    ) as { id: string; channel_id: number } | undefined;
    if (!product) return notFound(reply, `productId: no trial product ${input.productId}.`);
    const device =
      input.productSpecificDeviceId === undefined
        ? undefined
        : (sql(
            db,
            `SELECT d.id, l.user_id AS userId FROM things_devices d
               LEFT JOIN things_links l ON l.device_id = d.id
             WHERE d.product_id = ? AND d.psdi = ?`,
          ).get(product.id, input.productSpecificDeviceId) as
            { id: string; userId: string | null } | undefined);
    const deviceId = device?.id ?? dryRunDeviceId(product.id, input.productSpecificDeviceId);
    const userId =
      input.userId ??
      device?.userId ??
      (directory.users()[0] ?? directory.createUser('Bench user')).userId;
    const channelId = String(product.channel_id);
    const deliveries: WebhookDelivery[] = [];
    for (const result of input.results) {
      const envelope = scenarioResultEnvelope({
        destination: channelId,
        deviceId,
        userId,
        result,
        now: clock.now(),
      });
      deliveries.push(await webhooks.deliver(channelId, SCENARIO_RESULT_KIND, envelope));
    }
    return deliveries;
  });
}

export const thingsArea: EmulatorArea = {
  name: 'things',
  migrate({ db }) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS things_products (
        id TEXT PRIMARY KEY,
        channel_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        service_uuid TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS things_products_by_channel ON things_products (channel_id, created_at, id);
      CREATE TABLE IF NOT EXISTS things_scenario_sets (
        product_id TEXT PRIMARY KEY REFERENCES things_products (id) ON DELETE CASCADE,
        auto_close INTEGER NOT NULL,
        suppression_interval INTEGER NOT NULL,
        revision INTEGER NOT NULL,
        scenarios TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS things_devices (
        id TEXT PRIMARY KEY,
        product_id TEXT NOT NULL REFERENCES things_products (id) ON DELETE CASCADE,
        psdi TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (product_id, psdi)
      );
      CREATE TABLE IF NOT EXISTS things_links (
        device_id TEXT PRIMARY KEY REFERENCES things_devices (id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `);
  },
  routes,
  admin,
};
