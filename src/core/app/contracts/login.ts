// Login and tokens console (docs/platform-api.md#login): every platform operation as one
// `login:send` that answers the request and response as sent, the local ID token inspector, and the
// emulator's authorization step and user data.
import { z } from 'zod';
import {
  AMR_VALUES,
  APP_TYPES,
  channelSettingsSchema,
  exchangeSchema,
  friendshipStateSchema,
  mintedCodeSchema,
  profileExtrasSchema,
  tokenStateSchema,
} from '../../platform/login/schema';
import { userId, requiredText as required } from './fields';
import { none, op } from './op';

const optional = z
  .string()
  .trim()
  .optional()
  .transform((v) => v || undefined);
const version = z.enum(['2.1', '2.0'], { error: "must be '2.1' or '2.0'" });
/**
 * `client_id` defaults to the active channel; `client_secret` is the stored channel secret
 * unless `useChannelSecret` is false, then `clientSecret` (empty: not sent).
 */
const credentials = {
  clientId: optional,
  useChannelSecret: z.boolean().default(true),
  clientSecret: optional,
};

const loginSendInputSchema = z.discriminatedUnion(
  'operation',
  [
    z.object({
      operation: z.literal('issue'),
      version,
      code: required,
      redirectUri: required,
      codeVerifier: optional,
      ...credentials,
    }),
    z.object({ operation: z.literal('refresh'), version, refreshToken: required, ...credentials }),
    z.object({ operation: z.literal('verify'), version, accessToken: required }),
    z.object({
      operation: z.literal('revoke'),
      version,
      /** v2.1 revokes by access token, v2.0 by refresh token. */
      token: required,
      ...credentials,
    }),
    z.object({ operation: z.literal('deauthorize'), userAccessToken: required }),
    z.object({
      operation: z.literal('verifyIdToken'),
      idToken: required,
      clientId: optional,
      nonce: optional,
      userId: optional,
    }),
    z.object({
      operation: z.literal('userinfo'),
      accessToken: required,
      method: z.enum(['GET', 'POST']).default('GET'),
    }),
    z.object({ operation: z.literal('profile'), accessToken: required }),
    z.object({ operation: z.literal('friendship'), accessToken: required }),
  ],
  { error: 'operation must be one of the login operations' },
);
export type LoginSendInput = z.input<typeof loginSendInputSchema>;
export type LoginOperation = LoginSendInput['operation'];

const loginSendOutputSchema = z.object({
  /** Masked: credentials show only their last 4 characters. */
  exchange: exchangeSchema,
  ok: z.boolean(),
  status: z.number(),
  /** The answer's JSON, or its text, credentials masked; undefined for an empty body. */
  body: z.unknown(),
  /**
   * The answer's credentials unmasked by JSON name, for "Copy" buttons and the next request;
   * never drawn (docs/decisions.md, "Secrets in requests").
   */
  credentials: z.record(z.string(), z.string()),
});
export type LoginSendOutput = z.infer<typeof loginSendOutputSchema>;

const loginContextSchema = z.object({
  kind: z.enum(['emulator', 'custom']),
  baseUrl: z.string(),
  channelId: z.string(),
  hasChannelSecret: z.boolean(),
  hasChannelAccessToken: z.boolean(),
});
export type LoginContext = z.infer<typeof loginContextSchema>;

const checkSchema = z.object({
  name: z.enum(['signature', 'issuer', 'expiry', 'audience', 'nonce', 'subject']),
  ok: z.boolean().optional(),
  detail: z.string(),
});
const idTokenInspectionSchema = z.object({
  header: z.record(z.string(), z.unknown()).optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  checks: z.array(checkSchema),
  error: z.string().optional(),
  expected: z.object({ issuer: z.string(), clientId: z.string(), now: z.number() }),
});
export type IdTokenInspection = z.infer<typeof idTokenInspectionSchema>;

const loginEmulatorStateSchema = z.object({
  channel: channelSettingsSchema,
  users: z.array(profileExtrasSchema),
  clock: z.object({ now: z.number(), offsetMs: z.number() }),
});

const mintCodeOpInputSchema = z.object({
  /** Omitted: a new user named `displayName`. */
  userId: userId.optional(),
  displayName: z.string().trim().min(1).max(100).optional(),
  scopes: z.array(z.string().trim().min(1)).min(1, 'pick at least one scope'),
  redirectUri: z.url({ error: 'must be an absolute URL' }),
  nonce: optional,
  maxAge: z.number().int().min(0, 'must be 0 or more').optional(),
  pkce: z.enum(['none', 'S256', 'plain']).default('none'),
  amr: z.array(z.enum(AMR_VALUES)).default(['pwd']),
});

export const loginOperations = {
  'login:context': op(none, loginContextSchema),
  'login:send': op(loginSendInputSchema, loginSendOutputSchema),
  'login:curl': op(
    z.object({ exchangeId: required, reveal: z.boolean().default(false) }),
    z.object({ curl: z.string() }),
  ),
  'login:inspectIdToken': op(
    z.object({
      idToken: required,
      clientId: optional,
      issuer: optional,
      nonce: optional,
      userId: optional,
    }),
    idTokenInspectionSchema,
  ),
  'login:emulatorState': op(none, loginEmulatorStateSchema),
  'login:mintCode': op(
    mintCodeOpInputSchema,
    z.object({ code: mintedCodeSchema, codeVerifier: z.string().optional() }),
  ),
  'login:saveChannel': op(
    z.object({
      appType: z.enum(APP_TYPES).optional(),
      linkedAccount: z.string().trim().max(100).nullable().optional(),
    }),
    channelSettingsSchema,
  ),
  'login:saveProfile': op(
    z.object({
      userId,
      pictureUrl: z.string().trim().nullable(),
      statusMessage: z.string().trim().nullable(),
      email: z.string().trim().nullable(),
    }),
    profileExtrasSchema,
  ),
  'login:setFriendship': op(
    z.object({ userId, friend: z.boolean(), blocked: z.boolean() }),
    friendshipStateSchema,
  ),
  'login:tokenState': op(z.object({ accessToken: required }), tokenStateSchema),
} as const;
