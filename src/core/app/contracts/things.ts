// Device service console (docs/platform-api.md#things).
import { z } from 'zod';
import {
  createTrialProductSchema,
  deviceSchema,
  linksSchema,
  scenarioSetInputSchema,
  scenarioSetSchema,
  trialProductSchema,
} from '../../platform/things/schema';
import { none, op } from './op';
import { requiredId, requiredId as productId } from '../../bounds';
import { userId } from './fields';

export const thingsOperations = {
  'things:listTrialProducts': op(none, z.array(trialProductSchema)),
  'things:createTrialProduct': op(createTrialProductSchema, trialProductSchema),
  'things:deleteTrialProduct': op(z.object({ productId }), z.object({ deleted: z.literal(true) })),
  'things:getScenarioSet': op(z.object({ productId }), scenarioSetSchema),
  'things:putScenarioSet': op(
    z.object({ productId, scenarioSet: scenarioSetInputSchema }),
    scenarioSetSchema,
  ),
  'things:deleteScenarioSet': op(z.object({ productId }), z.object({ deleted: z.literal(true) })),
  'things:getDevice': op(z.object({ deviceId: requiredId }), deviceSchema),
  'things:getLinks': op(z.object({ productId, userId }), linksSchema),
} as const;
