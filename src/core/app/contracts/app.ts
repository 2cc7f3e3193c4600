// The app itself and its settings: status, environments.
import { z } from 'zod';
import { environmentSchema, saveEnvironmentSchema } from '../../usecases/environment-schema';
import { none, op } from './op';

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
