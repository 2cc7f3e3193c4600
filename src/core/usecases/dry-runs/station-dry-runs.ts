// The station's dry runs, as the app's front ends ask for them: the runs on the station's radio
// kept in the audit store's run log, the board's table to lint a set against, and where each
// run's results go (kept in the app, the embedded emulator's webhook log, or a bot's webhook).
import type { z } from 'zod';
import type { AuditStore } from '../../audit/store';
import type { runListQuerySchema } from '../../scenario/schema';
import type { EmulatorAdminClient } from '../../emulator/admin-client';
import type { ServiceInfo } from '../../ble/port';
import type { HttpOptions } from '../../platform/http';
import type { TrialProduct } from '../../platform/things/schema';
import type { Environments } from '../environments';
import { SetupError } from '../errors';
import { readBoard } from './board-read';
import type { DeliverResult, DryRunStart } from './dry-run';
import { DryRunService, type DryRunBench, type StartRunInput } from './dry-run-service';
import { deliverToEmulator, deliverToWebhook } from './result-delivery';

const READ_BOARD_TIMEOUT_MS = 10_000;

/** Where a run's results go: kept in the app, the emulator's webhook log, or a bot's URL. */
export type ResultDestination =
  { mode: 'app' } | { mode: 'emulator' } | { mode: 'webhook'; url: string };

export interface StationDryRunsOptions {
  envs: Environments;
  /** How the platform clients retry. */
  http?: HttpOptions;
  bench: DryRunBench;
  /** The audit store: the run log lives beside the records, so it follows the store to a line. */
  store: () => Promise<AuditStore>;
  /** The embedded emulator's admin API; throws when it is not running. */
  emulatorAdmin: () => EmulatorAdminClient;
  /** The product's and the board's names for the board's characteristics, for its errors. */
  names: (productId: string, deviceId: string) => Promise<DryRunStart['names']>;
  /** The board's GATT table with the names its board file gives it, if it has one. */
  withBoardNames: (deviceId: string, services: ServiceInfo[]) => Promise<ServiceInfo[]>;
}

export class StationDryRuns {
  readonly runs: DryRunService;

  constructor(private readonly options: StationDryRunsOptions) {
    const { envs, http, bench, store, names } = options;
    this.runs = new DryRunService(
      async () => (await store()).scenarioRuns(),
      bench,
      () => envs.activeThings(http),
      names,
    );
  }

  /** Connects, discovers and disconnects: what the editor lints a set against. */
  async readBoard(deviceId: string) {
    const central = await this.options.bench.central('dry-run');
    const table = await readBoard(central, deviceId, READ_BOARD_TIMEOUT_MS);
    return {
      deviceId,
      ...table,
      services: await this.options.withBoardNames(deviceId, table.services),
    };
  }

  start(input: StartRunInput, destination: ResultDestination) {
    return this.runs.start(input, (product) => this.delivery(destination, input.deviceId, product));
  }

  async list(query: z.input<typeof runListQuerySchema>) {
    return (await this.runs.log()).list(query);
  }

  private async delivery(
    destination: ResultDestination,
    deviceId: string,
    product: TrialProduct,
  ): Promise<DeliverResult | undefined> {
    if (destination.mode === 'app') return undefined;
    // The PSDI the audit log says this board verified with for the product, if any.
    const psdi = await (await this.options.store()).verifiedPsdi(product.id, deviceId);
    const channel = await this.options.envs.activeChannel();
    if (destination.mode === 'webhook')
      return deliverToWebhook(destination.url, channel.channelSecret, product, psdi);
    // The emulator knows only its own products: a real platform's would be refused per result.
    if (channel.kind !== 'emulator')
      throw new SetupError(
        'delivery',
        "the emulator's webhook log takes results of Local emulator products only: send them to a bot webhook URL, or keep them in the app",
      );
    return deliverToEmulator(this.options.emulatorAdmin(), product, psdi);
  }
}
