// Notification messages emulator (docs/platform-api.md#notifications): template (202) and flexible
// (200) sends to hashed phone numbers, the four 422 causes driven by phone users the admin API
// seeds, the endpoint permission (403), a template catalogue ("account cannot use the template"),
// daily counts in UTC+9, and 2,000 requests per second per call.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callerChannel, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import { ChannelPermissions } from '../channel-permissions';
import { sql, type Db } from '../store';
import { RateLimiter, withinRate } from '../rate-limit';
import {
  normalizePhoneNumber,
  PhoneNumberError,
  sha256Hex,
} from '../../platform/notifications/phone';
import {
  AGGREGATION_START,
  countDateSchema,
  dayInUtc9,
  DELIVERY_TAG_HEADER,
  deliveryTagSchema,
  flexibleBodySchema,
  phoneUserInputSchema,
  TARGET_COUNTRIES,
  templateBodySchema,
  templateDefinitionSchema,
  type DeliveryCount,
  type NotificationKind,
  type NotificationState,
  type NotificationTemplate,
  type PhoneUser,
} from '../../platform/notifications/schema';

const permissions = (db: Db) => new ChannelPermissions(db, 'pnp_permissions');

interface UserRow {
  hash: string;
  e164: string;
  country: string | null;
  refused: number;
  policy_agreed: number;
}
const toUser = (r: UserRow): PhoneUser => ({
  hash: r.hash,
  e164: r.e164,
  country: r.country,
  refused: r.refused === 1,
  policyAgreed: r.policy_agreed === 1,
});

function template(db: Db, key: string): NotificationTemplate | undefined {
  const row = sql(db, 'SELECT * FROM pnp_templates WHERE template_key = ?').get(key) as
    { template_key: string; item_keys: string; button_keys: string } | undefined;
  return (
    row && {
      templateKey: row.template_key,
      itemKeys: JSON.parse(row.item_keys) as string[],
      buttonKeys: JSON.parse(row.button_keys) as string[],
    }
  );
}

function putTemplate(db: Db, t: NotificationTemplate): void {
  sql(
    db,
    'INSERT OR REPLACE INTO pnp_templates (template_key, item_keys, button_keys) VALUES (?, ?, ?)',
  ).run(t.templateKey, JSON.stringify(t.itemKeys), JSON.stringify(t.buttonKeys));
}

function badRequest(reply: FastifyReply, message: string, property: string): void {
  void reply.code(400).send({ message, details: [{ property, message }] });
}

/** The delivery tag header, or null when absent; undefined after answering 400. */
function deliveryTag(req: FastifyRequest, reply: FastifyReply): string | null | undefined {
  const value = req.headers[DELIVERY_TAG_HEADER.toLowerCase()];
  if (value === undefined) return null;
  const parsed = deliveryTagSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  badRequest(
    reply,
    `${DELIVERY_TAG_HEADER} ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
    DELIVERY_TAG_HEADER,
  );
  return undefined;
}

/**
 * The four 422 causes (docs/platform-api.md#notifications-limits), in the order the platform would
 * find them; undefined when deliverable.
 */
function undeliverable(db: Db, hash: string): string | undefined {
  const row = sql(db, 'SELECT * FROM pnp_users WHERE hash = ?').get(hash) as UserRow | undefined;
  if (!row) return 'No user has this phone number.';
  if (!row.country || !TARGET_COUNTRIES.includes(row.country))
    return `The phone number was not issued in a target country (${TARGET_COUNTRIES.join(', ')}).`;
  if (row.refused === 1) return 'The user refused notification messages.';
  if (row.policy_agreed !== 1)
    return 'The user has not agreed to the privacy policy revised in March 2022 or later.';
  return undefined;
}

function routes(app: FastifyInstance, { db, clock }: EmulatorContext): void {
  const limiter = new RateLimiter();

  /** Rate limit, endpoint permission, body, delivery tag, then the 422 causes. */
  async function send<B extends { to: string }>(
    kind: NotificationKind,
    schema: z.ZodType<B>,
    req: FastifyRequest,
    reply: FastifyReply,
    check?: (body: B) => boolean,
  ): Promise<boolean> {
    if (!withinRate(limiter, `pnp.${kind}`, req, reply)) return false;
    const channel = callerChannel(req);
    if (!permissions(db).allowed(channel.channelId)) {
      void reply.code(403).send({
        message: 'This channel is not authorized to use notification messages.',
      });
      return false;
    }
    const body = parseOr400(schema, req.body, reply);
    if (!body || (check && !check(body))) return false;
    const tag = deliveryTag(req, reply);
    if (tag === undefined) return false;
    const cause = undeliverable(db, body.to);
    if (cause) {
      void reply.code(422).send({ message: cause });
      return false;
    }
    const now = clock.now();
    sql(
      db,
      `INSERT INTO pnp_sends (channel_id, kind, hash, delivery_tag, payload, sent_at, day)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(channel.channelId, kind, body.to, tag, JSON.stringify(body), now, dayInUtc9(now));
    return true;
  }

  app.post('/v2/bot/message/pnp/templated/push', async (req, reply) => {
    const sent = await send('template', templateBodySchema, req, reply, (body) => {
      const t = template(db, body.templateKey);
      if (!t) {
        badRequest(reply, `The account cannot use template ${body.templateKey}.`, 'templateKey');
        return false;
      }
      const items = [
        ...(body.body?.emphasizedItem
          ? [['body.emphasizedItem', body.body.emphasizedItem] as const]
          : []),
        ...(body.body?.items ?? []).map((it, i) => [`body.items[${i}]`, it] as const),
      ];
      for (const [path, it] of items)
        if (!t.itemKeys.includes(it.itemKey)) {
          badRequest(
            reply,
            `${it.itemKey} is not an item of template ${t.templateKey}.`,
            `${path}.itemKey`,
          );
          return false;
        }
      for (const [i, b] of (body.body?.buttons ?? []).entries())
        if (!t.buttonKeys.includes(b.buttonKey)) {
          badRequest(
            reply,
            `${b.buttonKey} is not a button of template ${t.templateKey}.`,
            `body.buttons[${i}].buttonKey`,
          );
          return false;
        }
      return true;
    });
    if (sent) return reply.code(202).send({});
  });

  app.post('/bot/pnp/push', async (req, reply) => {
    if (await send('flexible', flexibleBodySchema, req, reply)) return {};
  });

  const count = (kind: NotificationKind) => async (req: FastifyRequest, reply: FastifyReply) => {
    if (!withinRate(limiter, `pnp.${kind}.count`, req, reply)) return;
    const query = parseOr400(z.object({ date: countDateSchema }), req.query, reply);
    if (!query) return;
    const { date } = query;
    if (date < AGGREGATION_START) return { status: 'out_of_service' } satisfies DeliveryCount;
    // A day's count is complete once that day (UTC+9) is over.
    if (date >= dayInUtc9(clock.now())) return { status: 'unready' } satisfies DeliveryCount;
    const { n } = sql(
      db,
      'SELECT COUNT(*) AS n FROM pnp_sends WHERE channel_id = ? AND kind = ? AND day = ?',
    ).get(callerChannel(req).channelId, kind, date) as { n: number };
    return { status: 'ready', success: n } satisfies DeliveryCount;
  };
  app.get('/v2/bot/message/delivery/pnp/templated', count('template'));
  app.get('/v2/bot/message/delivery/pnp', count('flexible'));
}

function admin(app: FastifyInstance, { db, clock, directory }: EmulatorContext): void {
  app.get('/state', async (): Promise<NotificationState> => ({
    today: dayInUtc9(clock.now()),
    targetCountries: TARGET_COUNTRIES,
    users: (sql(db, 'SELECT * FROM pnp_users ORDER BY created_at, hash').all() as UserRow[]).map(
      toUser,
    ),
    templates: (
      sql(db, 'SELECT template_key FROM pnp_templates ORDER BY template_key').all() as {
        template_key: string;
      }[]
    ).map((r) => template(db, r.template_key) as NotificationTemplate),
    channels: directory.channels().map((c) => ({
      channelId: c.channelId,
      name: c.name,
      allowed: permissions(db).allowed(c.channelId),
    })),
    sends: (
      sql(db, 'SELECT * FROM pnp_sends ORDER BY id DESC LIMIT 100').all() as {
        id: number;
        channel_id: string;
        kind: NotificationKind;
        hash: string;
        delivery_tag: string | null;
        day: string;
        sent_at: number;
      }[]
    ).map((s) => ({
      id: s.id,
      channelId: s.channel_id,
      kind: s.kind,
      hash: s.hash,
      deliveryTag: s.delivery_tag,
      day: s.day,
      sentAt: s.sent_at,
    })),
  }));

  /** A user reachable by phone number; the number is normalized and hashed as senders must. */
  app.put('/users', async (req, reply) => {
    const input = parseOr400(phoneUserInputSchema, req.body, reply);
    if (!input) return;
    let normalized;
    try {
      normalized = normalizePhoneNumber(input.phoneNumber, input.defaultCountry);
    } catch (err) {
      if (!(err instanceof PhoneNumberError)) throw err;
      return badRequest(reply, `phoneNumber ${err.message}`, 'phoneNumber');
    }
    const row: UserRow = {
      hash: await sha256Hex(normalized.e164),
      e164: normalized.e164,
      country: normalized.country ?? null,
      refused: input.refused ? 1 : 0,
      policy_agreed: input.policyAgreed ? 1 : 0,
    };
    sql(
      db,
      `INSERT INTO pnp_users (hash, e164, country, refused, policy_agreed, created_at)
       VALUES (@hash, @e164, @country, @refused, @policy_agreed, @created_at)
       ON CONFLICT(hash) DO UPDATE SET refused = excluded.refused, policy_agreed = excluded.policy_agreed`,
    ).run({ ...row, created_at: clock.now() });
    return toUser(row);
  });

  app.delete<{ Params: { hash: string } }>('/users/:hash', async (req, reply) => {
    const { changes } = sql(db, 'DELETE FROM pnp_users WHERE hash = ?').run(req.params.hash);
    if (!changes) return reply.code(404).send({ message: `No phone user ${req.params.hash}.` });
    return reply.code(204).send();
  });

  app.put<{ Params: { templateKey: string } }>('/templates/:templateKey', async (req, reply) => {
    const input = parseOr400(templateDefinitionSchema, req.body, reply);
    if (!input) return;
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(req.params.templateKey))
      return badRequest(
        reply,
        'templateKey must be 1-100 letters, digits, _ . or -',
        'templateKey',
      );
    const t = { templateKey: req.params.templateKey, ...input };
    putTemplate(db, t);
    return t;
  });

  permissions(db).route(app, directory);
}

/** The platform does not give a template catalogue; a fresh emulator has two to send with. */
const SEED_TEMPLATES: NotificationTemplate[] = [
  {
    templateKey: 'delivery_completed_en',
    itemKeys: ['order_number', 'delivery_date', 'carrier', 'tracking_number', 'total'],
    buttonKeys: ['track_parcel', 'contact_us'],
  },
  {
    templateKey: 'appointment_reminder_en',
    itemKeys: ['date', 'time', 'place', 'doctor'],
    buttonKeys: ['reschedule'],
  },
];

export const notificationsArea: EmulatorArea = {
  name: 'notifications',
  migrate: ({ db }) => {
    permissions(db).migrate();
    db.exec(`
      CREATE TABLE IF NOT EXISTS pnp_users (
        hash TEXT PRIMARY KEY,
        e164 TEXT NOT NULL,
        country TEXT,
        refused INTEGER NOT NULL,
        policy_agreed INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS pnp_templates (
        template_key TEXT PRIMARY KEY,
        item_keys TEXT NOT NULL,
        button_keys TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS pnp_sends (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        hash TEXT NOT NULL,
        delivery_tag TEXT,
        payload TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        day TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS pnp_sends_day ON pnp_sends (channel_id, kind, day);
    `);
    const { n } = sql(db, 'SELECT COUNT(*) AS n FROM pnp_templates').get() as { n: number };
    if (n === 0) for (const t of SEED_TEMPLATES) putTemplate(db, t);
  },
  routes,
  admin,
};
