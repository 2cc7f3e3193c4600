// Browser-safe shapes of the emulator's admin API, shared by the admin client and the contract.
import { z } from 'zod';
import { scenarioResultSchema } from '../platform/things/scenario-result';
import { userIdField } from '../platform/user-id';

const pathPrefix = z.string().startsWith('/', 'must start with /').optional();
const count = z.number().int().min(1).max(10_000).default(1);

export const faultInputSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({
      kind: z.literal('status'),
      status: z.union([z.literal(429), z.literal(500), z.literal(503)], {
        error: 'must be 429, 500 or 503',
      }),
      count,
      pathPrefix,
    }),
    z.object({
      kind: z.literal('latency'),
      latencyMs: z.number().int().min(1, 'must be at least 1').max(60_000, 'must be at most 60000'),
      count,
      pathPrefix,
    }),
  ],
  { error: "kind must be 'status' or 'latency'" },
);
export type FaultInput = z.input<typeof faultInputSchema>;
export const faultSchema = z.intersection(
  faultInputSchema,
  z.object({ id: z.number(), remaining: z.number() }),
);
export type Fault = z.output<typeof faultSchema>;

export const activitySchema = z.object({
  seq: z.number(),
  at: z.number(),
  method: z.string(),
  path: z.string(),
  status: z.number(),
  requestId: z.string(),
  durationMs: z.number(),
  channelId: z.string().optional(),
  fault: z.string().optional(),
  admin: z.boolean().optional(),
});
export type Activity = z.infer<typeof activitySchema>;

export const clockSchema = z.object({ now: z.number(), offsetMs: z.number() });

/**
 * How far the virtual clock may run ahead of real time: 100 years (36,500 days). Far enough for
 * every expiry the platform has, near enough that every date stays a valid date.
 */
export const MAX_CLOCK_OFFSET_MS = 36_500 * 24 * 3_600_000;
export const clockAdvanceInputSchema = z.object({
  ms: z
    .number({ error: 'is required: milliseconds to move the clock forward' })
    .int('must be a whole number of milliseconds')
    .positive('must be positive: the clock only moves forward')
    .max(MAX_CLOCK_OFFSET_MS, `must be at most ${MAX_CLOCK_OFFSET_MS} (100 years)`),
});
export const userSchema = z.object({ userId: z.string(), displayName: z.string() });
const channelSchema = z.object({
  channelId: z.string(),
  name: z.string(),
  channelSecret: z.string(),
  channelAccessToken: z.string(),
});
export const emulatorDeviceSchema = z.object({
  id: z.string(),
  productId: z.string(),
  productSpecificDeviceId: z.string(),
  userId: z.string().nullable(),
});

export const adminStateSchema = z.object({
  clock: clockSchema,
  channels: z.array(channelSchema),
  users: z.array(userSchema),
  faults: z.array(faultSchema),
});

/** A header name the emulator is told to use where the platform's documents give none. */
export const headerNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, 'must be an HTTP header name')
  .refine(
    (name) => !['authorization', 'content-type', 'host'].includes(name.toLowerCase()),
    'must not be a header the request already needs',
  );

export const webhookSettingsSchema = z.object({ signatureHeader: headerNameSchema });

export const webhookUrlInputSchema = z.object({
  channelId: z.string().regex(/^\d+$/, 'must be a channel ID'),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).nullable(),
});

export const mintUserTokenInputSchema = z.object({
  userId: userIdField,
  /** Defaults to the first channel. */
  channelId: z.string().regex(/^\d+$/, 'must be a channel ID').optional(),
  scopes: z.array(z.string().regex(/^\S+$/, 'must be one scope without spaces')).default([]),
  version: z.enum(['2.0', '2.1']).default('2.1'),
});

export const userTokenSchema = z.object({
  accessToken: z.string(),
  userId: z.string(),
  channelId: z.string(),
  scopes: z.array(z.string()),
  version: z.enum(['2.0', '2.1']),
  issuedAt: z.number(),
  expiresAt: z.number(),
  revokedAt: z.number().optional(),
  deauthorizedAt: z.number().optional(),
  state: z.enum(['valid', 'expired', 'revoked', 'deauthorized']),
});

/** At most this many scenario results per admin call; each is its own envelope. */
const SCENARIO_RESULTS_PER_CALL = 100;

export const deliverScenarioResultsInputSchema = z.object(
  {
    productId: z.string({ error: 'is required' }).min(1, 'is required'),
    productSpecificDeviceId: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .optional(),
    userId: userIdField.optional(),
    results: z
      .array(scenarioResultSchema, { error: 'is required and must be an array' })
      .min(1, 'must hold at least one result')
      .max(SCENARIO_RESULTS_PER_CALL, `must hold at most ${SCENARIO_RESULTS_PER_CALL} results`),
  },
  { error: 'must be a JSON object' },
);
export type DeliverScenarioResultsInput = z.input<typeof deliverScenarioResultsInputSchema>;
