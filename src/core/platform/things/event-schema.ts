// The scenario result event as a bot receives it (docs/decisions.md, "Scenario result events"),
// and the emulator admin input that sends some. Browser-safe: tests and the UI parse delivered
// bodies with these.
import { z } from 'zod';
import { scenarioResultSchema } from '../../scenario/schema';
import { userIdField } from '../user-id';

/** The delivery kind the emulator keeps these under (`GET /__admin/webhooks?kind=`). */
export const SCENARIO_RESULT_KIND = 'things.scenarioResult';
/** At most this many results per admin call; each is its own envelope. */
export const SCENARIO_RESULTS_PER_CALL = 100;

export const scenarioResultEventSchema = z.object({
  type: z.literal('things'),
  webhookEventId: z.string(),
  timestamp: z.number(),
  mode: z.literal('active'),
  deliveryContext: z.object({ isRedelivery: z.boolean() }),
  source: z.object({ type: z.literal('user'), userId: z.string() }),
  things: z.object({
    deviceId: z.string(),
    type: z.literal('scenarioResult'),
    result: scenarioResultSchema,
  }),
});
export type ScenarioResultEvent = z.infer<typeof scenarioResultEventSchema>;

export const scenarioResultEnvelopeSchema = z.object({
  /** The channel ID of the product's channel. */
  destination: z.string(),
  events: z.array(scenarioResultEventSchema),
});
export type ScenarioResultEnvelope = z.infer<typeof scenarioResultEnvelopeSchema>;

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
