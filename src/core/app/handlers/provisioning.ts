// Provisioning through the app: profiles, a product's plan, one board or a batch, and the
// records a crash left unfinished, over the provisioning service.
import type { provisioningEvents, provisioningOperations } from '../contracts/provisioning';
import type { ProvisioningService } from '../../usecases/provisioning/service';
import type { AreaEvents, AreaHandlers } from './context';
import { listen } from './listen';

export function provisioningHandlers(provisioning: ProvisioningService): {
  handlers: AreaHandlers<typeof provisioningOperations>;
  sources: AreaEvents<typeof provisioningEvents>;
} {
  return {
    handlers: {
      'provisioning:listProfiles': async () =>
        provisioning.profiles().map(({ profile, source }) => profileView(profile, source)),
      'provisioning:loadProfile': async ({ fileName, text }) => {
        const { profile, source } = await provisioning.loadProfile(fileName, text);
        return profileView(profile, source);
      },
      'provisioning:getPlan': ({ productId }) => provisioning.plan(productId),
      'provisioning:savePlan': (plan) => provisioning.savePlan(plan),
      'provisioning:nextPsdi': (plan) => provisioning.nextPsdi(plan),
      'provisioning:provisionOne': ({ productId, deviceId }) =>
        provisioning.provisionOne(productId, deviceId),
      'provisioning:startBatch': (input) => provisioning.startBatch(input),
      'provisioning:stopBatch': ({ runId }) => provisioning.stopBatch(runId),
      'provisioning:listBatches': async () => provisioning.listBatches(),
      'provisioning:listUnfinished': async () => provisioning.listUnfinished(),
      'provisioning:reconcile': async ({ recordId, action }) => {
        const outcome = await provisioning.reconcile(recordId, action);
        return {
          ...outcome.record,
          reconciled: { action: outcome.action, message: outcome.message },
        };
      },
    },
    sources: {
      'provisioning:progress': (handler) => listen(provisioning, 'progress', handler),
      'provisioning:batch': (handler) => listen(provisioning, 'batch', handler),
    },
  };
}

function profileView(
  profile: {
    id: string;
    name: string;
    description?: string;
    service: string;
    psdi: { source: 'tool' | 'device' };
  },
  source: string,
) {
  return {
    id: profile.id,
    name: profile.name,
    description: profile.description,
    source,
    psdiSource: profile.psdi.source,
    service: profile.service,
  };
}
