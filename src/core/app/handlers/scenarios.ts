// Scenario dry runs on the BLE bench's central, kept in the audit log. Results stay in the app
// by default, or go to the embedded emulator's webhook log or straight to a bot's webhook URL.
import type { AuditStore } from '../../audit/store';
import { ThingsClient } from '../../platform/things/client';
import type { TrialProduct } from '../../platform/things/schema';
import type { Delivery, scenariosEvents, scenariosOperations } from '../contracts/scenarios';
import { boardNames, withBoardNames } from '../ble/board-names';
import { NameStore } from '../ble/name-store';
import type { HostSupervisor } from '../ble/host-supervisor';
import { DryRunService } from '../../usecases/dry-runs/dry-run-service';
import { deliverToEmulator, deliverToWebhook } from '../../usecases/dry-runs/result-delivery';
import type { DeliverResult } from '../../usecases/dry-runs/dry-run';
import { AppFailure } from '../errors';
import { withBleErrors } from './ble-errors';
import { emulatorAdmin, type AppContext, type AreaEvents, type AreaHandlers } from './context';

const READ_BOARD_TIMEOUT_MS = 10_000;

export function startScenarios(
  ctx: AppContext,
  supervisor: HostSupervisor,
  provisioning: () => Promise<AuditStore>,
): {
  handlers: AreaHandlers<typeof scenariosOperations>;
  sources: AreaEvents<typeof scenariosEvents>;
} {
  // The run log lives beside the records, so it follows the store to a line's shared log.
  const log = async () => (await provisioning()).scenarioRuns();
  const nameStore = new NameStore(ctx.options.dataDir);
  const service = new DryRunService(
    log,
    supervisor,
    async () => new ThingsClient(await ctx.envs.activeTarget(), ctx.options.http),
    async (productId, deviceId) => ({
      user: (await nameStore.get(productId)).names,
      board: await boardNames(supervisor, deviceId),
    }),
  );
  ctx.onClose(async () => {
    await service.stopAll().catch(() => undefined);
  });

  /** The PSDI the audit log says this board verified with for the product, if any. */
  const psdiOf = async (productId: string, deviceId: string) =>
    (await provisioning()).verifiedPsdi(productId, deviceId);

  const delivery =
    (mode: Delivery, deviceId: string) =>
    async (product: TrialProduct): Promise<DeliverResult | undefined> => {
      if (mode.mode === 'app') return undefined;
      const psdi = await psdiOf(product.id, deviceId);
      const channel = await ctx.envs.activeChannel();
      if (mode.mode === 'webhook')
        return deliverToWebhook(mode.url, channel.channelSecret, product, psdi);
      // The emulator knows only its own products: a real platform's would be refused per result.
      if (channel.kind !== 'emulator')
        throw AppFailure.field(
          'delivery',
          "the emulator's webhook log takes results of Local emulator products only: send them to a bot webhook URL, or keep them in the app",
        );
      return deliverToEmulator(emulatorAdmin(ctx), product, psdi);
    };

  return {
    handlers: withBleErrors({
      'scenarios:readBoard': async ({ deviceId }) => {
        const central = await supervisor.central('dry-run');
        const connection = await central.connect(deviceId, { timeoutMs: READ_BOARD_TIMEOUT_MS });
        try {
          const services = await withBoardNames(supervisor, deviceId, await connection.discover());
          return { deviceId, mtu: connection.mtu, services };
        } finally {
          await connection.disconnect().catch(() => undefined);
        }
      },
      'scenarios:start': async ({ delivery: mode, ...input }) =>
        service.start(input, await delivery(mode, input.deviceId)),
      'scenarios:stop': ({ runId }) => service.stop(runId),
      'scenarios:listRuns': async (query) => (await log()).list(query),
      'scenarios:getRun': async ({ runId }) => service.read(runId),
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
