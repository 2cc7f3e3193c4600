// The line's operations over the provisioning service's audit log: settings, the one-time copy
// of local records, and what every station on the shared log is doing.
import { hostname } from 'node:os';
import type { lineOperations } from '../contracts/line';
import type { ProvisioningService } from '../../usecases/provisioning/service';
import type { AreaHandlers } from './context';

export function lineHandlers(
  provisioning: ProvisioningService,
): AreaHandlers<typeof lineOperations> {
  const view = async () => {
    const saved = provisioning.audit.saved;
    return {
      mode: saved.mode,
      url: saved.url,
      passwordSet: await provisioning.audit.passwordSet(),
      station: saved.station,
      defaultStation: hostname(),
      active: await provisioning.auditState(),
    };
  };
  return {
    'line:getSettings': view,
    'line:saveSettings': async (input) => {
      await provisioning.switchAudit(input);
      return view();
    },
    'line:copyLocalToShared': () => provisioning.copyLocalToShared(),
    'line:getStatus': async () => {
      const store = await provisioning.store();
      return {
        ...(await store.lineStatus()),
        engine: store.engine,
        location: store.location,
        station: store.station,
      };
    },
  };
}
