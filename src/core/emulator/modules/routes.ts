// Module channels emulator (docs/platform-api.md#modules): attach, detach, chat control and the bot
// list, with module webhook events to each module channel. Time-driven transitions (a `ttl` running
// out, the detach three months after an account is deleted) follow the virtual clock: expiry is
// read at every look, and deletion detaches happen at the next module call or admin read.
import { USER_ID_PATTERN } from '../../platform/user-id';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callerChannel, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import type { Channel } from '../channels';
import { RateLimiter, withinRate } from '../rate-limit';
import { adminRoutes } from './admin-routes';
import { attachRoutes } from './attach';
import { chatSource, NO_TIME_LIMIT, sendModuleEvent, sweep } from './events';
import {
  ACQUIRE_GUARD_MS,
  acquireBodySchema,
  BOT_LIST_MAX,
  CHAT_ID_PATTERN,
  detachBodySchema,
  type BotListItem,
} from '../../platform/modules/schema';
import { migrate, ModuleStore, type BotRow } from './store';

type Params = { Params: { chatId: string } };

const listQuery = z.object({
  limit: z.coerce
    .number({ error: `must be a whole number from 1 to ${BOT_LIST_MAX}` })
    .int(`must be a whole number from 1 to ${BOT_LIST_MAX}`)
    .min(1, `must be a whole number from 1 to ${BOT_LIST_MAX}`)
    .max(BOT_LIST_MAX, `must be at most ${BOT_LIST_MAX}`)
    .default(BOT_LIST_MAX),
  start: z.string().optional(),
});

function badRequest(reply: FastifyReply, message: string, property?: string): void {
  void reply.code(400).send({ message, ...(property && { details: [{ property, message }] }) });
}

function routes(app: FastifyInstance, ctx: EmulatorContext): void {
  const store = new ModuleStore(ctx.db, () => ctx.clock.now());
  const limiter = new RateLimiter();
  attachRoutes(app, ctx, store);

  /** Rate, then the time-driven transitions, then the caller must be a module channel. */
  function moduleCaller(
    operation: string,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Channel | undefined {
    if (!withinRate(limiter, operation, req, reply)) return undefined;
    sweep(ctx, store);
    const channel = callerChannel(req);
    if (store.isModuleChannel(channel.channelId)) return channel;
    const message = `Channel ${channel.channelId} is not a module channel: use the module channel's access token.`;
    // docs/platform-api.md#modules-errors documents 400 for detach; the other calls' status for
    // this is not shown.
    if (operation === 'detach') badRequest(reply, message);
    else void reply.code(403).send({ message });
    return undefined;
  }

  /** The account named by the bot-user-ID header, attached to the caller and not suspended. */
  function attachedBot(
    channelId: string,
    req: FastifyRequest,
    reply: FastifyReply,
  ): BotRow | undefined {
    const header = store.botUserIdHeader;
    const value = req.headers[header.toLowerCase()];
    if (typeof value !== 'string' || !value) {
      badRequest(
        reply,
        `The ${header} header is required: the account's bot user ID (bot_id of attach).`,
        header,
      );
      return undefined;
    }
    if (!USER_ID_PATTERN.test(value)) {
      badRequest(
        reply,
        `The ${header} header is not a bot user ID (U followed by 32 hex digits).`,
        header,
      );
      return undefined;
    }
    const attachment = store.attachment(channelId, value);
    const bot = store.bot(value);
    if (!bot || !attachment || attachment.state === 'detached') {
      badRequest(reply, `The module channel is not attached to the account ${value}.`, header);
      return undefined;
    }
    if (attachment.state === 'suspended' || bot.status !== 'active') {
      void reply.code(403).send({
        message: `The account ${value} is ${bot.status === 'deleted' ? 'deleted' : 'suspended'}.`,
      });
      return undefined;
    }
    return bot;
  }

  function validChatId(chatId: string, reply: FastifyReply): boolean {
    if (CHAT_ID_PATTERN.test(chatId)) return true;
    badRequest(
      reply,
      `Invalid chatId ${JSON.stringify(chatId)}: expected a user, group or room ID.`,
      'chatId',
    );
    return false;
  }

  app.post('/v2/bot/channel/detach', async (req, reply) => {
    const channel = moduleCaller('detach', req, reply);
    const body = channel && parseOr400(detachBodySchema, req.body, reply);
    if (!channel || !body) return;
    if (!USER_ID_PATTERN.test(body.botId))
      return badRequest(reply, `Invalid bot ID ${JSON.stringify(body.botId)}.`, 'botId');
    const attachment = store.attachment(channel.channelId, body.botId);
    if (!attachment || attachment.state === 'detached')
      return badRequest(reply, `The module is not attached to ${body.botId}.`, 'botId');
    // The event table names the detach call among the `detached` event's triggers and documents
    // one reason (docs/decisions.md, "Module events typed clients can read").
    store.setAttachmentState(channel.channelId, body.botId, 'detached');
    sendModuleEvent(ctx, channel.channelId, body.botId, {
      type: 'module',
      module: { type: 'detached', botId: body.botId, reason: 'bot_deleted' },
    });
    return {};
  });

  app.post<Params>('/v2/bot/chat/:chatId/control/acquire', async (req, reply) => {
    const channel = moduleCaller('acquire', req, reply);
    if (!channel || !validChatId(req.params.chatId, reply)) return;
    const bot = attachedBot(channel.channelId, req, reply);
    const body = bot && parseOr400(acquireBodySchema, req.body, reply);
    if (!bot || !body) return;
    const chatId = req.params.chatId;
    if (!store.hasChat(bot.bot_id, chatId))
      return reply.code(404).send({
        message: chatId.startsWith('U')
          ? `The user ${chatId} has not added the account as a friend.`
          : `The account is not a member of ${chatId}.`,
      });
    const now = ctx.clock.now();
    const current = store.activeControl(bot.bot_id, chatId);
    const previous =
      current && current.module_channel_id !== channel.channelId ? current : undefined;
    const last = store.lastAcquisition(bot.bot_id, chatId);
    if (
      last &&
      last.module_channel_id !== channel.channelId &&
      now - last.acquired_at < ACQUIRE_GUARD_MS
    )
      return reply.code(423).send({
        message:
          'Another channel acquired control of this chat a few seconds ago. Try again shortly.',
      });
    const expireAt = body.ttl === undefined ? null : now + body.ttl * 1000;
    store.setControl({
      bot_id: bot.bot_id,
      chat_id: chatId,
      module_channel_id: channel.channelId,
      acquired_at: now,
      expire_at: expireAt,
    });
    const source = chatSource(chatId);
    if (previous)
      sendModuleEvent(ctx, previous.module_channel_id, bot.bot_id, { type: 'deactivated', source });
    sendModuleEvent(ctx, channel.channelId, bot.bot_id, {
      type: 'activated',
      chatControl: { expireAt: expireAt ?? NO_TIME_LIMIT },
      source,
    });
    return {};
  });

  app.post<Params>('/v2/bot/chat/:chatId/control/release', async (req, reply) => {
    const channel = moduleCaller('release', req, reply);
    if (!channel || !validChatId(req.params.chatId, reply)) return;
    const bot = attachedBot(channel.channelId, req, reply);
    if (!bot) return;
    const chatId = req.params.chatId;
    const current = store.activeControl(bot.bot_id, chatId);
    // Releasing a chat the caller is not active in changes nothing and sends nothing.
    if (current?.module_channel_id === channel.channelId) {
      store.clearControl(bot.bot_id, chatId);
      sendModuleEvent(ctx, channel.channelId, bot.bot_id, {
        type: 'deactivated',
        source: chatSource(chatId),
      });
    }
    return {};
  });

  app.get('/v2/bot/list', async (req, reply) => {
    const channel = moduleCaller('list', req, reply);
    const query = channel && parseOr400(listQuery, req.query, reply);
    if (!channel || !query) return;
    const offset = query.start ? store.listTokenOffset(channel.channelId, query.start) : 0;
    if (offset === undefined)
      return badRequest(
        reply,
        'Invalid or expired continuation token (they last 24 hours).',
        'start',
      );
    const attached = store.attachments({ moduleChannelId: channel.channelId, state: 'attached' });
    const bots = attached.slice(offset, offset + query.limit).flatMap((a): BotListItem[] => {
      const bot = store.bot(a.bot_id);
      if (!bot) return [];
      return [
        {
          userId: bot.bot_id,
          basicId: bot.basic_id,
          ...(bot.premium_id && { premiumId: bot.premium_id }),
          displayName: bot.display_name,
          ...(bot.picture_url && { pictureUrl: bot.picture_url }),
        },
      ];
    });
    const end = offset + query.limit;
    return end < attached.length
      ? { bots, next: store.issueListToken(channel.channelId, end) }
      : { bots };
  });
}

export const modulesArea: EmulatorArea = {
  name: 'modules',
  migrate: ({ db }) => migrate(db),
  routes,
  admin: (app, ctx) => adminRoutes(app, ctx, new ModuleStore(ctx.db, () => ctx.clock.now())),
};
