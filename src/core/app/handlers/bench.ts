// The BLE bench behind the app: the BLE process (started on first use), its scans and GATT
// explorer, provisioning and the audit log, opened once and closed together. Each namespace's
// operations live in their own module; failures from the radio, the board files and the
// workflow become contract errors that say which step or field.
import type { auditEvents, auditOperations } from '../contracts/audit';
import type { bleEvents, bleOperations } from '../contracts/ble';
import type { firmwareEvents, firmwareOperations } from '../contracts/firmware';
import type { namesOperations } from '../contracts/names';
import type { provisioningEvents, provisioningOperations } from '../contracts/provisioning';
import type { simEvents, simOperations } from '../contracts/sim';
import { BoardFirmware } from '../../usecases/bench/board-firmware';
import { Explorer } from '../../usecases/bench/explorer';
import { HostSupervisor, type HostLauncher } from '../../usecases/bench/host-supervisor';
import { ScanFeed } from '../../usecases/bench/scan-feed';
import { AuditSettings } from '../../usecases/audit-settings';
import { ProvisioningService } from '../../usecases/provisioning/service';
import { auditHandlers } from './audit';
import { auditExport, type AuditExport } from './audit-export';
import { bleHandlers } from './ble';
import { firmwareHandlers } from './firmware';
import { withBleErrors } from './ble-errors';
import type { AppContext, AreaEvents, AreaHandlers } from './context';
import { namesHandlers } from './names';
import { provisioningHandlers } from './provisioning';
import { simHandlers } from './sim';

type BenchOperations = typeof bleOperations &
  typeof firmwareOperations &
  typeof namesOperations &
  typeof simOperations &
  typeof provisioningOperations &
  typeof auditOperations;
type BenchEvents = typeof bleEvents &
  typeof firmwareEvents &
  typeof simEvents &
  typeof provisioningEvents &
  typeof auditEvents;

export async function startBench(
  ctx: AppContext,
  launch?: HostLauncher,
): Promise<{
  handlers: AreaHandlers<BenchOperations>;
  sources: AreaEvents<BenchEvents>;
  supervisor: HostSupervisor;
  provisioning: ProvisioningService;
  exports: AuditExport;
}> {
  const supervisor = await HostSupervisor.open(ctx.options.dataDir, launch);
  const scans = new ScanFeed(supervisor);
  const explorer = new Explorer(supervisor);
  const provisioning = await ProvisioningService.open({
    dataDir: ctx.options.dataDir,
    audit: await AuditSettings.open(ctx.options.dataDir, ctx.options.credentials),
    supervisor,
    scans,
    things: () => ctx.envs.activeThings(ctx.options.http),
  });
  ctx.onClose(async () => {
    await provisioning.stopAll().catch(() => undefined);
    await scans.stopAll();
    await supervisor.stop();
    await provisioning.close();
  });

  const exports = auditExport(ctx, () => provisioning.store());
  const ble = bleHandlers(ctx, supervisor, scans, explorer);
  const firmware = firmwareHandlers(new BoardFirmware(supervisor));
  const sim = simHandlers(supervisor);
  const provisions = provisioningHandlers(provisioning);
  const audit = auditHandlers(provisioning, exports);

  return {
    supervisor,
    provisioning,
    exports,
    handlers: withBleErrors({
      ...ble.handlers,
      ...firmware.handlers,
      ...namesHandlers(ctx),
      ...sim.handlers,
      ...provisions.handlers,
      ...audit.handlers,
    }),
    sources: {
      ...ble.sources,
      ...firmware.sources,
      ...sim.sources,
      ...provisions.sources,
      ...audit.sources,
    },
  };
}
