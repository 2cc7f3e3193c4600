// Embedded-app server API emulator (docs/platform-api.md#embed, `/embed/v1/apps`): up to 30 apps
// per channel, partial updates, a 404 list when a channel has none. Its admin API holds what the
// platform knows of a channel (mini app, BLE, permissions) and issues channel tokens of each kind.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import { sql, type Db } from '../store';
import { ChannelAccess } from './channel-access';
import {
  addEmbedAppSchema,
  channelSettingsInputSchema,
  DEFAULT_SCOPE,
  EMBED_APP_LIMIT,
  issueChannelTokenInputSchema,
  updateEmbedAppSchema,
  type EmbedApp,
} from '../../platform/embed/schema';

interface AppRow {
  embed_id: string;
  channel_id: string;
  view_type: string;
  view_url: string;
  module_mode: number;
  description: string | null;
  qr_code: number;
  scope: string;
  bot_prompt: string;
}

function toApp(row: AppRow, ble: boolean): EmbedApp {
  return {
    embedId: row.embed_id,
    view: { type: row.view_type, url: row.view_url, moduleMode: row.module_mode === 1 },
    ...(row.description === null ? {} : { description: row.description }),
    features: { ble, qrCode: row.qr_code === 1 },
    permanentLinkPattern: 'concat',
    scope: JSON.parse(row.scope) as string[],
    botPrompt: row.bot_prompt,
  };
}

function ownedApp(db: Db, embedId: string, channelId: string): AppRow | undefined {
  return sql(db, 'SELECT * FROM embed_apps WHERE embed_id = ? AND channel_id = ?').get(
    embedId,
    channelId,
  ) as AppRow | undefined;
}

function routes(app: FastifyInstance, { db, clock, directory }: EmulatorContext): void {
  const access = new ChannelAccess(db, clock, directory);
  const noApp = (reply: FastifyReply) =>
    notFound(reply, 'The app does not exist or belongs to another channel.');
  const open = { config: { auth: 'none' as const } };

  app.post('/embed/v1/apps', open, async (req, reply) => {
    const caller = access.authenticate(req, reply);
    if (!caller) return;
    const input = parseOr400(addEmbedAppSchema, req.body, reply);
    if (!input) return;
    const channelId = caller.channel.channelId;
    const embedId = db.transaction(() => {
      const { n } = sql(db, 'SELECT COUNT(*) AS n FROM embed_apps WHERE channel_id = ?').get(
        channelId,
      ) as { n: number };
      if (n >= EMBED_APP_LIMIT) return undefined;
      const id = `${channelId}-${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x')}`;
      sql(
        db,
        `INSERT INTO embed_apps (embed_id, channel_id, view_type, view_url, module_mode,
           description, qr_code, scope, bot_prompt, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        channelId,
        input.view.type,
        input.view.url,
        Number(input.view.moduleMode ?? false),
        input.description ?? null,
        Number(input.features?.qrCode ?? false),
        JSON.stringify(input.scope ?? DEFAULT_SCOPE),
        input.botPrompt ?? 'none',
        clock.now(),
      );
      return id;
    })();
    if (!embedId)
      return reply.code(400).send({
        message: `The maximum number of apps (${EMBED_APP_LIMIT}) has been reached for this channel.`,
      });
    return { embedId };
  });

  app.put<{ Params: { embedId: string } }>('/embed/v1/apps/:embedId', open, async (req, reply) => {
    const caller = access.authenticate(req, reply);
    if (!caller) return;
    const row = ownedApp(db, req.params.embedId, caller.channel.channelId);
    if (!row) return noApp(reply);
    const input = parseOr400(updateEmbedAppSchema, req.body, reply);
    if (!input) return;
    const next: AppRow = {
      ...row,
      view_type: input.view?.type ?? row.view_type,
      view_url: input.view?.url ?? row.view_url,
      module_mode:
        input.view?.moduleMode === undefined ? row.module_mode : Number(input.view.moduleMode),
      description: input.description ?? row.description,
      qr_code: input.features?.qrCode === undefined ? row.qr_code : Number(input.features.qrCode),
      scope: input.scope ? JSON.stringify(input.scope) : row.scope,
      bot_prompt: input.botPrompt ?? row.bot_prompt,
    };
    sql(
      db,
      `UPDATE embed_apps SET view_type = @view_type, view_url = @view_url, module_mode = @module_mode,
         description = @description, qr_code = @qr_code, scope = @scope, bot_prompt = @bot_prompt
       WHERE embed_id = @embed_id`,
    ).run(next);
    return reply.code(200).send();
  });

  app.get('/embed/v1/apps', open, async (req, reply) => {
    const caller = access.authenticate(req, reply);
    if (!caller) return;
    const channelId = caller.channel.channelId;
    const rows = sql(
      db,
      'SELECT * FROM embed_apps WHERE channel_id = ? ORDER BY created_at, rowid',
    ).all(channelId) as AppRow[];
    if (rows.length === 0) return notFound(reply, 'No app exists on this channel.');
    const { ble } = access.settings(channelId);
    return { apps: rows.map((r) => toApp(r, ble)) };
  });

  app.delete<{ Params: { embedId: string } }>(
    '/embed/v1/apps/:embedId',
    open,
    async (req, reply) => {
      const caller = access.authenticate(req, reply);
      if (!caller) return;
      const row = ownedApp(db, req.params.embedId, caller.channel.channelId);
      if (!row) return noApp(reply);
      sql(db, 'DELETE FROM embed_apps WHERE embed_id = ?').run(row.embed_id);
      return reply.code(200).send();
    },
  );
}

function admin(app: FastifyInstance, { db, clock, directory }: EmulatorContext): void {
  const access = new ChannelAccess(db, clock, directory);
  const noChannel = (reply: FastifyReply, channelId: string) =>
    notFound(reply, `No channel ${channelId}.`);

  app.get('/channels', async () =>
    directory.channels().map((c) => ({ name: c.name, ...access.settings(c.channelId) })),
  );
  app.get<{ Params: { channelId: string } }>('/channels/:channelId', async (req, reply) => {
    const channel = access.channel(req.params.channelId);
    if (!channel) return noChannel(reply, req.params.channelId);
    return access.settings(channel.channelId);
  });
  app.put<{ Params: { channelId: string } }>('/channels/:channelId', async (req, reply) => {
    const channel = access.channel(req.params.channelId);
    if (!channel) return noChannel(reply, req.params.channelId);
    const input = parseOr400(channelSettingsInputSchema, req.body, reply);
    if (input) return access.updateSettings(channel.channelId, input);
  });

  app.post('/channel-tokens', async (req, reply) => {
    const input = parseOr400(issueChannelTokenInputSchema, req.body, reply);
    if (!input) return;
    if (!access.channel(input.channelId)) return noChannel(reply, input.channelId);
    if (input.expiresIn !== undefined && input.kind !== 'user-expiry')
      return reply.code(400).send({
        message: 'Invalid value: expiresIn: is only allowed for kind user-expiry',
        details: [{ property: 'expiresIn', message: 'is only allowed for kind user-expiry' }],
      });
    return reply.code(201).send(access.issueToken(input.channelId, input.kind, input.expiresIn));
  });
}

export const embedArea: EmulatorArea = {
  name: 'embed',
  migrate({ db }) {
    ChannelAccess.migrate(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS embed_apps (
        embed_id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        view_type TEXT NOT NULL,
        view_url TEXT NOT NULL,
        module_mode INTEGER NOT NULL,
        description TEXT,
        qr_code INTEGER NOT NULL,
        scope TEXT NOT NULL,
        bot_prompt TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS embed_apps_by_channel ON embed_apps (channel_id, created_at);
    `);
  },
  routes,
  admin,
};
