// Notification messages by phone number (docs/platform-api.md#notifications): template and flexible
// send bodies with every limit, daily counts, and the emulator's admin shapes (phone users and the
// template catalogue). Browser-safe.
import { z } from 'zod';

export const DELIVERY_TAG_HEADER = 'X-Platform-Delivery-Tag';
const DELIVERY_TAG_MIN = 16;
const DELIVERY_TAG_MAX = 100;
const MAX_ITEMS = 15;
const MAX_BUTTONS = 2;
const EMPHASIZED_CONTENT_MAX = 15;
const ITEM_CONTENT_MAX = 300;
const BUTTON_URL_MAX = 1000;
const MAX_FLEXIBLE_MESSAGES = 5;
/** Counts before this date (yyyyMMdd) are `out_of_service`. */
export const AGGREGATION_START = '20180331';
/** Where notification messages are delivered (not shown by the platform; the emulator's choice). */
export const TARGET_COUNTRIES = ['JP', 'TH'];

const SHA256_HEX = /^[0-9a-f]{64}$/;
const to = z
  .string({ error: 'is required: the SHA-256 hash of the E.164 phone number' })
  .regex(SHA256_HEX, 'must be the SHA-256 of the E.164 phone number, as 64 lowercase hex digits');

const item = (max: number) =>
  z.object({
    itemKey: z.string({ error: 'is required' }).min(1, 'is required'),
    content: z
      .string({ error: 'is required' })
      .min(1, 'is required')
      .max(max, `must be at most ${max} characters`),
  });
const button = z.object({
  buttonKey: z.string({ error: 'is required' }).min(1, 'is required'),
  url: z
    .string({ error: 'is required' })
    .max(BUTTON_URL_MAX, `must be at most ${BUTTON_URL_MAX} characters`)
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' })),
});

/** Adds an issue on each key of `keys` already in `before` or earlier in `keys`. */
function flagRepeats(
  ctx: z.RefinementCtx,
  before: string[],
  keys: string[],
  list: string,
  field: string,
  noun: string,
): void {
  const seen = new Set(before);
  keys.forEach((key, i) => {
    if (seen.has(key))
      ctx.addIssue({ code: 'custom', path: [list, i, field], message: `repeats ${noun} ${key}` });
    seen.add(key);
  });
}

export const templateBodySchema = z.object({
  to,
  templateKey: z.string({ error: 'is required' }).min(1, 'is required'),
  body: z
    .object({
      emphasizedItem: item(EMPHASIZED_CONTENT_MAX).optional(),
      items: z
        .array(item(ITEM_CONTENT_MAX))
        .max(MAX_ITEMS, `must hold at most ${MAX_ITEMS} items`)
        .optional(),
      buttons: z
        .array(button)
        .max(MAX_BUTTONS, `must hold at most ${MAX_BUTTONS} buttons`)
        .optional(),
    })
    .superRefine((body, ctx) => {
      // An item appears once per message (docs/platform-api.md#notifications-limits).
      const items = body.items?.map((it) => it.itemKey) ?? [];
      const emphasized = body.emphasizedItem ? [body.emphasizedItem.itemKey] : [];
      flagRepeats(ctx, emphasized, items, 'items', 'itemKey', 'item');
      flagRepeats(
        ctx,
        [],
        body.buttons?.map((b) => b.buttonKey) ?? [],
        'buttons',
        'buttonKey',
        'button',
      );
    })
    .optional(),
});
export type TemplateBody = z.input<typeof templateBodySchema>;

/** The shape of a flexible message is not shown by the platform: any object with a `type`. */
const flexibleMessageSchema = z.looseObject({
  type: z
    .string({ error: 'is required: the message type' })
    .min(1, 'is required: the message type'),
});
export const flexibleBodySchema = z.object({
  to,
  messages: z
    .array(flexibleMessageSchema, { error: 'is required: an array of 1 to 5 messages' })
    .min(1, 'must hold at least 1 message')
    .max(MAX_FLEXIBLE_MESSAGES, `must hold at most ${MAX_FLEXIBLE_MESSAGES} messages`),
});
export type FlexibleBody = z.input<typeof flexibleBodySchema>;

export const deliveryTagSchema = z
  .string()
  .min(DELIVERY_TAG_MIN, `must be ${DELIVERY_TAG_MIN} to ${DELIVERY_TAG_MAX} characters`)
  .max(DELIVERY_TAG_MAX, `must be ${DELIVERY_TAG_MIN} to ${DELIVERY_TAG_MAX} characters`);

/** `yyyyMMdd`, a real calendar date. */
export const countDateSchema = z
  .string({ error: 'is required: the date as yyyyMMdd (UTC+9)' })
  .regex(/^\d{8}$/, { error: 'must be yyyyMMdd', abort: true })
  .refine((d) => {
    const [y, m, day] = [Number(d.slice(0, 4)), Number(d.slice(4, 6)), Number(d.slice(6, 8))];
    const date = new Date(Date.UTC(y, m - 1, day));
    return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === day;
  }, 'is not a calendar date');

export const countSchema = z.object({
  status: z.enum(['ready', 'unready', 'out_of_service']),
  success: z.number().optional(),
});
export type DeliveryCount = z.infer<typeof countSchema>;

export const NOTIFICATION_KINDS = ['template', 'flexible'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** The `yyyyMMdd` day, in UTC+9, that a virtual-clock instant falls on. */
export function dayInUtc9(ms: number): string {
  return new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10).replaceAll('-', '');
}

// ---- emulator admin ----

export const phoneUserInputSchema = z.object({
  phoneNumber: z.string({ error: 'is required' }).min(1, 'is required').max(40),
  /** ISO country for numbers written without `+`. */
  defaultCountry: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO country code such as JP')
    .optional(),
  /** The user refused notification messages. */
  refused: z.boolean().default(false),
  /** The user agreed to the privacy policy revised March 2022 or later. */
  policyAgreed: z.boolean().default(true),
});

export const phoneUserSchema = z.object({
  hash: z.string(),
  e164: z.string(),
  country: z.string().nullable(),
  refused: z.boolean(),
  policyAgreed: z.boolean(),
});
export type PhoneUser = z.infer<typeof phoneUserSchema>;

export const templateDefinitionSchema = z.object({
  itemKeys: z.array(z.string().min(1)).max(50),
  buttonKeys: z.array(z.string().min(1)).max(10),
});
const templateSchema = templateDefinitionSchema.extend({ templateKey: z.string() });
export type NotificationTemplate = z.infer<typeof templateSchema>;

export const notificationStateSchema = z.object({
  today: z.string(),
  targetCountries: z.array(z.string()),
  users: z.array(phoneUserSchema),
  templates: z.array(templateSchema),
  channels: z.array(z.object({ channelId: z.string(), name: z.string(), allowed: z.boolean() })),
  sends: z.array(
    z.object({
      id: z.number(),
      channelId: z.string(),
      kind: z.enum(NOTIFICATION_KINDS),
      hash: z.string(),
      deliveryTag: z.string().nullable(),
      day: z.string(),
      sentAt: z.number(),
    }),
  ),
});
export type NotificationState = z.infer<typeof notificationStateSchema>;
