// The app itself and its settings: status, environments.
import { z } from 'zod';
import { none, op } from './op';

const secretView = z.object({ set: z.boolean(), hint: z.string().optional() });
const environmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['emulator', 'custom']),
  baseUrl: z.string(),
  channelId: z.string(),
  channelAccessToken: secretView,
  channelSecret: secretView,
});
export type EnvironmentView = z.infer<typeof environmentSchema>;

const saveEnvironmentSchema = z.object({
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

const statusSchema = z.object({
  version: z.string(),
  dataDir: z.string(),
  keychain: z.object({ kind: z.enum(['keychain', 'memory']), reason: z.string().optional() }),
  emulator: z.object({
    running: z.boolean(),
    url: z.string().optional(),
    error: z.string().optional(),
  }),
  environment: z.object({ id: z.string(), name: z.string(), kind: z.enum(['emulator', 'custom']) }),
  /** Things the user should know happened at start, such as a settings file set aside. */
  notices: z.array(z.string()),
});
export type AppStatus = z.infer<typeof statusSchema>;

export const appOperations = {
  'app:getStatus': op(none, statusSchema),

  'settings:listEnvironments': op(
    none,
    z.object({ activeId: z.string(), environments: z.array(environmentSchema) }),
  ),
  'settings:saveEnvironment': op(saveEnvironmentSchema, environmentSchema),
  'settings:deleteEnvironment': op(
    z.object({ id: z.string() }),
    z.object({ activeId: z.string() }),
  ),
  'settings:selectEnvironment': op(
    z.object({ id: z.string() }),
    z.object({ activeId: z.string() }),
  ),
} as const;
