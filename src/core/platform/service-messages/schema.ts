// Service messages (docs/platform-api.md#service-messages): the notification token, the issue and
// send bodies, and the templates the emulator knows. Browser-safe.
import { z } from 'zod';

export const NOTIFICATION_TOKEN_LIFE_SECONDS = 31_536_000;
export const MESSAGES_PER_TOKEN = 5;
const TEMPLATE_NAME_MAX = 30;
export const TEMPLATE_LANGUAGES = ['ja', 'en', 'zh-TW', 'th', 'id', 'ko'] as const;
export type TemplateLanguage = (typeof TEMPLATE_LANGUAGES)[number];

const TEMPLATE_NAME_PATTERN = new RegExp(`^(.+)_(${TEMPLATE_LANGUAGES.join('|')})$`);

/** `{name}_{tag}` split in two, or undefined when it does not end in a listed tag. */
export function splitTemplateName(
  templateName: string,
): { name: string; language: TemplateLanguage } | undefined {
  const match = TEMPLATE_NAME_PATTERN.exec(templateName);
  return match ? { name: match[1]!, language: match[2] as TemplateLanguage } : undefined;
}

export const notificationTokenSchema = z.object({
  notificationToken: z.string(),
  expiresIn: z.number(),
  remainingCount: z.number(),
  sessionId: z.string(),
});
export type NotificationToken = z.infer<typeof notificationTokenSchema>;

export const issueNotificationTokenSchema = z.object(
  {
    embedAccessToken: z.string({ error: 'is required and must be a string' }).min(1, 'is required'),
  },
  { error: 'must be a JSON object' },
);

export const sendServiceMessageSchema = z.object(
  {
    templateName: z
      .string({ error: 'is required and must be a string' })
      .max(TEMPLATE_NAME_MAX, `must be at most ${TEMPLATE_NAME_MAX} characters`)
      .refine((t) => splitTemplateName(t) !== undefined, {
        message: `must be {template name}_{language}, the language one of ${TEMPLATE_LANGUAGES.join(', ')}`,
      }),
    params: z.record(z.string(), z.string({ error: 'must be a string' }), {
      error: 'is required and must be an object ({} when the template has no variables)',
    }),
    notificationToken: z
      .string({ error: 'is required and must be a string' })
      .min(1, 'is required'),
  },
  { error: 'must be a JSON object' },
);
export type SendServiceMessage = z.infer<typeof sendServiceMessageSchema>;

export const templateSchema = z.object({
  name: z
    .string({ error: 'is required' })
    .regex(/^[a-z0-9_]+$/, 'must be lowercase letters, digits and _')
    .max(TEMPLATE_NAME_MAX - 6, `must be at most ${TEMPLATE_NAME_MAX - 6} characters`),
  languages: z
    .array(z.enum(TEMPLATE_LANGUAGES), { error: 'must be an array of language tags' })
    .min(1, 'must name at least one language')
    .default([...TEMPLATE_LANGUAGES]),
  /** Variables every send must give. */
  required: z.array(z.string().regex(/^\w+$/, 'must be a variable name')).default([]),
  /** Variables a send may give. */
  optional: z.array(z.string().regex(/^\w+$/, 'must be a variable name')).default([]),
});
export type Template = z.output<typeof templateSchema>;

export const sentServiceMessageSchema = z.object({
  id: z.number(),
  channelId: z.string(),
  userId: z.string(),
  templateName: z.string(),
  params: z.record(z.string(), z.string()),
  sessionId: z.string(),
  sentAt: z.number(),
  /** True when the send ended the token (expired or used up) instead of renewing it. */
  lastOfToken: z.boolean(),
});
export type SentServiceMessage = z.infer<typeof sentServiceMessageSchema>;

/** Seeded in every emulator; more can be added through the admin API. */
export const SEEDED_TEMPLATES: Template[] = [
  {
    name: 'reservation_confirm',
    languages: [...TEMPLATE_LANGUAGES],
    required: ['date', 'time', 'shop_name'],
    optional: ['seats'],
  },
  {
    name: 'order_complete',
    languages: [...TEMPLATE_LANGUAGES],
    required: ['order_number', 'total'],
    optional: ['delivery_date'],
  },
  {
    name: 'delivery_notice',
    languages: ['ja', 'en'],
    required: ['tracking_number'],
    optional: [],
  },
  { name: 'thank_you', languages: [...TEMPLATE_LANGUAGES], required: [], optional: [] },
];
