// Device service console: each operation is one call of the things client on the active
// environment.
import { ThingsClient } from '../../platform/things/client';
import type { thingsOperations } from '../contracts/things';
import type { AppContext, AreaHandlers } from './context';

export function thingsHandlers(ctx: AppContext): AreaHandlers<typeof thingsOperations> {
  const things = async () => new ThingsClient(await ctx.envs.activeTarget(), ctx.options.http);
  return {
    'things:listTrialProducts': async () => (await things()).listTrialProducts(),
    'things:createTrialProduct': async ({ name }) => (await things()).createTrialProduct(name),
    'things:deleteTrialProduct': async ({ productId }) => {
      await (await things()).deleteTrialProduct(productId);
      return { deleted: true as const };
    },
    'things:getScenarioSet': async ({ productId }) => (await things()).getScenarioSet(productId),
    'things:putScenarioSet': async ({ productId, scenarioSet }) =>
      (await things()).putScenarioSet(productId, scenarioSet),
    'things:deleteScenarioSet': async ({ productId }) => {
      await (await things()).deleteScenarioSet(productId);
      return { deleted: true as const };
    },
    'things:getDevice': async ({ deviceId }) => (await things()).getDevice(deviceId),
    'things:getLinks': async ({ productId, userId }) =>
      (await things()).getLinks(productId, userId),
  };
}
