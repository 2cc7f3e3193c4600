// The one contract between the UI and the app: every operation and event, declared once with
// zod schemas. Main (IPC), the preload, the bench server and the renderer all import this; it
// imports none of them, and only browser-safe schema modules.
import { z } from 'zod';
import {
  activitySchema,
  clockSchema,
  emulatorDeviceSchema,
  faultInputSchema,
  faultSchema,
  userSchema,
} from '../emulator/schema';
import {
  createTrialProductSchema,
  deviceSchema,
  linksSchema,
  scenarioSetInputSchema,
  scenarioSetSchema,
  trialProductSchema,
  USER_ID_PATTERN,
} from '../platform/things/schema';

const ERROR_CODES = [
  'invalid_input',
  'unknown_operation',
  'platform',
  'unreachable',
  'not_configured',
  'internal',
] as const;

export const appErrorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  /** Field-named problems with the input (or the platform's 400 details). */
  fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  status: z.number().optional(),
  requestId: z.string().optional(),
  body: z.unknown().optional(),
});
export type AppErrorBody = z.infer<typeof appErrorSchema>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorBody };

const none = z.object({});
const productId = z.string().trim().min(1, 'is required');
const userId = z.string().trim().regex(USER_ID_PATTERN, 'must match U[0-9a-f]{32}');

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

export const statusSchema = z.object({
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

export const emulatorStateSchema = z.object({
  url: z.string(),
  adminUrl: z.string(),
  clock: clockSchema,
  channels: z.array(z.object({ channelId: z.string(), name: z.string() })),
  users: z.array(userSchema),
  faults: z.array(faultSchema),
  devices: z.array(emulatorDeviceSchema),
  activity: z.array(activitySchema),
});
export type EmulatorState = z.infer<typeof emulatorStateSchema>;

function op<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

export const operations = {
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

  'things:listTrialProducts': op(none, z.array(trialProductSchema)),
  'things:createTrialProduct': op(createTrialProductSchema, trialProductSchema),
  'things:deleteTrialProduct': op(z.object({ productId }), z.object({ deleted: z.literal(true) })),
  'things:getScenarioSet': op(z.object({ productId }), scenarioSetSchema),
  'things:putScenarioSet': op(
    z.object({ productId, scenarioSet: scenarioSetInputSchema }),
    scenarioSetSchema,
  ),
  'things:deleteScenarioSet': op(z.object({ productId }), z.object({ deleted: z.literal(true) })),
  'things:getDevice': op(
    z.object({ deviceId: z.string().trim().min(1, 'is required') }),
    deviceSchema,
  ),
  'things:getLinks': op(z.object({ productId, userId }), linksSchema),

  'emulator:getState': op(none, emulatorStateSchema),
  'emulator:addUser': op(
    z.object({ displayName: z.string().trim().min(1, 'is required').max(100) }),
    userSchema,
  ),
  'emulator:registerDevice': op(
    z.object({
      productId,
      productSpecificDeviceId: z.string().trim().min(1, 'is required').max(256),
      userId: userId.optional(),
    }),
    z.object({ device: deviceSchema, link: z.object({ userId: z.string() }).nullable() }),
  ),
  'emulator:linkDevice': op(
    z.object({ deviceId: z.string().min(1, 'is required'), userId }),
    z.object({ deviceId: z.string(), userId: z.string() }),
  ),
  'emulator:advanceClock': op(
    z.object({ ms: z.number().int().positive('must be positive: the clock only moves forward') }),
    clockSchema,
  ),
  'emulator:resetClock': op(none, clockSchema),
  'emulator:injectFault': op(faultInputSchema, faultSchema),
  'emulator:clearFaults': op(none, z.object({ cleared: z.literal(true) })),
} as const;

/** The Electron IPC channel events travel on, as `(name, payload)`; the preload filters by name. */
export const IPC_EVENT_CHANNEL = 'devicebench:event';

export const events = {
  'emulator:activity': activitySchema,
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<N extends OperationName> = z.input<Operations[N]['input']>;
export type OpParsedInput<N extends OperationName> = z.output<Operations[N]['input']>;
export type OpOutput<N extends OperationName> = z.output<Operations[N]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}
export function isEventName(name: string): name is EventName {
  return Object.hasOwn(events, name);
}
