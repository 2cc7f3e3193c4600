// BleCentral over a noble instance: noble's HCI host stack over the machine's adapter (loaded
// lazily so a missing driver is a state, not a crash) or over the simulated bench's virtual
// controller, with the HCI tap between them. Multiplexes scans, bounds every operation in time
// and turns every failure, ATT errors included, into a BleError naming the step and the device.
import { createRequire } from 'node:module';
import type { Characteristic, Peripheral, Service } from '@abandonware/noble';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import {
  BleError,
  expandUuid,
  formatUuid,
  normalizeUuid,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type BleStep,
  type CharacteristicProperty,
  type ScanFilter,
  type ScanHandle,
  type ServiceInfo,
} from './port';
import { ATT_ERROR, ATT_OP, attOpcodeName, describeAttError } from './att/codes';
import { ADV_REPORT_TYPE, describeHciError } from './hci/codes';
import { loadNativeHciSocket, nobleOverSocket, releaseSigint } from './hci/noble-over-socket';
import {
  HciTap,
  type AdvertisingReport,
  type AttErrorReport,
  type SecurityFailure,
  type TraceSink,
} from './hci/tap';
import type { HciSocket } from './hci/socket';
import type { AdapterProfileInput } from './sim/adapter-profile';
import type { SimulatedBench } from './sim/bench';

const require = createRequire(import.meta.url);

/** Requests that read or write a value: an error to one of these fails the operation. */
const VALUE_REQUESTS: ReadonlySet<number> = new Set([
  ATT_OP.readReq,
  ATT_OP.readBlobReq,
  ATT_OP.readMultipleReq,
  ATT_OP.writeReq,
  ATT_OP.prepareWriteReq,
  ATT_OP.executeWriteReq,
]);

/** The errors on which noble's gatt.js pairs by itself before it retries the request. */
const SECURITY_ERRORS: ReadonlySet<number> = new Set([
  ATT_ERROR.insufficientAuthentication,
  ATT_ERROR.insufficientAuthorization,
  ATT_ERROR.insufficientEncryption,
]);

export type { NobleInstance };

/**
 * What the HCI tap under noble reports (hci/tap.ts): noble's own stack answers an ATT error
 * with an empty read or with silence, and says nothing when pairing fails.
 */
export interface HciReports {
  on(event: 'attError', listener: (report: AttErrorReport) => void): unknown;
  on(event: 'securityFailed', listener: (failure: SecurityFailure) => void): unknown;
  on(event: 'advertisingReport', listener: (report: AdvertisingReport) => void): unknown;
  off(event: 'attError', listener: (report: AttErrorReport) => void): unknown;
  off(event: 'securityFailed', listener: (failure: SecurityFailure) => void): unknown;
  off(event: 'advertisingReport', listener: (report: AdvertisingReport) => void): unknown;
}

/** noble's HCI bindings announce the MTU each link negotiated (noble itself only stores it). */
export interface MtuEvents {
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
  /**
   * Runs `callback` after `ms`, returning a cancel function. Default Node's timers; the sim
   * central uses the bench clock, so timeouts are simulated time like everything else there.
   */
  schedule?: Schedule;
  /** Runs after `close()` (the sim central leaves its bench here). */
  onClose?: () => void;
}

export type Schedule = (callback: () => void, ms: number) => () => void;

const nodeSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

/** A board answered an ATT error; the `cause` of the BleError it becomes. */
export class AttError extends Error {
  override name = 'AttError';
  constructor(
    readonly code: number,
    /** The ATT request the board refused, e.g. "readReq". */
    readonly request: string,
    readonly attHandle: number,
  ) {
    const handle = `0x${attHandle.toString(16).padStart(4, '0')}`;
    super(`ATT error ${describeAttError(code)} to ${request} on handle ${handle}`);
  }
}

/** noble's disconnect reason (an HCI code on Linux, absent elsewhere) in words. */
export function disconnectReason(reason: unknown): string {
  if (typeof reason === 'number') return describeHciError(reason);
  if (typeof reason === 'string' && reason) return reason;
  return 'disconnected';
}

const NOBLE_STATES: readonly AdapterState[] = [
  'unknown',
  'resetting',
  'unsupported',
  'unauthorized',
  'poweredOff',
  'poweredOn',
];

function adapterState(state: unknown): AdapterState {
  return NOBLE_STATES.find((s) => s === state) ?? 'unknown';
}

const PROPERTIES: readonly CharacteristicProperty[] = [
  'broadcast',
  'read',
  'writeWithoutResponse',
  'write',
  'notify',
  'indicate',
  'authenticatedSignedWrites',
  'extendedProperties',
];

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function safeUuid(uuid: string): string {
  try {
    return normalizeUuid(uuid);
  } catch {
    return uuid.toLowerCase();
  }
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
  private readonly onStateChange_ = (state: string) => this.setState(adapterState(state));
  private readonly onWarning = (warning: string) => {
    // noble catches a failing binding init and reports it only as this warning.
    if (warning.startsWith('Initialization')) this.setState('noAdapter', warning);
  };
  private readonly onDiscover = (peripheral: Peripheral) => this.discovered(peripheral);
  private readonly onAttError = (report: AttErrorReport) =>
    this.connections.get(report.peripheralId)?.attFailed(report);
  private readonly onSecurityFailed = (failure: SecurityFailure) =>
    this.connections.get(failure.peripheralId)?.securityFailed(failure);
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
    this.schedule = options.schedule ?? nodeSchedule;
    noble.on('warning', this.onWarning);
    noble.on('discover', this.onDiscover);
    // The first stateChange listener is what makes noble initialise its binding.
    noble.on('stateChange', this.onStateChange_);
    this.current = adapterState(noble._state);
    options.hci?.on('attError', this.onAttError);
    options.hci?.on('securityFailed', this.onSecurityFailed);
    options.hci?.on('advertisingReport', this.onAdvertisingReport);
  }

  state(): AdapterState {
    return this.current;
  }

  /** Why the adapter is unavailable, when it is `noAdapter`. */
  stateReason(): string | undefined {
    return this.reason;
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

  async connect(id: string, options: { timeoutMs?: number } = {}): Promise<BleConnection> {
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
    const mtu = this.mtuExchange(id);
    try {
      await withTimeout(this.schedule, peripheral.connectAsync(), timeoutMs, () =>
        peripheral.cancelConnect(),
      );
      // noble exchanges the MTU first thing on every link; callers size writes by it.
      await withTimeout(this.schedule, mtu.done, this.options.operationTimeoutMs ?? 10_000).catch(
        () => undefined,
      );
    } catch (err) {
      mtu.cancel();
      if (err instanceof TimeoutError)
        throw new BleError('connect', `no connection to ${id} within ${timeoutMs} ms`, id, {
          cause: err,
        });
      throw new BleError('connect', `connection to ${id} refused: ${message(err)}`, id, {
        cause: err,
      });
    }
    const connection = new NobleConnection(peripheral, {
      timeoutMs: this.options.operationTimeoutMs ?? 10_000,
      schedule: this.schedule,
      forget: () => this.connections.delete(id),
    });
    this.connections.set(id, connection);
    return connection;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scans.clear();
    await this.syncScanning().catch(() => undefined);
    await Promise.allSettled([...this.connections.values()].map((c) => c.disconnect()));
    this.noble.off('warning', this.onWarning);
    this.noble.off('discover', this.onDiscover);
    this.noble.off('stateChange', this.onStateChange_);
    this.options.hci?.off('attError', this.onAttError);
    this.options.hci?.off('securityFailed', this.onSecurityFailed);
    this.options.hci?.off('advertisingReport', this.onAdvertisingReport);
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
        if (want) await this.noble.startScanningAsync([], true);
        else await this.noble.stopScanningAsync();
        this.nobleScanning = want;
      } catch (err) {
        throw new BleError(
          'scan',
          `could not ${want ? 'start' : 'stop'} scanning: ${message(err)}`,
          undefined,
          { cause: err },
        );
      }
    });
    this.scanChain = run.catch(() => undefined);
    return run;
  }

  private discovered(peripheral: Peripheral): void {
    this.peripherals.set(peripheral.id, peripheral);
    if (!this.scans.size) return;
    const raw = peripheral.advertisement ?? {};
    const ad: Advertisement = {
      id: peripheral.id,
      address: peripheral.address,
      localName: raw.localName || undefined,
      serviceUuids: (raw.serviceUuids ?? []).map(safeUuid),
      manufacturerData: raw.manufacturerData ? Uint8Array.from(raw.manufacturerData) : undefined,
      txPowerLevel: raw.txPowerLevel,
      rssi: peripheral.rssi,
      connectable: peripheral.connectable,
      seenAt: this.now(),
      ...this.rawAdvertising.get(peripheral.id),
    };
    const name = ad.localName?.toLowerCase();
    let expanded: string[] | undefined;
    for (const scan of [...this.scans]) {
      if (scan.minRssi !== undefined && ad.rssi < scan.minRssi) continue;
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

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

function withTimeout<T>(
  schedule: Schedule,
  promise: Promise<T>,
  ms: number,
  onTimeout?: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = schedule(() => {
      reject(new TimeoutError(`no answer within ${ms} ms`));
      onTimeout?.();
    }, ms);
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (err: unknown) => {
        cancel();
        reject(err);
      },
    );
  });
}

interface InFlight {
  step: BleStep;
  fail(message: string, cause?: unknown): void;
}

/** One link. Operations run one at a time, as ATT does, so an error belongs to the one in flight. */
class NobleConnection implements BleConnection {
  readonly id: string;
  private readonly peripheral: Peripheral;
  private readonly timeoutMs: number;
  private readonly schedule: Schedule;
  private readonly forget: () => void;
  private chain: Promise<unknown> = Promise.resolve();
  private inFlight: InFlight | null = null;
  private gatt: Service[] | null = null;
  private downReason: string | null = null;
  private readonly handlers = new Set<(reason: string) => void>();
  private readonly listeners = new Map<
    Characteristic,
    Set<(data: Buffer, isNotification: boolean) => void>
  >();

  constructor(
    peripheral: Peripheral,
    options: { timeoutMs: number; schedule: Schedule; forget: () => void },
  ) {
    this.id = peripheral.id;
    this.peripheral = peripheral;
    this.timeoutMs = options.timeoutMs;
    this.schedule = options.schedule;
    this.forget = options.forget;
    peripheral.once('disconnect', (reason: unknown) => this.linkDown(disconnectReason(reason)));
  }

  get mtu(): number {
    return this.peripheral.mtu ?? 23;
  }

  discover(): Promise<ServiceInfo[]> {
    return this.run('discover', 'discovering services', async () => {
      const services = await this.discoverGatt();
      return services.map((s) => ({
        uuid: safeUuid(s.uuid),
        characteristics: (s.characteristics ?? []).map((c) => ({
          uuid: safeUuid(c.uuid),
          properties: PROPERTIES.filter((p) => c.properties.includes(p)),
        })),
      }));
    });
  }

  read(serviceUuid: string, characteristicUuid: string): Promise<Uint8Array> {
    return this.run('read', `reading ${label(characteristicUuid)}`, async () => {
      const c = await this.characteristic('read', serviceUuid, characteristicUuid);
      if (!c.properties.includes('read'))
        throw new BleError('read', `${label(characteristicUuid)} is not readable`, this.id);
      return Uint8Array.from(await c.readAsync());
    });
  }

  write(
    serviceUuid: string,
    characteristicUuid: string,
    data: Uint8Array,
    options: { withoutResponse?: boolean } = {},
  ): Promise<void> {
    const withoutResponse = options.withoutResponse === true;
    return this.run('write', `writing ${label(characteristicUuid)}`, async () => {
      if (data.length > 512)
        throw new BleError(
          'write',
          `${data.length} bytes: an attribute holds at most 512`,
          this.id,
        );
      if (withoutResponse && data.length > this.mtu - 3)
        throw new BleError(
          'write',
          `${data.length} bytes do not fit a write without response (MTU ${this.mtu} carries ${this.mtu - 3})`,
          this.id,
        );
      const c = await this.characteristic('write', serviceUuid, characteristicUuid);
      const needed = withoutResponse ? 'writeWithoutResponse' : 'write';
      if (!c.properties.includes(needed))
        throw new BleError(
          'write',
          `${label(characteristicUuid)} does not allow ${needed} (it allows ${c.properties.join(', ')})`,
          this.id,
        );
      await c.writeAsync(Buffer.from(data), withoutResponse);
    });
  }

  subscribe(
    serviceUuid: string,
    characteristicUuid: string,
    onValue: (data: Uint8Array) => void,
  ): Promise<() => Promise<void>> {
    return this.run('subscribe', `subscribing to ${label(characteristicUuid)}`, async () => {
      const c = await this.characteristic('subscribe', serviceUuid, characteristicUuid);
      if (!c.properties.includes('notify') && !c.properties.includes('indicate'))
        throw new BleError(
          'subscribe',
          `${label(characteristicUuid)} neither notifies nor indicates`,
          this.id,
        );
      const listener = (data: Buffer, isNotification: boolean) => {
        if (isNotification) onValue(Uint8Array.from(data));
      };
      const set = this.listeners.get(c) ?? new Set();
      const first = set.size === 0;
      set.add(listener);
      this.listeners.set(c, set);
      c.on('data', listener);
      if (first) {
        try {
          await c.subscribeAsync();
        } catch (err) {
          this.removeListener(c, listener);
          throw err;
        }
      }
      let active = true;
      return async () => {
        if (!active) return;
        active = false;
        this.removeListener(c, listener);
        if (this.downReason === null && !this.listeners.has(c))
          await this.run('subscribe', `unsubscribing from ${label(characteristicUuid)}`, () =>
            c.unsubscribeAsync(),
          );
      };
    });
  }

  async disconnect(): Promise<void> {
    if (this.downReason !== null) return;
    try {
      await withTimeout(this.schedule, this.peripheral.disconnectAsync(), this.timeoutMs);
    } catch (err) {
      throw new BleError('disconnect', `disconnecting from ${this.id}: ${message(err)}`, this.id, {
        cause: err,
      });
    }
  }

  onDisconnect(handler: (reason: string) => void): () => void {
    const reason = this.downReason;
    if (reason !== null) {
      queueMicrotask(() => handler(reason));
      return () => undefined;
    }
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /**
   * From the tap: the board refused the request in flight. Refusals for want of security on a
   * link not yet encrypted are noble's to handle: it pairs and sends the request again.
   */
  attFailed(report: AttErrorReport): void {
    // Discovery ends with an error by design (Attribute Not Found past the last handle).
    if (!VALUE_REQUESTS.has(report.request)) return;
    if (!report.encrypted && SECURITY_ERRORS.has(report.code)) return;
    const error = new AttError(report.code, attOpcodeName(report.request), report.attHandle);
    this.inFlight?.fail(`the board answered ${error.message}`, error);
  }

  /** From the tap: pairing or encryption failed, so the request noble held back never goes. */
  securityFailed(failure: SecurityFailure): void {
    const what =
      failure.stage === 'pairing'
        ? `pairing failed (SMP reason 0x${failure.code.toString(16).padStart(2, '0')})`
        : `encryption refused: ${describeHciError(failure.code)}`;
    this.inFlight?.fail(`the board needs an encrypted link and ${what}; the link is closed`);
    // noble's gatt.js keeps the refused request as its current command for good, so nothing
    // more would move on this link: end it, so the next connection starts clean.
    void this.peripheral.disconnectAsync().catch(() => undefined);
  }

  private linkDown(reason: string): void {
    if (this.downReason !== null) return;
    this.downReason = reason;
    this.forget();
    this.inFlight?.fail(`link lost: ${reason}`);
    for (const [c, set] of this.listeners) for (const l of set) c.removeListener('data', l);
    this.listeners.clear();
    for (const handler of [...this.handlers]) handler(reason);
    this.handlers.clear();
  }

  private removeListener(
    c: Characteristic,
    listener: (data: Buffer, isNotification: boolean) => void,
  ): void {
    c.removeListener('data', listener);
    const set = this.listeners.get(c);
    set?.delete(listener);
    if (set && !set.size) this.listeners.delete(c);
  }

  private run<T>(step: BleStep, what: string, action: () => Promise<T>): Promise<T> {
    const task = this.chain.then(() => this.attempt(step, what, action));
    this.chain = task.catch(() => undefined);
    return task;
  }

  private attempt<T>(step: BleStep, what: string, action: () => Promise<T>): Promise<T> {
    if (this.downReason !== null)
      return Promise.reject(
        new BleError(step, `${what}: not connected (${this.downReason})`, this.id),
      );
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = () => {
        settled = true;
        cancel();
        this.inFlight = null;
      };
      const fail = (text: string, cause?: unknown) => {
        if (settled) return;
        finish();
        reject(
          new BleError(
            step,
            `${what}: ${text}`,
            this.id,
            cause === undefined ? undefined : { cause },
          ),
        );
      };
      const cancel = this.schedule(
        () => fail(`no answer within ${this.timeoutMs} ms`),
        this.timeoutMs,
      );
      this.inFlight = { step, fail };
      action().then(
        (value) => {
          if (settled) return;
          finish();
          resolve(value);
        },
        (err: unknown) => {
          if (settled) return;
          if (err instanceof BleError) {
            finish();
            reject(err);
          } else fail(message(err), err);
        },
      );
    });
  }

  private async discoverGatt(): Promise<Service[]> {
    if (this.gatt) return this.gatt;
    // Service by service: noble's discoverAll… never calls back for a board with no services.
    const services = await this.peripheral.discoverServicesAsync([]);
    for (const s of services) await s.discoverCharacteristicsAsync([]);
    this.gatt = services;
    return services;
  }

  private async characteristic(
    step: BleStep,
    serviceUuid: string,
    characteristicUuid: string,
  ): Promise<Characteristic> {
    let service: string;
    let characteristic: string;
    try {
      service = expandUuid(normalizeUuid(serviceUuid));
      characteristic = expandUuid(normalizeUuid(characteristicUuid));
    } catch (err) {
      throw new BleError(step, message(err), this.id);
    }
    const services = await this.discoverGatt();
    const s = services.find((x) => expandUuid(safeUuid(x.uuid)) === service);
    if (!s) throw new BleError(step, `the board has no service ${formatUuid(service)}`, this.id);
    const c = (s.characteristics ?? []).find(
      (x) => expandUuid(safeUuid(x.uuid)) === characteristic,
    );
    if (!c)
      throw new BleError(
        step,
        `service ${formatUuid(service)} has no characteristic ${formatUuid(characteristic)}`,
        this.id,
      );
    return c;
  }
}

function label(uuid: string): string {
  try {
    return `characteristic ${formatUuid(uuid)}`;
  } catch {
    return `characteristic "${uuid}"`;
  }
}

/** A central for a machine with no usable adapter: every call says why. */
export class NoAdapterCentral implements BleCentral {
  constructor(readonly reason: string) {}

  state(): AdapterState {
    return 'noAdapter';
  }

  stateReason(): string {
    return this.reason;
  }

  onStateChange(): () => void {
    return () => undefined;
  }

  async startScan(
    _filter: ScanFilter,
    _onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    throw new BleError('adapter', `no Bluetooth adapter: ${this.reason}`);
  }

  async connect(id: string): Promise<BleConnection> {
    throw new BleError('adapter', `no Bluetooth adapter: ${this.reason}`, id);
  }

  async close(): Promise<void> {}
}

/**
 * The machine's own adapter, loaded only now: on Linux noble's HCI host stack over the kernel's
 * HCI socket with the tap between them (as in the simulated bench), elsewhere noble's default
 * binding. A driver that fails to load (no HCI socket, no permission, unsupported OS) gives a
 * `noAdapter` central.
 */
export function createHardwareCentral(
  options: HciCentralOptions = {},
): NobleCentral | NoAdapterCentral {
  if (process.platform === 'linux') {
    let socket: HciSocket;
    try {
      socket = new (loadNativeHciSocket())();
    } catch (err) {
      return new NoAdapterCentral(`the Bluetooth driver could not be loaded (${message(err)})`);
    }
    return hciCentral(socket, options, () => socket.stop());
  }
  let noble: NobleInstance;
  try {
    noble = require('@abandonware/noble') as NobleInstance;
  } catch (err) {
    return new NoAdapterCentral(`the Bluetooth driver could not be loaded (${message(err)})`);
  }
  return new NobleCentral(noble, options);
}

export interface HciCentralOptions extends NobleCentralOptions {
  /** Where the tap records the HCI traffic (a btsnoop trace writer). */
  trace?: TraceSink;
}

export interface SimulatedCentralOptions extends HciCentralOptions {
  /** The simulated controller's limits (connections, interval, buffers); defaults documented there. */
  adapter?: AdapterProfileInput;
}

/** noble's HCI host stack over `socket`, with the tap between them. */
function hciCentral(
  socket: HciSocket,
  options: HciCentralOptions,
  release: () => void,
): NobleCentral {
  const tap = new HciTap(socket, options.trace);
  const { noble, bindings } = nobleOverSocket(tap);
  // The bindings add their exit-on-SIGINT handler when they start; DeviceBench's processes stop
  // on their own terms (a batch stops safely first), so it goes once the adapter has a state.
  noble.once('stateChange', () => releaseSigint(noble));
  return new NobleCentral(noble, {
    ...options,
    hci: tap,
    mtu: bindings,
    onClose: () => {
      release();
      releaseSigint(noble);
      options.onClose?.();
    },
  });
}

/**
 * A real noble over a virtual LE controller on the simulated bench: noble's own HCI host stack
 * runs above it, the same code path as a Linux adapter.
 */
export function createSimulatedCentral(
  bench: SimulatedBench,
  options: SimulatedCentralOptions = {},
): NobleCentral {
  const controller = bench.createController(options.adapter);
  return hciCentral(
    controller,
    {
      now: () => bench.clock.now(),
      schedule: (callback, ms) => {
        const timer = bench.clock.setTimeout(callback, ms);
        return () => bench.clock.clearTimeout(timer);
      },
      ...options,
    },
    () => controller.dispose(),
  );
}
