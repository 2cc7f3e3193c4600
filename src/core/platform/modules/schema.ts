// Module channels (docs/platform-api.md#modules): attach, detach, chat control, bot list and module
// webhook events, plus the emulator's admin shapes (module channels, official accounts, their
// chats, authorization codes). Browser-safe.
import { z } from 'zod';
import { USER_ID_PATTERN } from '../user-id';

/**
 * The platform gives the bot-user-ID header of acquire/release only to partner-program members.
 * This is the emulator's default name; the emulator (admin settings) and the client both let
 * it be changed to the real one.
 */
export const DEFAULT_BOT_USER_ID_HEADER = 'X-Platform-Bot-User-Id';
export const TTL_DEFAULT_SECONDS = 3600;
export const TTL_MAX_SECONDS = 31_536_000;
export const BOT_LIST_MAX = 100;
/** Continuation tokens live 24 hours (docs/platform-api.md#modules-endpoints). */
export const CONTINUATION_TOKEN_TTL_MS = 86_400_000;
/** "Another channel acquired control within a few seconds" (docs/platform-api.md#modules-errors, 423): the emulator's few. */
export const ACQUIRE_GUARD_MS = 5_000;
/** docs/platform-api.md#modules-states: an account's module is detached once three months pass after deletion; 90 days here. */
export const DELETION_DETACH_MS = 90 * 86_400_000;
/** Scopes granted when the authorization URL named none (the platform's sample payload). */
export const DEFAULT_SCOPES = ['message:send', 'message:receive'];

/** A user, group or room ID. */
export const CHAT_ID_PATTERN = /^[UCR][0-9a-f]{32}$/;

// ---- platform requests and answers ----

const ttlSchema = z
  .number({ error: 'must be a number of seconds' })
  .int('must be a whole number of seconds')
  .min(1, 'must be at least 1')
  .max(TTL_MAX_SECONDS, `must be at most ${TTL_MAX_SECONDS} (one year)`)
  .default(TTL_DEFAULT_SECONDS);

/**
 * Acquire's body; every field has a default, so no body at all is valid. `ttl` is "ignored when
 * `expired` is false" (docs/platform-api.md#modules-endpoints): then any value passes unread.
 */
export const acquireBodySchema = z
  .object({
    expired: z.boolean({ error: 'must be true or false' }).default(true),
    ttl: z.unknown().optional(),
  })
  .transform((body, ctx) => {
    if (!body.expired) return { expired: false, ttl: undefined };
    const ttl = ttlSchema.safeParse(body.ttl);
    if (ttl.success) return { expired: true, ttl: ttl.data };
    for (const issue of ttl.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message, path: ['ttl', ...issue.path] });
    return z.NEVER;
  });
export interface AcquireInput {
  expired?: boolean;
  ttl?: number;
}

export const detachBodySchema = z.object({
  botId: z.string({ error: 'is required: the bot user ID the attach call returned' }),
});

export const attachResponseSchema = z.object({
  bot_id: z.string(),
  /** Documented as a string; the sample payload shows an array: the emulator sends both. */
  scope: z.string().optional(),
  scopes: z.array(z.string()).optional(),
});
export type AttachResponse = z.infer<typeof attachResponseSchema>;

const botListItemSchema = z.object({
  userId: z.string(),
  basicId: z.string(),
  premiumId: z.string().optional(),
  displayName: z.string(),
  pictureUrl: z.string().optional(),
});
export type BotListItem = z.infer<typeof botListItemSchema>;

export const botListSchema = z.object({
  bots: z.array(botListItemSchema),
  next: z.string().optional(),
});
export type BotList = z.infer<typeof botListSchema>;

/** Everything optional the attach form may carry; each must match the authorization URL. */
export const ATTACH_MATCHED_FIELDS = ['region', 'basic_search_id', 'scope', 'brand_type'] as const;

// ---- module webhook events (docs/platform-api.md#modules; the emulator builds them in
// emulator/modules/events.ts) ----

export const MODULE_EVENT_TYPES = [
  'module',
  'activated',
  'deactivated',
  'botSuspended',
  'botResumed',
] as const;

// ---- emulator admin ----

const ATTACHMENT_STATES = ['attached', 'suspended', 'detached'] as const;
export type AttachmentState = (typeof ATTACHMENT_STATES)[number];

export const createBotInputSchema = z.object({
  displayName: z.string().trim().min(1, 'is required').max(100),
  basicId: z
    .string()
    .regex(/^@[a-z0-9._-]{3,20}$/, 'must look like @abc1234')
    .optional(),
  premiumId: z
    .string()
    .regex(/^@[a-z0-9._-]{3,20}$/, 'must look like @mybrand')
    .optional(),
  pictureUrl: z.url({ protocol: /^https$/, error: 'must be an https URL' }).optional(),
});

export const authorizeInputSchema = z
  .object({
    moduleChannelId: z.string().regex(/^\d+$/, 'must be a channel ID'),
    // A bot ID is the bot's user ID (docs/platform-api.md#conventions-user-id).
    botId: z.string().regex(USER_ID_PATTERN, 'must be a bot user ID (U + 32 hex digits)'),
    redirectUri: z.url({ error: 'must be an absolute URL' }),
    state: z.string().max(200).optional(),
    scope: z.string().trim().min(1).max(200).optional(),
    region: z.string().trim().min(1).max(20).optional(),
    basicSearchId: z.string().trim().min(1).max(50).optional(),
    brandType: z.string().trim().min(1).max(50).optional(),
    /** RFC 7636: 43–128 characters. */
    codeChallenge: z
      .string()
      .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43-128 characters of [A-Za-z0-9._~-]')
      .optional(),
    codeChallengeMethod: z.enum(['S256', 'plain']).optional(),
  })
  .refine((a) => !a.codeChallengeMethod || a.codeChallenge, {
    message: 'needs a codeChallenge',
    path: ['codeChallengeMethod'],
  });

export const authorizationSchema = z.object({
  code: z.string(),
  expiresAt: z.number(),
  /** Where the account admin's browser would go after approving: redirect_uri with the code. */
  redirectUrl: z.string(),
  /** The authorization URL the module provider would have built for these parameters. */
  authorizationUrl: z.string(),
});
export type Authorization = z.infer<typeof authorizationSchema>;

export const moduleBotSchema = z.object({
  botId: z.string(),
  basicId: z.string(),
  premiumId: z.string().optional(),
  displayName: z.string(),
  pictureUrl: z.string().optional(),
  /** The account's own (primary) channel. */
  primaryChannelId: z.string(),
  status: z.enum(['active', 'suspended', 'deleted']),
  deletedAt: z.number().optional(),
  /** Users who added the account as a friend, and groups and rooms it is in. */
  chats: z.array(z.string()),
});
export type ModuleBot = z.infer<typeof moduleBotSchema>;

export const moduleStateSchema = z.object({
  now: z.number(),
  botUserIdHeader: z.string(),
  moduleChannels: z.array(
    z.object({
      channelId: z.string(),
      name: z.string(),
      webhookUrl: z.string().nullable(),
    }),
  ),
  bots: z.array(moduleBotSchema),
  attachments: z.array(
    z.object({
      moduleChannelId: z.string(),
      botId: z.string(),
      state: z.enum(ATTACHMENT_STATES),
      scopes: z.array(z.string()),
      updatedAt: z.number(),
    }),
  ),
  /** Chats where a module channel is active; every other chat is with the primary channel. */
  controls: z.array(
    z.object({
      botId: z.string(),
      chatId: z.string(),
      moduleChannelId: z.string(),
      acquiredAt: z.number(),
      expireAt: z.number().nullable(),
    }),
  ),
});
export type ModuleState = z.infer<typeof moduleStateSchema>;
