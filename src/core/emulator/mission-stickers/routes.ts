// Mission stickers emulator (docs/platform-api.md#mission-stickers): `POST /shop/v3/mission` with
// every documented error reachable through state the admin API sets — sticker sets (mission or not,
// sales period, regions, permitted channels, minimum app version, a failing backend), each
// channel's API permission and each user's country and app version.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { callerChannel, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import { ChannelPermissions } from '../channel-permissions';
import { sql, type Db } from '../store';
import { fieldErrors } from '../../platform/field-errors';
import { USER_ID_PATTERN } from '../../platform/user-id';
import {
  MISSION_ERRORS,
  missionBodySchema,
  stickerSetInputSchema,
  stickerUserInputSchema,
  type MissionState,
  type StickerSet,
} from '../../platform/mission-stickers/schema';

/** A user the admin API has not placed is in Japan on a current app. */
const permissions = (db: Db) => new ChannelPermissions(db, 'mission_permissions');

const DEFAULT_USER = { country: 'JP', appVersion: '14.0.0' };
const DAY_MS = 86_400_000;

interface SetRow {
  product_id: string;
  name: string;
  mission: number;
  sales_start: number | null;
  sales_end: number | null;
  regions: string;
  channel_ids: string;
  min_app_version: string | null;
  failure: 'internal' | 'upstream' | null;
}

function toSet(row: SetRow): StickerSet {
  return {
    productId: row.product_id,
    name: row.name,
    missionSticker: row.mission === 1,
    salesStart: row.sales_start,
    salesEnd: row.sales_end,
    regions: JSON.parse(row.regions) as string[],
    channelIds: JSON.parse(row.channel_ids) as string[],
    minAppVersion: row.min_app_version,
    failure: row.failure,
  };
}

function putSet(db: Db, productId: string, input: z.output<typeof stickerSetInputSchema>): void {
  sql(
    db,
    `INSERT OR REPLACE INTO mission_sets
     (product_id, name, mission, sales_start, sales_end, regions, channel_ids, min_app_version, failure)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    productId,
    input.name,
    input.missionSticker ? 1 : 0,
    input.salesStart,
    input.salesEnd,
    JSON.stringify(input.regions),
    JSON.stringify(input.channelIds),
    input.minAppVersion,
    input.failure,
  );
}

/** Compares dotted versions numerically: 13.10 is newer than 13.9. */
function versionAtLeast(version: string, minimum: string): boolean {
  const a = version.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

function userProfile(db: Db, userId: string): { country: string; appVersion: string } {
  const row = sql(db, 'SELECT country, app_version FROM mission_users WHERE user_id = ?').get(
    userId,
  ) as { country: string; app_version: string } | undefined;
  return row ? { country: row.country, appVersion: row.app_version } : DEFAULT_USER;
}

function fail(
  reply: FastifyReply,
  error: (typeof MISSION_ERRORS)[keyof typeof MISSION_ERRORS],
  details?: { property: string; message: string }[],
): void {
  void reply.code(error.status).send({ message: error.message, ...(details && { details }) });
}

function routes(app: FastifyInstance, { db, clock, directory }: EmulatorContext): void {
  app.post('/shop/v3/mission', async (req, reply) => {
    const channel = callerChannel(req);
    if (!permissions(db).allowed(channel.channelId)) return fail(reply, MISSION_ERRORS.notAllowed);
    const parsed = missionBodySchema.safeParse(req.body ?? {});
    if (!parsed.success)
      return fail(
        reply,
        MISSION_ERRORS.invalidRequest,
        fieldErrors(parsed.error).map((e) => ({ property: e.field, message: e.message })),
      );
    const { to, productId } = parsed.data;
    if (!USER_ID_PATTERN.test(to) || !directory.user(to))
      return fail(reply, MISSION_ERRORS.invalidRequest, [
        { property: 'to', message: 'is not a valid user ID' },
      ]);
    const row = sql(db, 'SELECT * FROM mission_sets WHERE product_id = ?').get(productId) as
      SetRow | undefined;
    if (!row) return fail(reply, MISSION_ERRORS.notFound);
    const set = toSet(row);
    if (!set.missionSticker) return fail(reply, MISSION_ERRORS.illegalArgument);
    const now = clock.now();
    if (
      (set.salesStart !== null && now < set.salesStart) ||
      (set.salesEnd !== null && now >= set.salesEnd)
    )
      return fail(reply, MISSION_ERRORS.notInSalesPeriod);
    if (set.channelIds.length && !set.channelIds.includes(channel.channelId))
      return fail(reply, MISSION_ERRORS.notAvailableForChannel);
    const user = userProfile(db, to);
    if (
      (set.regions.length && !set.regions.includes(user.country)) ||
      (set.minAppVersion && !versionAtLeast(user.appVersion, set.minAppVersion))
    )
      return fail(reply, MISSION_ERRORS.notAvailable);
    if (set.failure === 'internal') return fail(reply, MISSION_ERRORS.internal);
    if (set.failure === 'upstream') return fail(reply, MISSION_ERRORS.upstream);
    sql(
      db,
      'INSERT INTO mission_grants (channel_id, user_id, product_id, granted_at) VALUES (?, ?, ?, ?)',
    ).run(channel.channelId, to, productId, now);
    // docs/platform-api.md#mission-stickers: 200 with an empty body.
    return reply.code(200).send();
  });
}

const productIdParam = z.object({
  productId: z.string().regex(/^\d{1,20}$/, 'must be a numeric sticker package ID'),
});

function admin(app: FastifyInstance, { db, directory }: EmulatorContext): void {
  app.get('/state', async (): Promise<MissionState> => {
    const sets = (sql(db, 'SELECT * FROM mission_sets ORDER BY product_id').all() as SetRow[]).map(
      toSet,
    );
    const channels = directory.channels().map((c) => ({
      channelId: c.channelId,
      name: c.name,
      allowed: permissions(db).allowed(c.channelId),
    }));
    const users = directory
      .users()
      .map((u) => ({ userId: u.userId, displayName: u.displayName, ...userProfile(db, u.userId) }));
    const grants = (
      sql(db, 'SELECT * FROM mission_grants ORDER BY id DESC LIMIT 100').all() as {
        channel_id: string;
        user_id: string;
        product_id: string;
        granted_at: number;
      }[]
    ).map((g) => ({
      channelId: g.channel_id,
      userId: g.user_id,
      productId: g.product_id,
      at: g.granted_at,
    }));
    return { sets, channels, users, grants };
  });

  app.put<{ Params: { productId: string } }>('/sets/:productId', async (req, reply) => {
    const params = parseOr400(productIdParam, req.params, reply);
    const input = params && parseOr400(stickerSetInputSchema, req.body, reply);
    if (!params || !input) return;
    putSet(db, params.productId, input);
    return toSet(
      sql(db, 'SELECT * FROM mission_sets WHERE product_id = ?').get(params.productId) as SetRow,
    );
  });

  app.delete<{ Params: { productId: string } }>('/sets/:productId', async (req, reply) => {
    const { changes } = sql(db, 'DELETE FROM mission_sets WHERE product_id = ?').run(
      req.params.productId,
    );
    if (!changes)
      return reply.code(404).send({ message: `No sticker set ${req.params.productId}.` });
    return reply.code(204).send();
  });

  permissions(db).route(app, directory);

  app.put<{ Params: { userId: string } }>('/users/:userId', async (req, reply) => {
    const input = parseOr400(stickerUserInputSchema, req.body, reply);
    if (!input) return;
    const user = directory.user(req.params.userId);
    if (!user)
      return reply.code(404).send({ message: `No user ${req.params.userId}: add the user first.` });
    sql(
      db,
      `INSERT INTO mission_users (user_id, country, app_version) VALUES (?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET country = excluded.country, app_version = excluded.app_version`,
    ).run(user.userId, input.country, input.appVersion);
    return { ...user, ...input };
  });
}

/** A fresh emulator has one set of each kind, so every answer is reachable with no set-up. */
function seed(db: Db, now: number): void {
  const { n } = sql(db, 'SELECT COUNT(*) AS n FROM mission_sets').get() as { n: number };
  if (n > 0) return;
  const base = stickerSetInputSchema.parse({ name: 'x' });
  putSet(db, '1000001', { ...base, name: 'Bench Buddies (mission)' });
  putSet(db, '1000002', {
    ...base,
    name: 'Spring Campaign (mission, ended)',
    salesStart: now - 60 * DAY_MS,
    salesEnd: now - 30 * DAY_MS,
  });
  putSet(db, '1000003', { ...base, name: 'Thailand only (mission)', regions: ['TH'] });
  putSet(db, '1000004', {
    ...base,
    name: 'Everyday Faces (not a mission set)',
    missionSticker: false,
  });
}

export const missionStickersArea: EmulatorArea = {
  name: 'mission-stickers',
  migrate: ({ db, clock }) => {
    permissions(db).migrate();
    db.exec(`
      CREATE TABLE IF NOT EXISTS mission_sets (
        product_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        mission INTEGER NOT NULL,
        sales_start INTEGER,
        sales_end INTEGER,
        regions TEXT NOT NULL,
        channel_ids TEXT NOT NULL,
        min_app_version TEXT,
        failure TEXT
      );
      CREATE TABLE IF NOT EXISTS mission_users (
        user_id TEXT PRIMARY KEY,
        country TEXT NOT NULL,
        app_version TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS mission_grants (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        granted_at INTEGER NOT NULL
      );
    `);
    seed(db, clock.now());
  },
  routes,
  admin,
};
