// Keeps the BLE process: started on first use over the adapter list the user chose last (the
// simulated bench, dongles, the system's Bluetooth), restarted on request, and its crashes counted and reported instead of
// taking the app down. Everything BLE in the app goes through `central()`.
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { z } from 'zod';
import { BleHost, forkHost } from '../../ble/host/ble-host';
import { remoteCentral } from '../../ble/host/remote-central';
import type { PairingPrompt } from '../../ble/host/pairing-prompts';
import type {
  HostChannel,
  HostConfig,
  MethodInput,
  MethodOutput,
  SimMethod,
  SimMethods,
} from '../../ble/host/protocol';
import type { BleCentral } from '../../ble/port';
import type {
  BoardLink,
  GattLogEntry,
  LinkRecord,
  LinkUser,
  LoggedLink,
} from '../../ble/link-record';
import type { LinkInfo } from '../../ble/link-parameters';
import { adapterListSchema, type BleStatus } from './bench-schema';
import { confirmsWrites, describeAdapter, parseAdapterSpec } from '../../ble/adapter-spec';
import { NotConfiguredError, SetupError } from '../errors';
import { readJsonFile, writeJsonFile } from '../../json-file';
import { SimBenchSetupFile } from '../../ble/sim/bench-setup';
import { errorMessage } from '../../errors/message';
import { noAdapterAdvice } from '../../ble/adapter-advice';
import { dataFolderBench, traceDirOf } from '../station-files';
import type { TraceSettings } from '../../ble/hci/trace-settings';
import { readTraceSettings, saveTraceSettings } from './trace-settings';

/** What to do about each adapter state; shown next to it. */
const GUIDANCE: Partial<Record<BleStatus['adapterState'], string>> = {
  poweredOff: 'Bluetooth is off. Turn it on in the system settings, then restart the BLE process.',
  unauthorized:
    'DeviceBench may not use Bluetooth. Allow it (macOS: System Settings → Privacy & Security → Bluetooth; Linux: run with the cap_net_raw capability or as a member of the bluetooth group), then restart the BLE process.',
  unsupported:
    'This adapter does not support Bluetooth Low Energy. Plug in a BLE 4.0+ adapter, then restart the BLE process.',
  resetting: 'The adapter is resetting; wait a moment.',
  unknown: 'The adapter has not said what state it is in yet.',
};

/**
 * `ble.json`: the station's adapter list. A file from before adapter specs holds `{mode}`; it
 * reads as the spec that mode meant (docs/decisions.md, "Adapter spec everywhere").
 */
const settingsSchema = z.union([
  z.object({ adapters: adapterListSchema }),
  z
    .object({ mode: z.enum(['simulated', 'hardware']) })
    .transform(({ mode }) => ({ adapters: [legacyAdapter(mode)] })),
]);

/** What the old `mode` setting opened: the kernel's first adapter on Linux, else noble's binding. */
export function legacyAdapter(mode: 'simulated' | 'hardware', platform = process.platform): string {
  if (mode === 'simulated') return 'sim';
  return platform === 'linux' ? 'hci0' : 'native';
}

export type HostLauncher = (config: HostConfig) => HostChannel;

/** The links an adapter change or a restart ended, as they were just before. */
export type AdapterChange = BleStatus & { closed: LinkRecord[] };

/**
 * How the list `from` becomes `to` one adapter at a time: the adapters of `from` that go (by
 * place) and the specs added after the ones that stay, which keep their order.
 */
function adapterDiff(from: readonly string[], to: readonly string[]) {
  const removed: number[] = [];
  let kept = 0;
  from.forEach((spec, index) => {
    if (to[kept] === spec) kept += 1;
    else removed.push(index);
  });
  return { removed, added: to.slice(kept) };
}

/** Links in words, for a question or a refusal: `DB Sensor (d6:3a:41:00:20:01)`. */
function linkNames(links: readonly LinkRecord[]): string {
  return links.map((l) => (l.name ? `${l.name} (${l.address})` : l.address)).join(', ');
}

export class HostSupervisor extends EventEmitter<{
  status: [BleStatus];
  links: [BoardLink[]];
  log: [GattLogEntry];
  link: [{ connectionId: string; link: LinkInfo }];
  prompt: [PairingPrompt];
  /** A bond was kept or forgotten. */
  bonds: [];
}> {
  private host: BleHost | undefined;
  private starting: Promise<BleHost> | undefined;
  private crashes = 0;
  private lastCrash: { at: number; reason: string } | undefined;
  private startError: string | undefined;
  /** The saved set-up as the running simulated bench started with it; changes are added to it. */
  private setup: SimBenchSetupFile | undefined;

  private constructor(
    private readonly dataDir: string,
    private adapters: string[],
    private readonly launch: HostLauncher,
  ) {
    super();
  }

  static async open(dataDir: string, launch: HostLauncher = forkHost): Promise<HostSupervisor> {
    const { value } = await readJsonFile(join(dataDir, 'ble.json'), settingsSchema, {
      adapters: ['sim'],
    });
    return new HostSupervisor(dataDir, value.adapters, launch);
  }

  /** The running host, started now if it is not. */
  async ensure(): Promise<BleHost> {
    if (this.host?.running) return this.host;
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** The radio for one user: the process lists the links it makes as that user's. */
  async central(user: LinkUser): Promise<BleCentral> {
    const host = await this.ensure();
    return remoteCentral(host, user);
  }

  /** Every link the BLE process holds, with its GATT table and log; none while it is stopped. */
  async links(): Promise<LoggedLink[]> {
    const host = this.host;
    return host?.running ? host.call('links', {}) : [];
  }

  /** The pairing prompts the BLE process holds open (none while it is not running). */
  async pairingPrompts(): Promise<PairingPrompt[]> {
    const host = this.host;
    return host?.running ? host.call('pairingPrompts', {}) : [];
  }

  /**
   * The links that changing to `adapters` would drop (those on the adapters it removes), or,
   * without a list, that restarting the BLE process would: every connected one.
   */
  async plan(
    adapters?: readonly string[],
    remove?: string,
  ): Promise<{ restart: boolean; drops: LinkRecord[] }> {
    const host = this.host?.running ? this.host : undefined;
    if (!host) return { restart: adapters === undefined && remove === undefined, drops: [] };
    if (remove !== undefined) {
      this.placeOf(host, remove);
      return { restart: false, drops: await host.call('linksOnAdapter', { id: remove }) };
    }
    if (!adapters)
      return { restart: true, drops: host.links.filter((l) => l.state === 'connected') };
    const { removed } = adapterDiff(this.adapters, adapters);
    const ids = this.idsAt(host, removed);
    const drops = await Promise.all(ids.map((id) => host.call('linksOnAdapter', { id })));
    return { restart: false, drops: drops.flat() };
  }

  /** The open adapters at places `indexes` of the station's list, by their ids. */
  private idsAt(host: BleHost, indexes: readonly number[]): string[] {
    return indexes.map((index) => {
      const id = host.adapters[index]?.id;
      if (id === undefined) throw new SetupError('adapters', `adapter ${index + 1} is not open`);
      return id;
    });
  }

  /** Where the open adapter `id` sits; refused, naming the field, once it is gone. */
  private placeOf(host: BleHost, id: string): number {
    const index = host.adapters.findIndex((a) => a.id === id);
    if (index < 0)
      throw new SetupError(
        'remove',
        'that adapter is no longer on the station (removed in another window?): look again',
      );
    return index;
  }

  /**
   * The simulated bench's controls; a clear failure on hardware. What changes the bench is
   * kept, so the next simulated process starts with it.
   */
  async sim<M extends SimMethod>(
    method: M,
    input: MethodInput<SimMethods, M>,
  ): Promise<MethodOutput<SimMethods, M>> {
    if (!this.adapters.includes('sim'))
      throw new NotConfiguredError(
        'The simulated bench is off: add the adapter "sim" on the BLE bench first.',
      );
    const output = await (await this.ensure()).sim(method, input);
    await this.setup?.record(method, input, output);
    return output;
  }

  /** The station's adapter list as canonical spec text. */
  adapterList(): string[] {
    return [...this.adapters];
  }

  status(): BleStatus {
    const host = this.host;
    const running = host?.running ?? false;
    const adapterState = running ? host!.state() : 'unknown';
    const views = running ? host!.adapters : [];
    const adapters = this.adapters.map((spec, index) => {
      const view = views[index];
      const state = view?.state ?? 'unknown';
      // A working adapter shows what went wrong on it too (a corrupt stream, said once).
      const guidance =
        running && (state !== 'poweredOn' || view?.reason)
          ? [
              view?.reason?.replace(/\.?$/, '.'),
              state === 'noAdapter' ? noAdapterAdvice(view?.reason) : GUIDANCE[state],
            ]
              .filter(Boolean)
              .join(' ') || undefined
          : undefined;
      return {
        id: view?.id,
        spec,
        description: describeAdapter(parseAdapterSpec(spec)),
        state,
        guidance,
        linksInUse: view?.linksInUse ?? 0,
        linkCapacity: view?.linkCapacity ?? 0,
        writesConfirmed: confirmsWrites(parseAdapterSpec(spec)),
        identity: view?.identity,
      };
    });
    const guidance = this.startError
      ? `The BLE process could not start: ${this.startError}`
      : running && adapterState !== 'poweredOn'
        ? adapters
            .map((a) => (a.guidance ? `${a.spec}: ${a.guidance}` : ''))
            .filter(Boolean)
            .join(' ')
        : undefined;
    return {
      adapters,
      adapterState,
      guidance: guidance || undefined,
      host: {
        running,
        pid: running ? host!.pid : undefined,
        crashes: this.crashes,
        lastCrash: this.lastCrash,
      },
    };
  }

  /**
   * Keeps `adapters` as the station's list and opens and closes only the adapters that differ,
   * beside the others, in the running BLE process (docs/decisions.md, "Adapters change without
   * a restart"). Links on an adapter it closes drop: refused unless `dropLinks` says the user
   * agreed, naming them.
   */
  async setAdapters(adapters: string[], dropLinks = false): Promise<AdapterChange> {
    const host = this.host?.running ? this.host : undefined;
    const { drops } = await this.plan(adapters);
    if (drops.length && !dropLinks)
      throw new SetupError(
        'dropLinks',
        `the change closes an adapter with ${drops.length === 1 ? 'a link' : `${drops.length} links`} (${linkNames(drops)}): confirm to drop ${drops.length === 1 ? 'it' : 'them'}`,
      );
    const before = [...this.adapters];
    if (adapters.join(',') === before.join(','))
      return { ...(await this.statusAfterStart()), closed: [] };
    this.adapters = [...adapters];
    await writeJsonFile(join(this.dataDir, 'ble.json'), { adapters });
    if (!host) return { ...(await this.statusAfterStart()), closed: [] };
    const { removed, added } = adapterDiff(before, adapters);
    const closed: LinkRecord[] = [];
    try {
      const ids = this.idsAt(host, removed);
      // Added first: a station never has no adapter, even for a moment.
      for (const spec of added) await host.call('addAdapter', { spec });
      for (const id of ids) closed.push(...(await host.call('removeAdapter', { id })));
      this.setup = adapters.includes('sim')
        ? (this.setup ?? (await SimBenchSetupFile.open(dataFolderBench(this.dataDir).setupFile)))
        : undefined;
    } catch {
      // The process could not follow one step: a new one on the whole list is what the user asked.
      closed.push(...host.links.filter((l) => l.state === 'connected'));
      await this.stop();
      return { ...(await this.statusAfterStart()), closed };
    }
    this.emit('status', this.status());
    return { ...this.status(), closed };
  }

  /**
   * Saves whether the traces keep the link keys; a running BLE process follows at once, one
   * starting reads the saved choice.
   */
  async saveTraceSettings(settings: TraceSettings): Promise<TraceSettings> {
    const saved = await saveTraceSettings(this.dataDir, settings);
    const host = this.host ?? (await this.starting?.catch(() => undefined));
    if (host?.running) await host.call('keepTraceKeys', saved);
    return saved;
  }

  /**
   * Closes the open adapter `id`, whichever place it holds and whatever its spec (two `sim`
   * adapters share one): the adapter the user pointed at, never a look-alike
   * (docs/decisions/ble-and-hci.md, "Adapters addressed by id"). Refused as a change is when it
   * drops links without `dropLinks`, and when it is the station's last adapter.
   */
  async removeAdapter(id: string, dropLinks = false): Promise<AdapterChange> {
    const host = this.host?.running ? this.host : undefined;
    if (!host)
      throw new SetupError(
        'remove',
        'the BLE process is not running: restart it, then remove the adapter',
      );
    this.placeOf(host, id);
    if (this.adapters.length === 1)
      throw new SetupError('remove', 'a station keeps at least one adapter: add another first');
    const drops = await host.call('linksOnAdapter', { id });
    if (drops.length && !dropLinks)
      throw new SetupError(
        'dropLinks',
        `removing the adapter drops ${drops.length === 1 ? 'a link' : `${drops.length} links`} (${linkNames(drops)}): confirm to drop ${drops.length === 1 ? 'it' : 'them'}`,
      );
    // Its place now, after the await: another change may have moved it up.
    const index = this.placeOf(host, id);
    const closed = await host.call('removeAdapter', { id });
    this.adapters.splice(index, 1);
    await writeJsonFile(join(this.dataDir, 'ble.json'), { adapters: this.adapters });
    if (!this.adapters.includes('sim')) this.setup = undefined;
    this.emit('status', this.status());
    return { ...this.status(), closed };
  }

  /** A new BLE process on the same adapters; answers the links the old one held. */
  async restart(): Promise<AdapterChange> {
    const closed = this.host?.running ? this.host.links.filter((l) => l.state === 'connected') : [];
    await this.stop();
    return { ...(await this.statusAfterStart()), closed };
  }

  async stop(): Promise<void> {
    const host = this.host ?? (await this.starting?.catch(() => undefined));
    this.host = undefined;
    await host?.stop();
  }

  /** Starts the host if needed and answers its status; a start failure is in the status. */
  async statusAfterStart(): Promise<BleStatus> {
    await this.ensure().catch(() => undefined);
    return this.status();
  }

  private async start(): Promise<BleHost> {
    const traceDir = traceDirOf(this.dataDir);
    const bench = this.adapters.includes('sim');
    // The bench's files go along either way: a `sim` adapter added later opens it.
    const config: HostConfig = {
      adapters: this.adapters,
      ...dataFolderBench(this.dataDir),
      traceDir,
      traceKeepKeys: (await readTraceSettings(this.dataDir)).keepKeys,
      bondsDir: this.dataDir,
    };
    try {
      const host = await BleHost.start(this.launch(config));
      // The process brought the saved set-up onto its bench, dropping what could not come back.
      this.setup = bench
        ? await SimBenchSetupFile.open(config.setupFile!).catch(async (err: unknown) => {
            await host.stop();
            throw err;
          })
        : undefined;
      this.startError = undefined;
      this.host = host;
      host.onStateChange(() => this.emit('status', this.status()));
      host.onAdaptersChange(() => this.emit('status', this.status()));
      host.onLinks({
        links: (links) => this.emit('links', links),
        log: (entry) => this.emit('log', entry),
        link: (connectionId, link) => this.emit('link', { connectionId, link }),
        prompt: (prompt) => this.emit('prompt', prompt),
        bonds: () => this.emit('bonds'),
      });
      host.onExit((reason, expected) => {
        if (this.host === host) this.host = undefined;
        this.emit('links', []);
        if (!expected) {
          this.crashes += 1;
          this.lastCrash = { at: Date.now(), reason };
        }
        this.emit('status', this.status());
      });
      this.emit('status', this.status());
      return host;
    } catch (err) {
      this.startError = errorMessage(err);
      this.emit('status', this.status());
      throw new NotConfiguredError(`The BLE process could not start: ${this.startError}`);
    }
  }
}
