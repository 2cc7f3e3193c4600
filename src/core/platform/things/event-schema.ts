// The scenario result event as a bot receives it (docs/decisions.md, "Scenario result events").
// Browser-safe: tests and the UI parse delivered bodies with these.
import { z } from 'zod';
import { scenarioResultSchema } from './scenario-result';

/** The delivery kind the emulator keeps these under (`GET /__admin/webhooks?kind=`). */
export const SCENARIO_RESULT_KIND = 'things.scenarioResult';

const scenarioResultEventSchema = z.object({
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

export const scenarioResultEnvelopeSchema = z.object({
  /** The channel ID of the product's channel. */
  destination: z.string(),
  events: z.array(scenarioResultEventSchema),
});
export type ScenarioResultEnvelope = z.infer<typeof scenarioResultEnvelopeSchema>;
