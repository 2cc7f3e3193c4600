// Module channels console (docs/platform-api.md#modules). Platform calls act as a module channel:
// the active environment's channel, or on the emulator any of its module channels by ID. The
// emulator-only operations set up accounts, friends and the account admin's approval.
import { z } from 'zod';
import { requiredText as required } from './fields';
import {
  attachResponseSchema,
  authorizationSchema,
  authorizeInputSchema,
  BOT_LIST_MAX,
  botListSchema,
  createBotInputSchema,
  moduleBotSchema,
  moduleStateSchema,
  TTL_MAX_SECONDS,
} from '../../platform/modules/schema';
import { none, op } from './op';

const optionalText = z.string().trim().optional();
/** Which emulator module channel to act as; the active environment's channel when omitted. */
const actingAs = { moduleChannelId: z.string().regex(/^\d+$/, 'must be a channel ID').optional() };
const headerName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, 'must be an HTTP header name')
  .optional();
const done = z.object({ ok: z.literal(true) });

export const modulesOperations = {
  'modules:emulatorState': op(none, moduleStateSchema),
  'modules:createModuleChannel': op(
    z.object({ name: z.string().trim().min(1, 'is required').max(100) }),
    z.object({ channelId: z.string(), name: z.string() }),
  ),
  'modules:createAccount': op(createBotInputSchema, moduleBotSchema),
  'modules:addChat': op(
    z.object({ botId: required, chatId: required }),
    z.object({ botId: z.string(), chatId: z.string() }),
  ),
  'modules:accountAction': op(
    z.object({ botId: required, action: z.enum(['suspend', 'resume', 'delete']) }),
    moduleBotSchema,
  ),
  'modules:authorize': op(authorizeInputSchema, authorizationSchema),
  'modules:setBotUserIdHeader': op(
    z.object({
      botUserIdHeader: z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, 'must be an HTTP header name'),
    }),
    z.object({ botUserIdHeader: z.string() }),
  ),

  'modules:attach': op(
    z.object({
      ...actingAs,
      /** The manager base URL; the environment's base URL when omitted. */
      managerBaseUrl: z.url({ error: 'must be an absolute URL' }).optional(),
      /**
       * The manager URL's origin the user agreed to send the channel's ID and secret to, when it
       * is not the origin of the environment the channel belongs to.
       */
      confirmManagerOrigin: z.string().optional(),
      via: z.enum(['basic', 'form']).default('basic'),
      code: required,
      redirectUri: required,
      codeVerifier: optionalText,
      region: optionalText,
      basicSearchId: optionalText,
      scope: optionalText,
      brandType: optionalText,
    }),
    attachResponseSchema,
  ),
  'modules:detach': op(z.object({ ...actingAs, botId: required }), done),
  'modules:acquire': op(
    z.object({
      ...actingAs,
      chatId: required,
      botId: required,
      expired: z.boolean().default(true),
      ttl: z.number().int().min(1).max(TTL_MAX_SECONDS).optional(),
      botUserIdHeader: headerName,
    }),
    done,
  ),
  'modules:release': op(
    z.object({ ...actingAs, chatId: required, botId: required, botUserIdHeader: headerName }),
    done,
  ),
  'modules:listBots': op(
    z.object({
      ...actingAs,
      limit: z.number().int().min(1).max(BOT_LIST_MAX).optional(),
      start: optionalText,
    }),
    botListSchema,
  ),
} as const;
