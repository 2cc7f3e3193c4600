// The module area's admin API: module channels, official accounts (bots) with their friends
// and groups, the account admin's approval that mints an authorization code, account
// suspension, return and deletion, and the bot-user-ID header name.
import { USER_ID_PATTERN } from '../../platform/user-id';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseOr400, type EmulatorContext } from '../area';
import { headerNameSchema } from '../schema';
import { sendModuleEvent, sweep } from './events';
import {
  authorizeInputSchema,
  CHAT_ID_PATTERN,
  createBotInputSchema,
  type Authorization,
  type ModuleState,
} from '../../platform/modules/schema';
import type { ModuleStore } from './store';

type BotParams = { Params: { botId: string } };

const headerInput = z.object({ botUserIdHeader: headerNameSchema });
const chatInput = z.object({
  chatId: z.string().regex(CHAT_ID_PATTERN, 'must be a user (U…), group (C…) or room (R…) ID'),
});

/** The emulator's own origin, from the socket it listens on (it is also the manager URL). */
function originOf(request: FastifyRequest): string {
  const address = request.server.server.address();
  if (!address || typeof address === 'string') return `http://${request.host}`;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export function adminRoutes(app: FastifyInstance, ctx: EmulatorContext, store: ModuleStore): void {
  const { directory, webhooks } = ctx;
  const noBot = (reply: FastifyReply, botId: string) =>
    reply.code(404).send({ message: `No account with bot ID ${botId}.` });

  app.get('/state', async (): Promise<ModuleState> => {
    sweep(ctx, store);
    const channels = directory.channels();
    return {
      now: ctx.clock.now(),
      botUserIdHeader: store.botUserIdHeader,
      moduleChannels: store.moduleChannelIds().map((channelId) => ({
        channelId,
        name: channels.find((c) => c.channelId === channelId)?.name ?? channelId,
        webhookUrl: webhooks.url(channelId) ?? null,
      })),
      bots: store.bots(),
      attachments: store.attachments().map((a) => ({
        moduleChannelId: a.module_channel_id,
        botId: a.bot_id,
        state: a.state,
        scopes: a.scopes ? a.scopes.split(' ') : [],
        updatedAt: a.updated_at,
      })),
      controls: store.controls().map((c) => ({
        botId: c.bot_id,
        chatId: c.chat_id,
        moduleChannelId: c.module_channel_id,
        acquiredAt: c.acquired_at,
        expireAt: c.expire_at,
      })),
    };
  });

  app.put('/settings', async (req, reply) => {
    const input = parseOr400(headerInput, req.body, reply);
    if (!input) return;
    store.botUserIdHeader = input.botUserIdHeader;
    return input;
  });

  /** A new channel that is a module channel; the answer carries its secret and token. */
  app.post('/channels', async (req, reply) => {
    const input = parseOr400(
      z.object({ name: z.string().trim().min(1).max(100).default('Module channel') }),
      req.body,
      reply,
    );
    if (!input) return;
    const channel = directory.createChannel(input.name);
    store.markModuleChannel(channel.channelId);
    return reply.code(201).send(channel);
  });

  app.post<{ Params: { channelId: string } }>('/channels/:channelId/module', async (req, reply) => {
    const channel = directory.channels().find((c) => c.channelId === req.params.channelId);
    if (!channel) return reply.code(404).send({ message: `No channel ${req.params.channelId}.` });
    store.markModuleChannel(channel.channelId);
    return channel;
  });

  app.post('/bots', async (req, reply) => {
    const input = parseOr400(createBotInputSchema, req.body, reply);
    if (!input) return;
    const primary = directory.createChannel(`${input.displayName} (account)`);
    const botId = `U${randomBytes(16).toString('hex')}`;
    store.insertBot({
      bot_id: botId,
      primary_channel_id: primary.channelId,
      basic_id: input.basicId ?? `@${randomBytes(4).toString('hex').slice(0, 7)}`,
      premium_id: input.premiumId ?? null,
      display_name: input.displayName,
      picture_url: input.pictureUrl ?? null,
    });
    return reply.code(201).send(store.bots().find((b) => b.botId === botId));
  });

  app.post<BotParams>('/bots/:botId/chats', async (req, reply) => {
    const input = parseOr400(chatInput, req.body, reply);
    if (!input) return;
    if (!store.bot(req.params.botId)) return noBot(reply, req.params.botId);
    if (input.chatId.startsWith('U') && !directory.user(input.chatId))
      return reply.code(404).send({ message: `No user ${input.chatId}: add the user first.` });
    store.addChat(req.params.botId, input.chatId);
    return reply.code(201).send({ botId: req.params.botId, chatId: input.chatId });
  });

  app.delete<{ Params: { botId: string; chatId: string } }>(
    '/bots/:botId/chats/:chatId',
    async (req, reply) => {
      if (!store.removeChat(req.params.botId, req.params.chatId))
        return reply
          .code(404)
          .send({ message: `${req.params.chatId} is not a chat of that account.` });
      store.clearControl(req.params.botId, req.params.chatId);
      return reply.code(204).send();
    },
  );

  /**
   * docs/platform-api.md#modules-states: suspension moves every attached module to suspended, with
   * `botSuspended` to each.
   */
  app.post<BotParams>('/bots/:botId/suspend', async (req, reply) => {
    const bot = store.bot(req.params.botId);
    if (!bot) return noBot(reply, req.params.botId);
    if (bot.status !== 'active')
      return reply.code(409).send({ message: `The account is ${bot.status}, not active.` });
    store.setBotStatus(bot.bot_id, 'suspended');
    for (const a of store.attachments({ botId: bot.bot_id, state: 'attached' })) {
      store.setAttachmentState(a.module_channel_id, bot.bot_id, 'suspended');
      sendModuleEvent(ctx, a.module_channel_id, bot.bot_id, { type: 'botSuspended' });
    }
    return store.bots().find((b) => b.botId === bot.bot_id);
  });

  app.post<BotParams>('/bots/:botId/resume', async (req, reply) => {
    const bot = store.bot(req.params.botId);
    if (!bot) return noBot(reply, req.params.botId);
    if (bot.status !== 'suspended')
      return reply.code(409).send({ message: `The account is ${bot.status}, not suspended.` });
    store.setBotStatus(bot.bot_id, 'active');
    for (const a of store.attachments({ botId: bot.bot_id, state: 'suspended' })) {
      store.setAttachmentState(a.module_channel_id, bot.bot_id, 'attached');
      sendModuleEvent(ctx, a.module_channel_id, bot.bot_id, { type: 'botResumed' });
    }
    return store.bots().find((b) => b.botId === bot.bot_id);
  });

  /** Deleting does not detach at once: the modules go three months later (see `sweep`). */
  app.post<BotParams>('/bots/:botId/delete', async (req, reply) => {
    const bot = store.bot(req.params.botId);
    if (!bot) return noBot(reply, req.params.botId);
    if (bot.status === 'deleted')
      return reply.code(409).send({ message: 'The account is already deleted.' });
    store.setBotStatus(bot.bot_id, 'deleted');
    return store.bots().find((b) => b.botId === bot.bot_id);
  });

  /**
   * The account admin approving a module on the authorization URL: mints the single-use code
   * the module channel exchanges at `/module/auth/v1/token`.
   */
  app.post('/authorize', async (req, reply) => {
    const input = parseOr400(authorizeInputSchema, req.body, reply);
    if (!input) return;
    if (!store.isModuleChannel(input.moduleChannelId))
      return reply.code(404).send({ message: `No module channel ${input.moduleChannelId}.` });
    if (!USER_ID_PATTERN.test(input.botId) || !store.bot(input.botId))
      return noBot(reply, input.botId);
    const code = store.mintCode({
      module_channel_id: input.moduleChannelId,
      bot_id: input.botId,
      redirect_uri: input.redirectUri,
      region: input.region ?? null,
      basic_search_id: input.basicSearchId ?? null,
      scope: input.scope ?? null,
      brand_type: input.brandType ?? null,
      code_challenge: input.codeChallenge ?? null,
      code_challenge_method: input.codeChallenge ? (input.codeChallengeMethod ?? 'plain') : null,
    });
    const authorizationUrl = new URL('/module/auth/v1/authorize', originOf(req));
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: input.moduleChannelId,
      redirect_uri: input.redirectUri,
      scope: input.scope,
      state: input.state,
      region: input.region,
      basic_search_id: input.basicSearchId,
      brand_type: input.brandType,
      code_challenge: input.codeChallenge,
      code_challenge_method: code.code_challenge_method ?? undefined,
    };
    for (const [k, v] of Object.entries(params))
      if (v !== undefined) authorizationUrl.searchParams.set(k, v);
    const redirectUrl = new URL(input.redirectUri);
    redirectUrl.searchParams.set('code', code.code);
    if (input.state !== undefined) redirectUrl.searchParams.set('state', input.state);
    const answer: Authorization = {
      code: code.code,
      expiresAt: code.expires_at,
      redirectUrl: redirectUrl.toString(),
      authorizationUrl: authorizationUrl.toString(),
    };
    return reply.code(201).send(answer);
  });
}
