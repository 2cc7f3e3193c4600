// The audit log through the app: searching the records, giving back a failed record's PSDI, and
// the CSV export with its progress.
import type { auditEvents, auditOperations } from '../contracts/audit';
import type { ProvisioningService } from '../../usecases/provisioning/service';
import type { AuditExport } from './audit-export';
import type { AreaEvents, AreaHandlers } from './context';

export function auditHandlers(
  provisioning: ProvisioningService,
  exports: AuditExport,
): {
  handlers: AreaHandlers<typeof auditOperations>;
  sources: AreaEvents<typeof auditEvents>;
} {
  return {
    handlers: {
      'audit:search': async (query) => (await provisioning.store()).search(query),
      'audit:releasePsdi': ({ recordId, reason }) => provisioning.releasePsdi(recordId, reason),
      'audit:exportCsv': (input) => exports.saveCsv(input),
    },
    sources: {
      'audit:exportProgress': (handler) => exports.onProgress(handler),
    },
  };
}
