// Everything a command works with, opened only when the command needs it and in the order that
// keeps bad input from writing anything: the BLE central (in this process: the station's
// adapters, the simulated bench among them), the platform environment, the audit store and the dry-run log,
// all in the app's data folder so the app sees what the command did and the other way round.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { dataFolderBench, traceDirOf } from '../core/usecases/station-files';
import type { Direction } from '../core/ble/hci/btsnoop';
import { HCI_CMD } from '../core/ble/hci/codes';
import { Environments } from '../core/usecases/environments';
import { AuditSettings } from '../core/usecases/audit-settings';
import { openAuditStore } from '../core/audit/open-store';
import type { ScenarioRunLog } from '../core/audit/scenario-runs';
import type { AuditStore } from '../core/audit/store';
import type { MultiCentral } from '../core/ble/radio/multi-adapter-central';
import { formatAdapterSpec, type AdapterSpec } from '../core/ble/adapter-spec';
import { adapterTraceDir } from '../core/ble/radio/multi-adapter-central';
import type { SimulatedBench } from '../core/ble/sim/bench';
import { errorMessage } from '../core/errors/message';
import type { BondStore } from '../core/ble/security-manager/bond-store';
import { pairingPolicy, type PairingFlags } from './pairing-flags';
import { EmulatorAdminClient } from '../core/emulator/admin-client';
import type { RunningEmulator } from '../core/emulator/server';
import { ThingsClient } from '../core/platform/things/client';
import { findTrialProduct } from '../core/usecases/provisioning-setup';
import { SetupError } from '../core/usecases/errors';
import type { TrialProduct } from '../core/platform/things/schema';
import { EnvironmentError, UsageError } from './exit';

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

/** The platform a command talks to, and who it is there. */
export interface Platform {
  name: string;
  kind: 'emulator' | 'custom';
  things: ThingsClient;
  channelId: string;
  channelSecret?: string;
  /** The embedded emulator's admin API, when that is the platform. */
  admin?: EmulatorAdminClient;
}

/**
 * The CI variables (docs/decisions.md, "Command line"); all or none (the secret only signs
 * `--deliver` results).
 */
const ciEnvironmentSchema = z.object({
  DEVICEBENCH_BASE_URL: z.url({
    protocol: /^https?$/,
    error: 'must be the platform base URL (http or https)',
  }),
  DEVICEBENCH_CHANNEL_ID: z.string().regex(/^\d+$/, 'must be the channel ID (digits)'),
  DEVICEBENCH_CHANNEL_TOKEN: z.string().min(1, 'must be the channel access token'),
  DEVICEBENCH_CHANNEL_SECRET: z.string().min(1).optional(),
});
const CI_VARIABLES = Object.keys(ciEnvironmentSchema.shape);

export class Session {
  private centralOpen: Promise<MultiCentral> | undefined;
  private bench: SimulatedBench | undefined;
  private platformOpen: Promise<Platform> | undefined;
  private emulator: RunningEmulator | undefined;
  private store: Promise<AuditStore> | undefined;
  private readonly traceWriters: { close(): void }[] = [];

  constructor(
    readonly options: SessionOptions,
    private readonly environ: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The central, opened on first use, as the app's BLE process opens it. Simulated: the bench as
   * the app left it (its boards, faults and `sim-bench-state.json`), so a board provisioned here
   * is provisioned in the app too; or the boards of `--sim-boards` alone.
   */
  central(): Promise<MultiCentral> {
    this.centralOpen ??= this.openCentral();
    return this.centralOpen;
  }

  /** The adapter list as one text, as the audit log keeps it: `sim`, `sim,hci0`. */
  adapterList(): string {
    return this.options.adapters.map(formatAdapterSpec).join(',');
  }

  // noble, the emulator's HTTP server and keytar load only when a command gets that far, so a
  // bad flag is answered at once.
  private async openCentral(): Promise<MultiCentral> {
    const { openStation } = await import('../core/ble/radio/open-station');
    const { TraceWriter } = await import('../core/ble/hci/trace-store');
    const { AdapterIdentityFile } = await import('../core/ble/adapter-identity-store');
    const bench = dataFolderBench(this.options.dataDir);
    const simBoards = this.options.simBoards;
    const pairing = this.options.pairing;
    const station = await openStation(this.options.adapters, {
      security: pairing && pairingPolicy(pairing, (line) => process.stderr.write(`${line}\n`)),
      bonds: pairing?.bond ? await this.openBonds() : undefined,
      // The app's adapters and the command's keep one identity each (an adapter without an address).
      identities: await AdapterIdentityFile.open(this.options.dataDir).catch(() => undefined),
      bench: simBoards ? { ...bench, boardFiles: simBoards, setupFile: undefined } : bench,
      // Like the app's BLE process, every session writes each adapter's HCI traffic to the data
      // folder's traces, for `devicebench trace` and the app's "HCI trace" — once it scans or
      // connects, so a command refused before it used the radio leaves the data folder as it was.
      trace: (index, spec) => {
        let writer: InstanceType<typeof TraceWriter> | undefined;
        const before: [Direction, Uint8Array][] = [];
        return (direction: Direction, packet: Uint8Array) => {
          if (writer) return writer.record(direction, packet);
          before.push([direction, Uint8Array.from(packet)]);
          if (!usesRadio(direction, packet)) return;
          this.ensureDataDir();
          const dir = adapterTraceDir(
            traceDirOf(this.options.dataDir),
            index,
            formatAdapterSpec(spec),
          );
          const opened = new TraceWriter(dir);
          writer = opened;
          this.traceWriters.push(opened);
          for (const [d, p] of before.splice(0)) opened.record(d, p);
        };
      },
    });
    const central = station.central;
    this.bench = station.bench;
    const said = new Set<string>();
    central.onAdaptersChange(() => {
      for (const view of central.adapters()) {
        if (view.state === 'noAdapter' || !view.reason || said.has(view.reason)) continue;
        said.add(view.reason);
        this.options.onNotice?.(`adapter ${view.spec}: ${view.reason}`);
      }
    });
    if (this.bench) return central;
    const { settledState } = await import('../core/ble/host/host-process');
    const state = await settledState(central);
    if (state !== 'poweredOn') {
      const why = central
        .adapters()
        .map((a) => `${a.spec}: ${a.state}${a.reason ? ` (${a.reason})` : ''}`)
        .join('; ');
      await central.close().catch(() => undefined);
      throw new EnvironmentError(
        `no usable Bluetooth adapter (${why}); use --adapter sim to run without one`,
      );
    }
    return central;
  }

  /**
   * Checks the CI variables before anything is opened: partly set is bad input, named.
   * Returns them when set.
   */
  ciEnvironment(): z.output<typeof ciEnvironmentSchema> | undefined {
    if (!CI_VARIABLES.some((name) => this.environ[name] !== undefined)) return undefined;
    const parsed = ciEnvironmentSchema.safeParse(this.environ);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new UsageError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'invalid');
  }

  /** `--env`, else the DEVICEBENCH_* variables, else the embedded emulator (as the app starts). */
  platform(): Promise<Platform> {
    this.platformOpen ??= this.openPlatform();
    return this.platformOpen;
  }

  private async openPlatform(): Promise<Platform> {
    const ci = this.ciEnvironment();
    if (this.options.env !== undefined && this.options.env !== 'Local emulator')
      return this.settingsEnvironment(this.options.env);
    if (ci && this.options.env === undefined)
      return {
        name: ci.DEVICEBENCH_BASE_URL,
        kind: 'custom',
        things: new ThingsClient({
          baseUrl: ci.DEVICEBENCH_BASE_URL,
          channelAccessToken: ci.DEVICEBENCH_CHANNEL_TOKEN,
        }),
        channelId: ci.DEVICEBENCH_CHANNEL_ID,
        channelSecret: ci.DEVICEBENCH_CHANNEL_SECRET,
      };
    return this.embeddedEmulator();
  }

  private async embeddedEmulator(): Promise<Platform> {
    this.ensureDataDir();
    const { startEmulator } = await import('../core/emulator/server');
    try {
      this.emulator = await startEmulator({
        dataFile: join(this.options.dataDir, 'emulator.sqlite'),
        port: 0,
      });
    } catch (err) {
      throw new EnvironmentError(`the embedded emulator did not start: ${errorMessage(err)}`);
    }
    const channel = this.emulator.channels()[0];
    if (!channel) throw new EnvironmentError('the embedded emulator has no channel');
    return {
      name: 'Local emulator',
      kind: 'emulator',
      things: new ThingsClient({
        baseUrl: this.emulator.url,
        channelAccessToken: channel.channelAccessToken,
      }),
      channelId: channel.channelId,
      channelSecret: channel.channelSecret,
      admin: new EmulatorAdminClient(this.emulator.adminUrl),
    };
  }

  private async settingsEnvironment(name: string): Promise<Platform> {
    const { openKeychain } = await import('../core/secrets/keychain');
    const keychain = await openKeychain();
    const envs = await Environments.open(this.options.dataDir, keychain.store, () => undefined);
    const { environments } = await envs.list();
    const found = environments.find(
      (e) => e.kind === 'custom' && (e.name === name || e.id === name),
    );
    if (!found)
      throw new UsageError(
        '--env',
        `no environment "${name}" in Settings (there: ${environments.map((e) => `"${e.name}"`).join(', ')})`,
      );
    const channel = await envs.channel(found.id);
    if (!channel.channelAccessToken)
      throw new EnvironmentError(
        keychain.status.kind === 'memory'
          ? `environment "${name}": no keychain to read its token from (${keychain.status.reason}); in CI set ${CI_VARIABLES.join(', ')} instead`
          : `environment "${name}" has no channel access token in the keychain: enter it in Settings`,
      );
    return {
      name,
      kind: 'custom',
      things: new ThingsClient({
        baseUrl: channel.baseUrl,
        channelAccessToken: channel.channelAccessToken,
      }),
      channelId: channel.channelId,
      channelSecret: channel.channelSecret,
    };
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
    this.store ??= this.openAudit();
    return this.store;
  }

  /** Dry runs, in the same log. */
  async scenarioLog(): Promise<ScenarioRunLog> {
    return (await this.audit()).scenarioRuns();
  }

  private async openAudit(): Promise<AuditStore> {
    this.ensureDataDir();
    const { openKeychain } = await import('../core/secrets/keychain');
    let resolved;
    try {
      const keychain = await openKeychain();
      resolved = await (await AuditSettings.open(this.options.dataDir, keychain.store)).resolve();
    } catch (err) {
      throw new UsageError('DEVICEBENCH_AUDIT_URL', (err as Error).message);
    }
    try {
      return await openAuditStore({
        location: resolved.location,
        station: this.options.station ?? resolved.station,
        // A line station says when the shared log stops answering and when it is back.
        onReachability: (words) => this.options.onNotice?.(words),
      });
    } catch (err) {
      throw new EnvironmentError(`the audit log cannot be opened: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    const central = await this.centralOpen?.catch(() => undefined);
    await central?.close().catch(() => undefined);
    this.bench?.close();
    await this.emulator?.close().catch(() => undefined);
    const store = await this.store?.catch(() => undefined);
    await store?.close().catch(() => undefined);
    for (const writer of this.traceWriters) writer.close();
  }

  /** The data folder's bonds, as the app's BLE process keeps them; in memory when they cannot open. */
  private async openBonds(): Promise<BondStore> {
    const { openKeychain } = await import('../core/secrets/keychain');
    const { BondStore } = await import('../core/ble/security-manager/bond-store');
    const keychain = await openKeychain();
    try {
      return await BondStore.open(this.options.dataDir, keychain.store, keychain.status);
    } catch (err) {
      return BondStore.inMemory(errorMessage(err));
    }
  }

  private ensureDataDir(): void {
    mkdirSync(this.options.dataDir, { recursive: true });
  }
}

/** LE Set Scan Enable (on) or LE Create Connection from the host: the session uses the radio. */
function usesRadio(direction: Direction, p: Uint8Array): boolean {
  if (direction !== 'sent' || p[0] !== 0x01) return false;
  const opcode = (p[1] ?? 0) | ((p[2] ?? 0) << 8);
  return (
    (opcode === HCI_CMD.leSetScanEnable && p[4] === 0x01) || opcode === HCI_CMD.leCreateConnection
  );
}
