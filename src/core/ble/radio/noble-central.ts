// BleCentral over a noble instance: multiplexes the app's scans onto noble's one, waits for the
// adapter to settle, and opens links as NobleConnections (noble-connection.ts). hci-central.ts
// makes one over an HCI socket (sim-central.ts: the simulated bench's), native-central.ts over
// noble's OS binding.
import type { Peripheral } from '@abandonware/noble';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import {
  BleError,
  NOBLE_ADAPTER_STATES,
  expandUuid,
  normalizeUuid,
  reportedUuid,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type BleStep,
  type ConnectOptions,
  type ScanFilter,
  type ScanHandle,
} from '../port';
import type { AdapterIdentity } from '../adapter-identity';
import { ADV_REPORT_TYPE } from '../hci/codes';
import type {
  AdvertisingReport,
  AttErrorReport,
  LinkReport,
  SecurityFailure,
} from '../hci/tap-reports';
import { NobleConnection } from './noble-connection';
import { TimeoutError, withBleTimeout, type LinkControl } from './link-control';
import { realSchedule, type Schedule } from '../../async/timeout';
import { errorMessage } from '../../errors/message';
import { meetsMinRssi } from '../rssi';

/**
 * What the HCI tap under noble reports (hci/tap.ts): noble's own stack answers an ATT error
 * with an empty read or with silence, and says nothing when pairing fails.
 */
interface HciReports {
  on(event: 'attError', listener: (report: AttErrorReport) => void): unknown;
  on(event: 'securityFailed', listener: (failure: SecurityFailure) => void): unknown;
  on(event: 'advertisingReport', listener: (report: AdvertisingReport) => void): unknown;
  on(event: 'linkChanged', listener: (report: LinkReport) => void): unknown;
  off(event: 'attError', listener: (report: AttErrorReport) => void): unknown;
  off(event: 'securityFailed', listener: (failure: SecurityFailure) => void): unknown;
  off(event: 'advertisingReport', listener: (report: AdvertisingReport) => void): unknown;
  off(event: 'linkChanged', listener: (report: LinkReport) => void): unknown;
}

/** noble's HCI bindings announce the MTU each link negotiated (noble itself only stores it). */
interface MtuEvents {
  on(event: 'onMtu', listener: (peripheralId: string, mtu: number) => void): unknown;
  off(event: 'onMtu', listener: (peripheralId: string, mtu: number) => void): unknown;
}

export interface NobleCentralOptions {
  /** Time for `Advertisement.seenAt`. Default Date.now (the sim passes its clock). */
  now?: () => number;
  /** Default for `connect`'s `timeoutMs`. Default 10 s. */
  connectTimeoutMs?: number;
  /** Bound on each GATT operation (read, write, discover, subscribe, disconnect). Default 10 s. */
  operationTimeoutMs?: number;
  /** Waiting for an adapter in state `unknown` to settle before scan/connect. Default 5 s. */
  adapterTimeoutMs?: number;
  /** The tap under noble's HCI stack, where there is one (Linux adapter, simulated bench). */
  hci?: HciReports;
  /** Where the link's MTU exchange is announced: connect waits for it, as noble starts it. */
  mtu?: MtuEvents;
  /** The links' parameters and requests for new ones, where the HCI is visible. */
  link?: LinkControl;
  /**
   * Runs `callback` after `ms`, returning a cancel function. Default Node's timers; the sim
   * central uses the bench clock, so timeouts are simulated time like everything else there.
   */
  schedule?: Schedule;
  /**
   * Whether the binding under noble reports a refused write (every HCI path, with the tap) or
   * resolves it as a success (noble's OS bindings). Default true.
   */
  writesConfirmed?: boolean;
  /** Runs after `close()` (the sim central leaves its bench here). */
  onClose?: () => void;
  /** The identity address of a bonded board advertising under a private address it resolves to. */
  identityOf?: (address: string) => string | undefined;
  /** The adapter's own identity on the air, where the HCI path settles one (hci/identity-gate.ts). */
  identity?: () => AdapterIdentity | undefined;
  /**
   * Where the transport under noble's HCI stack says it went away for good (a serial dongle
   * unplugged, the TCP peer closed): the central becomes `noAdapter` with that reason and stays so.
   */
  transportLost?: (listener: (reason: string) => void) => void;
  /**
   * Where the transport says it is resetting the controller under a live session (a corrupt
   * stream, a controller that stopped answering): the central is `resetting`, whatever noble
   * says meanwhile, until noble has set the controller up again.
   */
  transportReset?: (listener: (reason: string) => void) => void;
  /**
   * Where the transport says, once, what went wrong on it while it still works (a corrupt
   * stream): `stateReason()` gives it from then on, and state listeners hear the state again.
   */
  transportNotice?: (listener: (text: string) => void) => void;
}

function adapterState(state: unknown): AdapterState {
  return NOBLE_ADAPTER_STATES.find((s) => s === state) ?? 'unknown';
}

interface Scan {
  serviceUuids: string[];
  name?: string;
  minRssi?: number;
  onAdvertisement: (ad: Advertisement) => void;
}

export class NobleCentral implements BleCentral {
  private readonly noble: NobleInstance;
  private readonly options: NobleCentralOptions;
  private readonly now: () => number;
  private readonly schedule: Schedule;
  private readonly scans = new Set<Scan>();
  private readonly peripherals = new Map<string, Peripheral>();
  /** A resolved board's earlier ids, found once when it is first heard at its new address. */
  private readonly formerIds = new Map<string, string[]>();
  /** Each board's last advertising and scan response data as received (only under an HCI tap). */
  private readonly rawAdvertising = new Map<
    string,
    { advertisingData?: Uint8Array; scanResponseData?: Uint8Array }
  >();
  private readonly connections = new Map<string, NobleConnection>();
  private readonly stateHandlers = new Set<(state: AdapterState) => void>();
  private current: AdapterState = 'unknown';
  private reason: string | undefined;
  private nobleScanning = false;
  private scanChain: Promise<void> = Promise.resolve();
  private closed = false;
  private lost = false;
  private resetting = false;
  /** Why the transport is resetting the controller, while it is. */
  private resetWhy: string | undefined;
  /** What the transport said went wrong on it while it still works. */
  private notice: string | undefined;
  private readonly onStateChange_ = (state: string) => {
    if (this.lost) return;
    const next = adapterState(state);
    if (this.resetting && next !== 'poweredOn') return;
    this.resetting = false;
    this.resetWhy = undefined;
    this.setState(next);
  };
  private readonly onWarning = (warning: string) => {
    // noble catches a failing binding init and reports it only as this warning.
    if (warning.startsWith('Initialization')) this.setState('noAdapter', warning);
  };
  private readonly onDiscover = (peripheral: Peripheral) => this.discovered(peripheral);
  private readonly onAttError = (report: AttErrorReport) =>
    this.connections.get(report.peripheralId)?.attFailed(report);
  private readonly onSecurityFailed = (failure: SecurityFailure) =>
    this.connections.get(failure.peripheralId)?.securityFailed(failure);
  private readonly onLinkChanged = (report: LinkReport) =>
    this.connections.get(report.peripheralId)?.linkChanged(report);
  /** The tap reports before noble reads the same event, so `discovered` finds the bytes here. */
  private readonly onAdvertisingReport = (report: AdvertisingReport) => {
    const raw = this.rawAdvertising.get(report.peripheralId) ?? {};
    if (report.eventType === ADV_REPORT_TYPE.scanRsp) raw.scanResponseData = report.data;
    else raw.advertisingData = report.data;
    this.rawAdvertising.set(report.peripheralId, raw);
  };

  constructor(noble: NobleInstance, options: NobleCentralOptions = {}) {
    this.noble = noble;
    this.options = options;
    this.now = options.now ?? Date.now;
    this.schedule = options.schedule ?? realSchedule;
    noble.on('warning', this.onWarning);
    noble.on('discover', this.onDiscover);
    // The first stateChange listener is what makes noble initialise its binding.
    noble.on('stateChange', this.onStateChange_);
    this.current = adapterState(noble._state);
    options.hci?.on('attError', this.onAttError);
    options.hci?.on('securityFailed', this.onSecurityFailed);
    options.hci?.on('advertisingReport', this.onAdvertisingReport);
    options.transportLost?.((reason) => {
      this.lost = true;
      this.setState('noAdapter', reason);
    });
    options.transportReset?.((why) => {
      if (this.lost) return;
      this.resetting = true;
      this.resetWhy = `the controller is being reset: ${why}`;
      this.setState('resetting');
    });
    options.transportNotice?.((text) => {
      this.notice = text;
      for (const handler of [...this.stateHandlers]) handler(this.current);
    });
    options.hci?.on('linkChanged', this.onLinkChanged);
  }

  state(): AdapterState {
    return this.current;
  }

  /** The pairing on a board's link waits on the person: its operation waits with it. */
  personAsked(peripheralId: string): void {
    this.connections.get(peripheralId)?.personAsked();
  }

  /** The pairing on a board's link ran out of the SMP's time: its operation ends with it. */
  pairingTimedOut(peripheralId: string, error: Error): void {
    this.connections.get(peripheralId)?.pairingTimedOut(error);
  }

  /**
   * Why the adapter is unavailable, when it is `noAdapter`; why it is resetting, when the
   * transport reset it; else what the transport said went wrong on it, if anything.
   */
  identity(): AdapterIdentity | undefined {
    return this.options.identity?.();
  }

  stateReason(): string | undefined {
    return this.reason ?? (this.current === 'resetting' ? this.resetWhy : undefined) ?? this.notice;
  }

  onStateChange(handler: (state: AdapterState) => void): () => void {
    this.stateHandlers.add(handler);
    return () => this.stateHandlers.delete(handler);
  }

  async startScan(
    filter: ScanFilter,
    onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    const serviceUuids = (filter.serviceUuids ?? []).map((u) => {
      try {
        return expandUuid(normalizeUuid(u));
      } catch {
        throw new BleError('scan', `scan filter: "${u}" is not a UUID`);
      }
    });
    await this.ready('scan');
    const scan: Scan = {
      serviceUuids,
      name: filter.name?.toLowerCase(),
      minRssi: filter.minRssi,
      onAdvertisement,
    };
    this.scans.add(scan);
    try {
      await this.syncScanning();
    } catch (err) {
      this.scans.delete(scan);
      throw err;
    }
    return {
      stop: async () => {
        if (this.scans.delete(scan)) await this.syncScanning();
      },
    };
  }

  async connect(id: string, options: ConnectOptions = {}): Promise<BleConnection> {
    await this.ready('connect', id);
    const peripheral = this.peripherals.get(id);
    if (!peripheral)
      throw new BleError(
        'connect',
        `device ${id} has not been seen by a scan: scan for it first`,
        id,
      );
    if (this.connections.has(id)) throw new BleError('connect', `already connected to ${id}`, id);
    const timeoutMs = options.timeoutMs ?? this.options.connectTimeoutMs ?? 10_000;
    const link = this.options.link;
    if (options.mtu !== undefined && !link)
      throw new BleError(
        'connect',
        'asking for an MTU needs an HCI adapter (the simulated bench or hciN)',
        id,
      );
    link?.askMtu(id, options.mtu);
    const mtu = this.mtuExchange(id);
    try {
      // A link left by a connect that timed out (its Connection Complete came late) is ended
      // first: noble refuses to connect a peripheral it holds as connected.
      if (peripheral.state === 'connected')
        await withBleTimeout(this.schedule, peripheral.disconnectAsync(), timeoutMs);
      const connecting = peripheral.connectAsync();
      await withBleTimeout(this.schedule, connecting, timeoutMs, () => {
        peripheral.cancelConnect();
        connecting.then(() => peripheral.disconnectAsync()).catch(() => undefined);
      });
      // noble exchanges the MTU first thing on every link; callers size writes by it.
      await withBleTimeout(
        this.schedule,
        mtu.done,
        this.options.operationTimeoutMs ?? 10_000,
      ).catch(() => undefined);
    } catch (err) {
      mtu.cancel();
      // The caller knows which board it asked for (the error carries its id): the text names
      // no address, so a message that starts with the board's address does not name it twice.
      if (err instanceof TimeoutError)
        throw new BleError('connect', `no connection within ${timeoutMs} ms`, id, {
          cause: err,
        });
      throw new BleError('connect', `the board refused the connection: ${errorMessage(err)}`, id, {
        cause: err,
      });
    }
    const connection = new NobleConnection(peripheral, {
      timeoutMs: this.options.operationTimeoutMs ?? 10_000,
      schedule: this.schedule,
      forget: () => this.connections.delete(id),
      writesConfirmed: this.options.writesConfirmed ?? true,
      control: this.options.link,
    });
    this.connections.set(id, connection);
    return connection;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scans.clear();
    // A lost or resetting controller answers nothing: there is no scan of its to stop.
    if (this.current === 'poweredOn') await this.syncScanning().catch(() => undefined);
    await Promise.allSettled([...this.connections.values()].map((c) => c.disconnect()));
    this.noble.off('warning', this.onWarning);
    this.noble.off('discover', this.onDiscover);
    this.noble.off('stateChange', this.onStateChange_);
    this.options.hci?.off('attError', this.onAttError);
    this.options.hci?.off('securityFailed', this.onSecurityFailed);
    this.options.hci?.off('advertisingReport', this.onAdvertisingReport);
    this.options.hci?.off('linkChanged', this.onLinkChanged);
    this.options.onClose?.();
  }

  /** Resolves once noble announces the MTU of the link to `id` (at once without a source). */
  private mtuExchange(id: string): { done: Promise<void>; cancel: () => void } {
    const source = this.options.mtu;
    if (!source) return { done: Promise.resolve(), cancel: () => undefined };
    let cancel = () => undefined as void;
    const done = new Promise<void>((resolve) => {
      const listener = (peripheralId: string) => {
        if (peripheralId !== id) return;
        cancel();
        resolve();
      };
      cancel = () => void source.off('onMtu', listener);
      source.on('onMtu', listener);
    });
    return { done, cancel };
  }

  private setState(state: AdapterState, reason?: string): void {
    this.reason = state === 'noAdapter' ? reason : undefined;
    if (state === this.current) return;
    this.current = state;
    if (state !== 'poweredOn') this.nobleScanning = false;
    else if (this.scans.size) void this.syncScanning().catch(() => undefined);
    for (const handler of [...this.stateHandlers]) handler(state);
  }

  /** Waits out `unknown`/`resetting`, then insists on `poweredOn`. */
  private async ready(step: BleStep, id?: string): Promise<void> {
    if (this.closed) throw new BleError(step, 'the Bluetooth central is closed', id);
    if (this.current === 'unknown' || this.current === 'resetting') {
      const limit = this.options.adapterTimeoutMs ?? 5_000;
      await new Promise<void>((resolve) => {
        const cancel = this.schedule(done, limit);
        const off = this.onStateChange((s) => s !== 'resetting' && done());
        function done() {
          cancel();
          off();
          resolve();
        }
      });
    }
    if (this.current !== 'poweredOn') {
      const why = this.reason ? `: ${this.reason}` : '';
      throw new BleError(step, `the Bluetooth adapter is ${this.current}${why}`, id);
    }
  }

  /** noble scans (with duplicates, unfiltered) exactly while at least one subscription is open. */
  private syncScanning(): Promise<void> {
    const run = this.scanChain.then(async () => {
      const want = this.scans.size > 0 && this.current === 'poweredOn';
      if (want === this.nobleScanning) return;
      try {
        // noble settles these only on the controller's answer, which a noisy line can lose.
        await withBleTimeout(
          this.schedule,
          want ? this.noble.startScanningAsync([], true) : this.noble.stopScanningAsync(),
          this.options.operationTimeoutMs ?? 10_000,
        );
        this.nobleScanning = want;
      } catch (err) {
        throw new BleError(
          'scan',
          `could not ${want ? 'start' : 'stop'} scanning: ${errorMessage(err)}`,
          undefined,
          { cause: err },
        );
      }
    });
    this.scanChain = run.catch(() => undefined);
    return run;
  }

  /**
   * The identity a bond's IRK resolves the board's private address to, and the ids it was heard
   * under before at addresses the same IRK resolves (read once, when the new address is first
   * resolved: the older ones were all heard before it).
   */
  private identified(peripheral: Peripheral): Pick<Advertisement, 'identityAddress' | 'formerIds'> {
    const identityOf = this.options.identityOf;
    const identityAddress = identityOf?.(peripheral.address);
    if (!identityOf || identityAddress === undefined) return {};
    let former = this.formerIds.get(peripheral.id);
    if (!former) {
      former = [...this.peripherals.values()]
        .filter((p) => p.id !== peripheral.id && identityOf(p.address) === identityAddress)
        .map((p) => p.id);
      this.formerIds.set(peripheral.id, former);
    }
    return { identityAddress, ...(former.length && { formerIds: former }) };
  }

  private discovered(peripheral: Peripheral): void {
    this.peripherals.set(peripheral.id, peripheral);
    if (!this.scans.size) return;
    const raw = peripheral.advertisement ?? {};
    const ad: Advertisement = {
      id: peripheral.id,
      address: peripheral.address,
      localName: raw.localName || undefined,
      serviceUuids: (raw.serviceUuids ?? []).map(reportedUuid),
      manufacturerData: raw.manufacturerData ? Uint8Array.from(raw.manufacturerData) : undefined,
      txPowerLevel: raw.txPowerLevel,
      rssi: peripheral.rssi,
      connectable: peripheral.connectable,
      seenAt: this.now(),
      ...this.identified(peripheral),
      ...this.rawAdvertising.get(peripheral.id),
    };
    const name = ad.localName?.toLowerCase();
    let expanded: string[] | undefined;
    for (const scan of [...this.scans]) {
      if (!meetsMinRssi(ad.rssi, scan.minRssi)) continue;
      if (scan.name && !name?.includes(scan.name)) continue;
      if (scan.serviceUuids.length) {
        expanded ??= ad.serviceUuids.map(expandUuid);
        if (!scan.serviceUuids.some((u) => expanded?.includes(u))) continue;
      }
      try {
        scan.onAdvertisement(ad);
      } catch (err) {
        // One subscriber's bug must not starve the others; it still surfaces.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
