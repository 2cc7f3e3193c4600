// Login and token resources of docs/platform-api.md#login (token sets, verification results, ID
// token claims, profile, friendship, OAuth errors), their lifetimes and the emulator's admin
// inputs. Browser-safe: the emulator, the client, the contract and the console share these.
import { z } from 'zod';
import { userIdField } from '../user-id';

const DAY_MS = 86_400_000;
/** Every access token lives 30 days (docs/platform-api.md#login-lifecycle). */
export const ACCESS_TOKEN_TTL_MS = 30 * DAY_MS;
/** v2.1: a refresh token lives 90 days from the issue of the access token it came with. */
export const REFRESH_TOKEN_V21_TTL_MS = 90 * DAY_MS;
/** v2.0: a refresh token lives until 10 days after its access token expires. */
export const REFRESH_TOKEN_V20_GRACE_MS = 10 * DAY_MS;
/** Not in the platform's documents: an authorization code lives 10 minutes, as RFC 6749 §4.1.2 advises. */
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60_000;
/** Not in the platform's documents: an ID token expires one hour after it is issued. */
export const ID_TOKEN_TTL_MS = 60 * 60_000;
/** docs/platform-api.md#login-endpoints and RFC 7636 §4.1: 43–128 unreserved characters. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

/** The v2.0 scope: access to profile information. */
export const V20_SCOPE = 'P';
export const AMR_VALUES = ['pwd', 'lineautologin', 'lineqr', 'linesso', 'mfa'] as const;

/** docs/platform-api.md#login-errors: the six ID token verification failures, in the order they are checked. */
export const ID_TOKEN_ERRORS = {
  signature: 'Invalid IdToken.',
  issuer: 'Invalid IdToken Issuer.',
  expiry: 'IdToken expired.',
  audience: 'Invalid IdToken Audience.',
  nonce: 'Invalid IdToken Nonce.',
  subject: 'Invalid IdToken Subject Identifier.',
} as const;
export type IdTokenCheckName = keyof typeof ID_TOKEN_ERRORS;

/** Which app types a login channel has; decides whether refresh and revoke need the secret. */
export const APP_TYPES = ['web', 'mobile', 'mobile_web'] as const;
export type AppType = (typeof APP_TYPES)[number];
export const APP_TYPE_LABELS: Record<AppType, string> = {
  web: 'Web app only',
  mobile: 'Mobile app',
  mobile_web: 'Mobile plus Web app',
};
/** docs/platform-api.md#login-endpoints: `client_secret` is required on refresh and revoke only for Web-app-only channels. */
export function secretRequired(appType: AppType): boolean {
  return appType === 'web';
}

export type ApiVersion = '2.0' | '2.1';
export type TokenState = 'valid' | 'expired' | 'revoked' | 'deauthorized';

// ---- platform responses: parsed tolerantly (docs/platform-api.md#conventions: properties may be added) ----

export const tokenSetSchema = z.object({
  access_token: z.string(),
  expires_in: z.number(),
  id_token: z.string().optional(),
  refresh_token: z.string(),
  scope: z.string(),
  token_type: z.string(),
});
export type TokenSet = z.infer<typeof tokenSetSchema>;

export const verifyResultSchema = z.object({
  scope: z.string(),
  client_id: z.string(),
  expires_in: z.number(),
});
export type VerifyResult = z.infer<typeof verifyResultSchema>;

export const idTokenPayloadSchema = z.object({
  iss: z.string(),
  sub: z.string(),
  aud: z.string(),
  exp: z.number(),
  iat: z.number(),
  auth_time: z.number().optional(),
  nonce: z.string().optional(),
  amr: z.array(z.string()).optional(),
  name: z.string().optional(),
  picture: z.string().optional(),
  email: z.string().optional(),
});
export type IdTokenPayload = z.infer<typeof idTokenPayloadSchema>;

export const userInfoSchema = z.object({
  sub: z.string(),
  name: z.string().optional(),
  picture: z.string().optional(),
});
export type UserInfo = z.infer<typeof userInfoSchema>;

export const profileSchema = z.object({
  userId: z.string(),
  displayName: z.string(),
  pictureUrl: z.string().optional(),
  statusMessage: z.string().optional(),
});
export type Profile = z.infer<typeof profileSchema>;

export const friendshipSchema = z.object({ friendFlag: z.boolean() });
export type Friendship = z.infer<typeof friendshipSchema>;

export const oauthErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});

/** One HTTP request and its answer, as the login console shows them (see exchange.ts). */
export const exchangeSchema = z.object({
  id: z.string(),
  at: z.number(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().optional(),
  }),
  response: z
    .object({
      status: z.number(),
      requestId: z.string().optional(),
      contentType: z.string().optional(),
      body: z.string(),
      durationMs: z.number(),
    })
    .optional(),
});
export type Exchange = z.infer<typeof exchangeSchema>;

// ---- the emulator's admin API (the authorization request the platform does not show) ----

const optionalText = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

export const mintCodeInputSchema = z
  .object({
    /** Omitted: a new user is added to the Directory with `displayName`. */
    userId: userIdField.optional(),
    displayName: optionalText(100).default('Login user'),
    /** Omitted: the emulator's first channel. */
    channelId: z.string().regex(/^\d+$/, 'must be a channel ID').optional(),
    scopes: z
      .array(z.string().regex(/^[\x21-\x7e]+$/, 'must be one scope without spaces'))
      .min(1, 'must name at least one scope'),
    redirectUri: z.url({ error: 'must be an absolute URL' }),
    nonce: optionalText(255).optional(),
    /** Seconds; when given, the ID token carries `auth_time`. */
    maxAge: z.number().int().min(0, 'must be 0 or more').optional(),
    codeChallenge: z
      .string()
      .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~')
      .optional(),
    codeChallengeMethod: z
      .enum(['S256', 'plain'], { error: "must be 'S256' or 'plain'" })
      .optional(),
    /** How the user authenticated; an empty list omits `amr` from the ID token. */
    amr: z
      .array(z.enum(AMR_VALUES, { error: `must be one of ${AMR_VALUES.join(', ')}` }))
      .default(['pwd']),
  })
  .superRefine((input, ctx) => {
    if (input.scopes.includes('email') && !input.scopes.includes('openid'))
      ctx.addIssue({
        code: 'custom',
        path: ['scopes'],
        message: 'email needs openid: the address is only returned in the ID token',
      });
    if (input.codeChallengeMethod && !input.codeChallenge)
      ctx.addIssue({
        code: 'custom',
        path: ['codeChallenge'],
        message: 'is required when codeChallengeMethod is given',
      });
  });
export type MintCodeInput = z.input<typeof mintCodeInputSchema>;

export const mintedCodeSchema = z.object({
  code: z.string(),
  channelId: z.string(),
  userId: z.string(),
  scopes: z.array(z.string()),
  redirectUri: z.string(),
  nonce: z.string().optional(),
  maxAge: z.number().optional(),
  codeChallenge: z.string().optional(),
  codeChallengeMethod: z.enum(['S256', 'plain']).optional(),
  amr: z.array(z.string()),
  issuedAt: z.number(),
  expiresAt: z.number(),
});
export type MintedCode = z.infer<typeof mintedCodeSchema>;

const nullableText = (max: number) => optionalText(max).nullable().optional();

export const profileExtrasInputSchema = z.object({
  pictureUrl: z
    .url({ protocol: /^https$/, error: 'must be an https:// URL' })
    .nullable()
    .optional(),
  statusMessage: nullableText(500),
  email: z.email({ error: 'must be an email address' }).nullable().optional(),
});
export const profileExtrasSchema = z.object({
  userId: z.string(),
  displayName: z.string(),
  pictureUrl: z.string().nullable(),
  statusMessage: z.string().nullable(),
  email: z.string().nullable(),
});
export type ProfileExtras = z.infer<typeof profileExtrasSchema>;

export const channelSettingsInputSchema = z.object({
  appType: z.enum(APP_TYPES, { error: `must be one of ${APP_TYPES.join(', ')}` }).optional(),
  /** The official account linked to the channel; null unlinks it. */
  linkedAccount: nullableText(100),
});
export const channelSettingsSchema = z.object({
  channelId: z.string(),
  name: z.string(),
  appType: z.enum(APP_TYPES),
  linkedAccount: z.string().nullable(),
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;

export const friendshipInputSchema = z.object({
  channelId: z.string({ error: 'is required' }).regex(/^\d+$/, 'must be a channel ID'),
  userId: userIdField,
  friend: z.boolean({ error: 'must be true or false' }),
  blocked: z.boolean({ error: 'must be true or false' }).default(false),
});
export const friendshipStateSchema = z.object({
  channelId: z.string(),
  userId: z.string(),
  friend: z.boolean(),
  blocked: z.boolean(),
});
export type FriendshipState = z.infer<typeof friendshipStateSchema>;

export const tokenStateSchema = z.object({
  accessToken: z.string(),
  version: z.enum(['2.0', '2.1']),
  channelId: z.string(),
  userId: z.string(),
  scopes: z.array(z.string()),
  state: z.enum(['valid', 'expired', 'revoked', 'deauthorized']),
  issuedAt: z.number(),
  expiresAt: z.number(),
  refreshToken: z
    .object({
      state: z.enum(['valid', 'expired', 'revoked', 'replaced']),
      expiresAt: z.number(),
    })
    .nullable(),
  now: z.number(),
});
export type TokenStateView = z.infer<typeof tokenStateSchema>;
