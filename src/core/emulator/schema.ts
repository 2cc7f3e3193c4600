// Browser-safe shapes of the emulator's admin API, shared by the admin client and the contract.
import { z } from 'zod';

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
export const userSchema = z.object({ userId: z.string(), displayName: z.string() });
export const channelSchema = z.object({
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
