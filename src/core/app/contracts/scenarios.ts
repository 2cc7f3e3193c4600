// Scenario dry runs: read a board's GATT table for the editor's lint, run the saved set or the
// editor's draft on a board, stop it, and read past runs from the audit log. The timeline
// arrives as events while a run goes.
import { z } from 'zod';
import { scenarioSetInputSchema } from '../../platform/things/schema';
import {
  runListQuerySchema,
  runnableSetSchema,
  scenarioRunSummarySchema,
  timelineEventSchema,
} from '../../scenario/schema';
import { gattServiceSchema } from '../../ble/link-record';
import { requiredId as productId } from '../../bounds';
import { op } from './op';

const deviceId = z.string().trim().min(1, 'is required: pick a board');
const runId = z.number().int().positive();

const deliverySchema = z.discriminatedUnion(
  'mode',
  [
    /** The embedded emulator signs each result and sends it to the channel's webhook URL. */
    z.object({ mode: z.literal('emulator') }),
    /** Kept in the app only: shown, counted and exported with the run; nothing is sent. */
    z.object({ mode: z.literal('app') }),
    /** The app signs each result with the active channel's secret and posts it here. */
    z.object({
      mode: z.literal('webhook'),
      url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
    }),
  ],
  { error: 'must be app, emulator or webhook (with a url)' },
);
export type Delivery = z.infer<typeof deliverySchema>;

const startRunInputSchema = z.object({
  productId,
  deviceId,
  /** How the board advertises itself; kept with the run. */
  boardName: z.string().trim().max(64).optional(),
  set: z.discriminatedUnion(
    'source',
    [
      z.object({ source: z.literal('saved') }),
      z.object({ source: z.literal('draft'), draft: scenarioSetInputSchema }),
    ],
    { error: 'must be the saved set or a draft' },
  ),
  /**
   * Stop after this many connections; absent: until stopped (or `durationMs`). A count the set
   * can never reach is refused (scenario/feasibility.ts).
   */
  cycles: z.number().int().min(1, 'must be at least 1').max(100_000).optional(),
  durationMs: z
    .number()
    .int()
    .min(100, 'must be at least 100 ms')
    .max(86_400_000, 'must be at most a day')
    .optional(),
  /** Pair each link as a phone does: LE Secure Connections, bonding, MITM. */
  pairAsPhone: z.boolean().optional(),
  // Nothing leaves the app unless asked: a channel without a webhook URL fails every delivery.
  delivery: deliverySchema.default({ mode: 'app' }),
});

const runEventSchema = z.object({ runId: z.number(), event: timelineEventSchema });

export const scenariosOperations = {
  /** Connects, discovers and disconnects: what the editor lints the set against. */
  'scenarios:readBoard': op(
    z.object({ deviceId }),
    z.object({ deviceId: z.string(), mtu: z.number(), services: z.array(gattServiceSchema) }),
  ),
  /** The new run's record, and the set as it runs (a draft's scenarios get `draft-<n>` ids). */
  'scenarios:start': op(
    startRunInputSchema,
    z.object({ run: scenarioRunSummarySchema, set: runnableSetSchema }),
  ),
  'scenarios:stop': op(z.object({ runId }), scenarioRunSummarySchema),
  'scenarios:listRuns': op(
    runListQuerySchema,
    z.object({ items: z.array(scenarioRunSummarySchema), total: z.number() }),
  ),
  'scenarios:getRun': op(
    z.object({ runId }),
    z.object({
      run: scenarioRunSummarySchema,
      set: runnableSetSchema,
      events: z.array(timelineEventSchema),
    }),
  ),
} as const;

export const scenariosEvents = {
  'scenarios:event': runEventSchema,
  'scenarios:run': scenarioRunSummarySchema,
} as const;
