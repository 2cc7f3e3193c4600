// Everything a command works with, opened only when the command needs it and in the order that
// keeps bad input from writing anything: the station's adapters (the simulated bench among
// them), the platform environment, the audit store and the dry-run log, all in the app's data
// folder so the app sees what the command did and the other way round. The bench's use cases
// open each (src/core/usecases/bench/); the session maps what they refuse onto the flag to change.
import type { ScenarioRunLog } from '../core/audit/scenario-runs';
import type { AuditStore } from '../core/audit/store';
import type { AdapterSpec } from '../core/ble/adapter-spec';
import type { MultiCentral } from '../core/ble/radio/multi-adapter-central';
import type { TrialProduct } from '../core/platform/things/schema';
import {
  adapterListText,
  NoUsableAdapterError,
  openStationAdapters,
  type OpenStation,
} from '../core/usecases/bench/station';
import { openStationAudit } from '../core/usecases/bench/station-audit';
import {
  openPlatform,
  type OpenPlatform,
  type Platform,
} from '../core/usecases/bench/station-platform';
import { SetupError } from '../core/usecases/errors';
import { findTrialProduct } from '../core/usecases/provisioning-setup';
import { EnvironmentError, UsageError } from './exit';
import { pairingPolicy, type PairingFlags } from './pairing-flags';

export interface SessionOptions {
  dataDir: string;
  /** The station's adapters, opened together (docs/decisions.md, "Several adapters at once"). */
  adapters: AdapterSpec[];
  /** Board files that replace the default simulated bench and the app's set-up of it. */
  simBoards?: string[];
  /** An environment from Settings, by name. */
  env?: string;
  /** Recorded on audit records and dry runs; the host name when absent. */
  station?: string;
  /**
   * What goes wrong under a command that carries on: an adapter's corrupt stream or reset, the
   * shared audit log unreachable and back; each said once.
   */
  onNotice?: (text: string) => void;
  /** How the station pairs; the Security Manager's unattended default without. */
  pairing?: PairingFlags;
}

/** What a use case refuses about the session's own set-up, named by the flag or variable. */
const SETUP_FIELDS: Record<string, string> = {
  env: '--env',
  audit: 'DEVICEBENCH_AUDIT_URL',
};

export class Session {
  private stationOpen: Promise<OpenStation> | undefined;
  private platformOpen: Promise<OpenPlatform> | undefined;
  private store: Promise<AuditStore> | undefined;

  constructor(
    readonly options: SessionOptions,
    private readonly environ: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The central, opened on first use, as the app's BLE process opens it. Simulated: the bench as
   * the app left it (its boards, faults and `sim-bench-state.json`), so a board provisioned here
   * is provisioned in the app too; or the boards of `--sim-boards` alone.
   */
  async central(): Promise<MultiCentral> {
    this.stationOpen ??= this.openStation();
    return (await this.stationOpen).central;
  }

  /** The adapter list as one text, as the audit log keeps it: `sim`, `sim,hci0`. */
  adapterList(): string {
    return adapterListText(this.options.adapters);
  }

  private async openStation(): Promise<OpenStation> {
    const { pairing } = this.options;
    try {
      return await openStationAdapters({
        dataDir: this.options.dataDir,
        adapters: this.options.adapters,
        simBoards: this.options.simBoards,
        onNotice: this.options.onNotice,
        pairing: pairing && {
          policy: pairingPolicy(pairing, (line) => process.stderr.write(`${line}\n`)),
          bond: pairing.bond,
        },
      });
    } catch (err) {
      if (err instanceof NoUsableAdapterError)
        throw new EnvironmentError(
          `no usable Bluetooth adapter (${err.states}); use --adapter sim to run without one`,
        );
      throw err;
    }
  }

  /** `--env`, else the DEVICEBENCH_* variables, else the embedded emulator (as the app starts). */
  async platform(): Promise<Platform> {
    this.platformOpen ??= named(() =>
      openPlatform({ dataDir: this.options.dataDir, env: this.options.env, environ: this.environ }),
    );
    return (await this.platformOpen).platform;
  }

  /** A trial product of the platform; an unknown id is bad input on `--product`. */
  async product(productId: string): Promise<TrialProduct> {
    const platform = await this.platform();
    try {
      return await findTrialProduct(platform.things, productId, platform.name);
    } catch (err) {
      if (err instanceof SetupError) throw new UsageError('--product', err.detail);
      throw err;
    }
  }

  /**
   * The app's audit log: `audit.sqlite` in the data folder, or the shared PostgreSQL log that the
   * app's settings or `DEVICEBENCH_AUDIT_URL` name (docs/decisions.md, "Production line").
   */
  audit(): Promise<AuditStore> {
    this.store ??= named(() =>
      openStationAudit({
        dataDir: this.options.dataDir,
        station: this.options.station,
        onReachability: (words) => this.options.onNotice?.(words),
      }),
    );
    return this.store;
  }

  /** Dry runs, in the same log. */
  async scenarioLog(): Promise<ScenarioRunLog> {
    return (await this.audit()).scenarioRuns();
  }

  async close(): Promise<void> {
    const station = await this.stationOpen?.catch(() => undefined);
    await station?.close();
    const platform = await this.platformOpen?.catch(() => undefined);
    await platform?.close();
    const store = await this.store?.catch(() => undefined);
    await store?.close().catch(() => undefined);
  }
}

/** `open`, with a refusal of the session's own set-up named by its flag or variable. */
async function named<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    if (err instanceof SetupError)
      throw new UsageError(SETUP_FIELDS[err.field] ?? err.field, err.detail);
    throw err;
  }
}
