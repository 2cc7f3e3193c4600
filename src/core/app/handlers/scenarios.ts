// Scenario dry runs on the BLE bench's central, kept in the audit log. Results stay in the app
// by default, or go to the embedded emulator's webhook log or straight to a bot's webhook URL.
import type { AuditStore } from '../../audit/store';
import type { scenariosEvents, scenariosOperations } from '../contracts/scenarios';
import { boardNames, withBoardNames } from '../../usecases/bench/board-names';
import { NameStore } from '../../usecases/bench/name-store';
import type { HostSupervisor } from '../../usecases/bench/host-supervisor';
import { StationDryRuns } from '../../usecases/dry-runs/station-dry-runs';
import { withBleErrors } from './ble-errors';
import { type AppContext, type AreaEvents, type AreaHandlers } from './context';
import { consoleSetup } from './console-context';
import { emulatorAdmin } from '../../usecases/consoles/console-setup';

export function startScenarios(
  ctx: AppContext,
  supervisor: HostSupervisor,
  provisioning: () => Promise<AuditStore>,
): {
  handlers: AreaHandlers<typeof scenariosOperations>;
  sources: AreaEvents<typeof scenariosEvents>;
} {
  const nameStore = new NameStore(ctx.options.dataDir);
  const dryRuns = new StationDryRuns({
    envs: ctx.envs,
    http: ctx.options.http,
    bench: supervisor,
    store: provisioning,
    emulatorAdmin: () => emulatorAdmin(consoleSetup(ctx)),
    names: async (productId, deviceId) => ({
      user: (await nameStore.get(productId)).names,
      board: await boardNames(supervisor, deviceId),
    }),
    withBoardNames: (deviceId, services) => withBoardNames(supervisor, deviceId, services),
  });
  const service = dryRuns.runs;
  ctx.onClose(async () => {
    await service.stopAll().catch(() => undefined);
  });

  return {
    handlers: withBleErrors({
      'scenarios:readBoard': ({ deviceId }) => dryRuns.readBoard(deviceId),
      'scenarios:start': ({ delivery, ...input }) => dryRuns.start(input, delivery),
      'scenarios:stop': ({ runId }) => service.stop(runId),
      'scenarios:listRuns': (query) => dryRuns.list(query),
      'scenarios:getRun': ({ runId }) => service.read(runId),
    }),
    sources: {
      'scenarios:event': (handler) => {
        service.on('event', handler);
        return () => service.off('event', handler);
      },
      'scenarios:run': (handler) => {
        service.on('run', handler);
        return () => service.off('run', handler);
      },
    },
  };
}
