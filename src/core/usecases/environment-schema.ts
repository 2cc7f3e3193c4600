// An environment as the front ends see it (its secrets only as set or not, with a hint) and as
// one is saved; the contract's `settings:*` operations take these shapes. Kept apart from
// environments.ts, which reads files and the keychain, so the renderer's build can import them.
import { z } from 'zod';

const secretView = z.object({ set: z.boolean(), hint: z.string().optional() });
export const environmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['emulator', 'custom']),
  baseUrl: z.string(),
  channelId: z.string(),
  channelAccessToken: secretView,
  channelSecret: secretView,
});
export type EnvironmentView = z.infer<typeof environmentSchema>;

export const saveEnvironmentSchema = z.object({
  id: z.string().optional(),
  name: z.string().trim().min(1, 'is required').max(60, 'must be at most 60 characters'),
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .transform((u) => u.replace(/\/+$/, '')),
  channelId: z
    .string()
    .trim()
    .regex(/^\d{1,20}$/, 'must be the numeric channel ID'),
  /** Omitted or empty keeps the stored secret. */
  channelAccessToken: z.string().trim().optional(),
  channelSecret: z.string().trim().optional(),
});
export type EnvironmentInput = z.output<typeof saveEnvironmentSchema>;
