// Embedded apps (docs/platform-api.md#embed): the add and update bodies with every rule, the listed
// app, and the emulator's per-channel settings and channel-token kinds. Browser-safe.
import { z } from 'zod';

export const EMBED_APP_LIMIT = 30;
export const VIEW_TYPES = ['compact', 'tall', 'full'] as const;
export const EMBED_SCOPES = ['openid', 'email', 'profile', 'chat_message.write'] as const;
export const BOT_PROMPTS = ['normal', 'aggressive', 'none'] as const;
export const DEFAULT_SCOPE: EmbedScope[] = ['profile', 'chat_message.write'];
const DESCRIPTION_MAX = 100;
export type EmbedScope = (typeof EMBED_SCOPES)[number];

/**
 * The platform's brand and look-alikes: any case, full-width letters (folded by NFKC), digits
 * or symbols standing in for letters, spaces or dots between letters, and the katakana reading.
 * "Online" or "pipeline" pass: the letters must not be part of a longer word.
 */
const BRAND_PATTERN = /(?<![a-z])l[\s._-]*[i1!|l][\s._-]*n[\s._-]*[e3](?![a-z])|ライン/i;

function containsBrand(text: string): boolean {
  return BRAND_PATTERN.test(text.normalize('NFKC'));
}

const viewUrl = z
  .string({ error: 'is required and must be a string' })
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
      return;
    }
    if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use https' });
    if (value.includes('#'))
      ctx.addIssue({ code: 'custom', message: 'must not contain a fragment (#…)' });
  });

const viewType = z.enum(VIEW_TYPES, { error: `must be one of ${VIEW_TYPES.join(', ')}` });
const moduleMode = z.boolean({ error: 'must be true or false' });
const description = z
  .string({ error: 'must be a string' })
  .max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`)
  .refine((d) => !containsBrand(d), {
    message: "must not contain the platform's name ('LINE') or a look-alike",
  });
const scope = z
  .array(z.enum(EMBED_SCOPES, { error: `must be one of ${EMBED_SCOPES.join(', ')}` }), {
    error: 'must be an array of scopes',
  })
  .min(1, 'must name at least one scope')
  .refine((s) => new Set(s).size === s.length, { message: 'must not repeat a scope' });
const botPrompt = z.enum(BOT_PROMPTS, { error: `must be one of ${BOT_PROMPTS.join(', ')}` });
const permanentLinkPattern = z.literal('concat', { error: "must be 'concat'" });
const features = z.object(
  { qrCode: z.boolean({ error: 'must be true or false' }).optional() },
  { error: 'must be an object' },
);

/** The fields both add and update take as optional. */
const optionalAppFields = {
  description: description.optional(),
  features: features.optional(),
  permanentLinkPattern: permanentLinkPattern.optional(),
  scope: scope.optional(),
  botPrompt: botPrompt.optional(),
};

export const addEmbedAppSchema = z.object(
  {
    view: z.object(
      { type: viewType, url: viewUrl, moduleMode: moduleMode.optional() },
      { error: 'is required and must be an object' },
    ),
    ...optionalAppFields,
  },
  { error: 'must be a JSON object' },
);
export type AddEmbedApp = z.input<typeof addEmbedAppSchema>;

export const updateEmbedAppSchema = z.object(
  {
    view: z
      .object(
        { type: viewType.optional(), url: viewUrl.optional(), moduleMode: moduleMode.optional() },
        { error: 'must be an object' },
      )
      .optional(),
    ...optionalAppFields,
  },
  { error: 'must be a JSON object' },
);
export type UpdateEmbedApp = z.input<typeof updateEmbedAppSchema>;

export const embedAppSchema = z.object({
  embedId: z.string(),
  view: z.object({ type: z.string(), url: z.string(), moduleMode: z.boolean().optional() }),
  description: z.string().optional(),
  features: z.object({ ble: z.boolean().optional(), qrCode: z.boolean().optional() }).optional(),
  permanentLinkPattern: z.string().optional(),
  scope: z.array(z.string()).optional(),
  botPrompt: z.string().optional(),
});
export type EmbedApp = z.infer<typeof embedAppSchema>;
export const embedAppListSchema = z.object({ apps: z.array(embedAppSchema) });
export const addEmbedAppResultSchema = z.object({ embedId: z.string() });

// ---- emulator-only: what a channel is and which channel tokens it has ----

/** What the emulator knows of a channel beyond the directory; every flag is admin-set. */
export const channelSettingsSchema = z.object({
  channelId: z.string(),
  /** Service messages refuse long-lived tokens and user-expiry tokens on mini app channels. */
  miniApp: z.boolean(),
  /** `features.ble` of the channel's listed apps. */
  ble: z.boolean(),
  /** Verified / permitted for service messages; otherwise 403. */
  serviceMessages: z.boolean(),
  /** Applied for in-app purchase; otherwise 403. */
  inAppPurchase: z.boolean(),
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
export const channelSettingsInputSchema = channelSettingsSchema.omit({ channelId: true }).partial();

export const CHANNEL_TOKEN_KINDS = [
  'long-lived',
  'short-lived',
  'stateless',
  'user-expiry',
] as const;
export type ChannelTokenKind = (typeof CHANNEL_TOKEN_KINDS)[number];
export const issueChannelTokenInputSchema = z.object({
  channelId: z.string({ error: 'is required' }).regex(/^\d+$/, 'must be a channel ID'),
  kind: z.enum(CHANNEL_TOKEN_KINDS, { error: `must be one of ${CHANNEL_TOKEN_KINDS.join(', ')}` }),
  /** Only for `user-expiry`: seconds until it expires (1 s to 30 days). */
  expiresIn: z.number().int().min(1).max(2_592_000).optional(),
});
export const channelTokenSchema = z.object({
  accessToken: z.string(),
  channelId: z.string(),
  kind: z.enum(CHANNEL_TOKEN_KINDS),
  issuedAt: z.number(),
  /** Null for long-lived tokens. */
  expiresAt: z.number().nullable(),
});
export type ChannelToken = z.infer<typeof channelTokenSchema>;
