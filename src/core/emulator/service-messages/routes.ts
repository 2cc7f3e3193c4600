// Service messages emulator (docs/platform-api.md#service-messages, `/message/v3/notifier`): one
// notification token per user access token, living 1 year and good for 5 sends; each send renews
// the token value, and the send that finds it expired or uses the last count goes out without
// renewing it.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { notFound, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import { refuseBearer } from '../bearer';
import { sql } from '../store';
import { ChannelAccess, type Caller } from '../embed/channel-access';
import {
  MESSAGES_PER_TOKEN,
  NOTIFICATION_TOKEN_LIFE_SECONDS,
  SEEDED_TEMPLATES,
  issueNotificationTokenSchema,
  sendServiceMessageSchema,
  splitTemplateName,
  templateSchema,
  type NotificationToken,
  type SentServiceMessage,
  type Template,
} from '../../platform/service-messages/schema';

interface TokenRow {
  token: string;
  channel_id: string;
  user_id: string;
  access_token: string;
  session_id: string;
  expires_at: number;
  remaining: number;
  /** `current` (usable), `renewed` (replaced by a newer value) or `ended`. */
  state: 'current' | 'renewed' | 'ended';
}
interface TemplateRow {
  name: string;
  languages: string;
  required: string;
  optional: string;
}
interface MessageRow {
  id: number;
  channel_id: string;
  user_id: string;
  template_name: string;
  params: string;
  session_id: string;
  sent_at: number;
  last_of_token: number;
}

const newToken = () => randomBytes(32).toString('base64url');
const messagesQuery = z.object({ channelId: z.string().optional() });

function badRequest(reply: FastifyReply, property: string, message: string): void {
  void reply
    .code(400)
    .send({ message: `Invalid value: ${property}: ${message}`, details: [{ property, message }] });
}

function toTemplate(row: TemplateRow): Template {
  return {
    name: row.name,
    languages: JSON.parse(row.languages) as Template['languages'],
    required: JSON.parse(row.required) as string[],
    optional: JSON.parse(row.optional) as string[],
  };
}

function toMessage(row: MessageRow): SentServiceMessage {
  return {
    id: row.id,
    channelId: row.channel_id,
    userId: row.user_id,
    templateName: row.template_name,
    params: JSON.parse(row.params) as Record<string, string>,
    sessionId: row.session_id,
    sentAt: row.sent_at,
    lastOfToken: row.last_of_token === 1,
  };
}

function routes(app: FastifyInstance, { db, clock, directory, userTokens }: EmulatorContext): void {
  const access = new ChannelAccess(db, clock, directory);
  const open = { config: { auth: 'none' as const } };

  /**
   * docs/platform-api.md#service-messages: channel auth, then the token kind on mini app channels,
   * then the permission (403).
   */
  function authorize(
    req: Parameters<ChannelAccess['authenticate']>[0],
    reply: FastifyReply,
  ): Caller | undefined {
    const caller = access.authenticate(req, reply);
    if (!caller) return undefined;
    const settings = access.settings(caller.channel.channelId);
    if (settings.miniApp && (caller.kind === 'long-lived' || caller.kind === 'user-expiry')) {
      refuseBearer(
        reply,
        'invalid_token',
        'Authentication failed: service messages on a mini app channel take a stateless or short-lived channel access token, not a long-lived one or one with a user-specified expiry.',
      );
      return undefined;
    }
    if (!settings.serviceMessages) {
      void reply
        .code(403)
        .send({ message: 'This channel is not authorized to send service messages.' });
      return undefined;
    }
    return caller;
  }

  const secondsLeft = (expiresAt: number) =>
    Math.max(0, Math.floor((expiresAt - clock.now()) / 1000));

  app.post('/message/v3/notifier/token', open, async (req, reply) => {
    const caller = authorize(req, reply);
    if (!caller) return;
    const input = parseOr400(issueNotificationTokenSchema, req.body, reply);
    if (!input) return;
    const user = userTokens.active(input.embedAccessToken);
    if (!user || user.channelId !== caller.channel.channelId)
      return badRequest(
        reply,
        'embedAccessToken',
        'is not a valid user access token of this channel',
      );
    const existing = sql(db, 'SELECT token FROM sm_tokens WHERE access_token = ?').get(
      user.accessToken,
    );
    if (existing)
      return badRequest(
        reply,
        'embedAccessToken',
        'already has a notification token: one is issued per user access token',
      );
    const row: TokenRow = {
      token: newToken(),
      channel_id: caller.channel.channelId,
      user_id: user.userId,
      access_token: user.accessToken,
      session_id: randomUUID(),
      expires_at: clock.now() + NOTIFICATION_TOKEN_LIFE_SECONDS * 1000,
      remaining: MESSAGES_PER_TOKEN,
      state: 'current',
    };
    sql(
      db,
      `INSERT INTO sm_tokens (token, channel_id, user_id, access_token, session_id, expires_at, remaining, state)
       VALUES (@token, @channel_id, @user_id, @access_token, @session_id, @expires_at, @remaining, @state)`,
    ).run(row);
    return {
      notificationToken: row.token,
      expiresIn: NOTIFICATION_TOKEN_LIFE_SECONDS,
      remainingCount: MESSAGES_PER_TOKEN,
      sessionId: row.session_id,
    } satisfies NotificationToken;
  });

  app.post<{ Querystring: { target?: string } }>(
    '/message/v3/notifier/send',
    open,
    async (req, reply) => {
      const caller = authorize(req, reply);
      if (!caller) return;
      if (req.query.target !== 'service')
        return badRequest(reply, 'target', "must be 'service' (query parameter)");
      const input = parseOr400(sendServiceMessageSchema, req.body, reply);
      if (!input) return;

      const token = sql(db, 'SELECT * FROM sm_tokens WHERE token = ? AND channel_id = ?').get(
        input.notificationToken,
        caller.channel.channelId,
      ) as TokenRow | undefined;
      if (!token)
        return badRequest(
          reply,
          'notificationToken',
          'is not a notification token of this channel',
        );
      if (token.state === 'renewed')
        return badRequest(
          reply,
          'notificationToken',
          'was renewed by an earlier send: use the token that send returned',
        );
      if (token.state === 'ended')
        return badRequest(
          reply,
          'notificationToken',
          'has ended (expired or used up): issue a new one from a new user access token',
        );

      const { name, language } = splitTemplateName(input.templateName)!;
      const templateRow = sql(db, 'SELECT * FROM sm_templates WHERE name = ?').get(name) as
        TemplateRow | undefined;
      const template = templateRow && toTemplate(templateRow);
      if (!template) return badRequest(reply, 'templateName', `no template named ${name}`);
      if (!template.languages.includes(language))
        return badRequest(
          reply,
          'templateName',
          `template ${name} has no ${language} version (it has ${template.languages.join(', ')})`,
        );
      const missing = template.required.filter((v) => !(v in input.params));
      const known = new Set([...template.required, ...template.optional]);
      const unknown = Object.keys(input.params).filter((v) => !known.has(v));
      const problems = [
        ...missing.map((v) => ({
          property: `params.${v}`,
          message: 'is required by the template',
        })),
        ...unknown.map((v) => ({
          property: `params.${v}`,
          message: 'is not a variable of the template',
        })),
      ];
      if (problems.length)
        return reply.code(400).send({
          message: `Invalid value: ${problems.map((p) => `${p.property}: ${p.message}`).join('; ')}`,
          details: problems,
        });

      const now = clock.now();
      // The state table's last row: expired, or this send uses the last count.
      const ends = now >= token.expires_at || token.remaining <= 1;
      const answer = db.transaction((): NotificationToken => {
        sql(
          db,
          `INSERT INTO sm_messages (channel_id, user_id, template_name, params, session_id, sent_at, last_of_token)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          token.channel_id,
          token.user_id,
          input.templateName,
          JSON.stringify(input.params),
          token.session_id,
          now,
          Number(ends),
        );
        if (ends) {
          sql(db, "UPDATE sm_tokens SET state = 'ended', remaining = 0 WHERE token = ?").run(
            token.token,
          );
          return {
            notificationToken: token.token,
            expiresIn: 0,
            remainingCount: 0,
            sessionId: token.session_id,
          };
        }
        const renewed: TokenRow = {
          ...token,
          token: newToken(),
          remaining: token.remaining - 1,
          state: 'current',
        };
        sql(db, "UPDATE sm_tokens SET state = 'renewed' WHERE token = ?").run(token.token);
        sql(
          db,
          `INSERT INTO sm_tokens (token, channel_id, user_id, access_token, session_id, expires_at, remaining, state)
           VALUES (@token, @channel_id, @user_id, NULL, @session_id, @expires_at, @remaining, @state)`,
        ).run(renewed);
        return {
          notificationToken: renewed.token,
          expiresIn: secondsLeft(renewed.expires_at),
          remainingCount: renewed.remaining,
          sessionId: renewed.session_id,
        };
      })();
      return answer;
    },
  );
}

function admin(app: FastifyInstance, { db }: EmulatorContext): void {
  app.get('/templates', async () =>
    (sql(db, 'SELECT * FROM sm_templates ORDER BY name').all() as TemplateRow[]).map(toTemplate),
  );
  app.put('/templates', async (req, reply) => {
    const input = parseOr400(templateSchema, req.body, reply);
    if (input) {
      saveTemplate(db, input);
      return input;
    }
  });
  app.delete<{ Params: { name: string } }>('/templates/:name', async (req, reply) => {
    const { changes } = sql(db, 'DELETE FROM sm_templates WHERE name = ?').run(req.params.name);
    return changes ? reply.code(204).send() : notFound(reply, `No template ${req.params.name}.`);
  });
  app.get('/messages', async (req, reply) => {
    const query = parseOr400(messagesQuery, req.query, reply);
    if (!query) return;
    return (
      sql(
        db,
        `SELECT * FROM sm_messages WHERE (@channelId IS NULL OR channel_id = @channelId)
         ORDER BY id DESC LIMIT 200`,
      ).all({ channelId: query.channelId ?? null }) as MessageRow[]
    ).map(toMessage);
  });
}

function saveTemplate(db: Parameters<typeof sql>[0], t: Template): void {
  sql(
    db,
    'INSERT OR REPLACE INTO sm_templates (name, languages, required, optional) VALUES (?, ?, ?, ?)',
  ).run(
    t.name,
    JSON.stringify(t.languages),
    JSON.stringify(t.required),
    JSON.stringify(t.optional),
  );
}

export const serviceMessagesArea: EmulatorArea = {
  name: 'service-messages',
  migrate({ db }) {
    ChannelAccess.migrate(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS sm_tokens (
        token TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        -- Set on the first token of a chain only: one notification token per user access token.
        access_token TEXT UNIQUE,
        session_id TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        remaining INTEGER NOT NULL,
        state TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS sm_templates (
        name TEXT PRIMARY KEY,
        languages TEXT NOT NULL,
        required TEXT NOT NULL,
        optional TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS sm_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        template_name TEXT NOT NULL,
        params TEXT NOT NULL,
        session_id TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        last_of_token INTEGER NOT NULL
      );
    `);
    const { n } = sql(db, 'SELECT COUNT(*) AS n FROM sm_templates').get() as { n: number };
    if (n === 0) for (const t of SEEDED_TEMPLATES) saveTemplate(db, t);
  },
  routes,
  admin,
};
