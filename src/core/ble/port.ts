// The one BLE interface everything above the radio uses (provisioning, the scenario engine,
// the GATT explorer, the scan view). Its implementations are named for what they wrap: in radio/,
// `noble-central.ts` (a real noble, on hardware or over the simulated bench),
// `multi-adapter-central.ts` (a station's adapters as one) and `no-adapter-central.ts` (none,
// saying why); the app's `BleHost` (host/ble-host.ts) wraps the BLE process. Only radio/ and
// hci/ run noble.
import { z } from 'zod';
import type { AdapterIdentity } from './adapter-identity';
import { describeAttError } from './att/codes';
import { errorMessage } from '../errors/message';
import type { LinkInfo, LinkRequest } from './link-parameters';

/** The adapter states noble reports. */
export const NOBLE_ADAPTER_STATES = [
  'unknown',
  'resetting',
  'unsupported',
  'unauthorized',
  'poweredOff',
  'poweredOn',
] as const;

export const ADAPTER_STATES = [
  ...NOBLE_ADAPTER_STATES,
  /** No adapter could be opened at all (the native binding failed to load or found none). */
  'noAdapter',
] as const;

export type AdapterState = (typeof ADAPTER_STATES)[number];

/** A characteristic's properties, in the order of their bits (Vol 3, Part G, 3.3.1.1). */
export const CHARACTERISTIC_PROPERTIES = [
  'broadcast',
  'read',
  'writeWithoutResponse',
  'write',
  'notify',
  'indicate',
  'authenticatedSignedWrites',
  'extendedProperties',
] as const;

export type CharacteristicProperty = (typeof CHARACTERISTIC_PROPERTIES)[number];

export interface ScanFilter {
  /** Any of these service UUIDs advertised (any UUID form; normalised here). */
  serviceUuids?: string[];
  /** Case-insensitive substring of the local name. */
  name?: string;
  /** Drop advertisements weaker than this, in dBm. */
  minRssi?: number;
}

export interface Advertisement {
  /** noble's peripheral id: what `connect` takes. */
  id: string;
  address: string;
  localName?: string;
  /** Normalised (see `normalizeUuid`). */
  serviceUuids: string[];
  manufacturerData?: Uint8Array;
  txPowerLevel?: number;
  /** The AD structures as received (Core Spec Supplement, Part A), where an HCI tap sees them. */
  advertisingData?: Uint8Array;
  scanResponseData?: Uint8Array;
  rssi: number;
  connectable: boolean;
  /** ms since the epoch, when this advertisement was received. */
  seenAt: number;
  /** The adapter that heard it (its spec's canonical text), where a central names one. */
  adapter?: string;
  /** A bonded board's identity address, when `address` is a private address its IRK resolves. */
  identityAddress?: string;
  /**
   * The ids this board was heard under before, at earlier private addresses its bond's IRK
   * resolves to the same identity (its address changed as it rebooted or rotated): a list shows
   * it once, on the row that follows it.
   */
  formerIds?: string[];
}

interface CharacteristicInfo {
  uuid: string;
  properties: CharacteristicProperty[];
}

export interface ServiceInfo {
  uuid: string;
  characteristics: CharacteristicInfo[];
}

export interface ScanHandle {
  stop(): Promise<void>;
}

export interface BleConnection {
  readonly id: string;
  /** The negotiated ATT MTU; a write carries at most `mtu - 3` bytes. */
  readonly mtu: number;
  /**
   * Whether a resolved write means the board accepted it. False on noble's OS bindings, which
   * report success whatever the board answered (docs/decisions.md, "Native bindings"): callers
   * mark such writes "not confirmed by the board" and trust only a read-back.
   */
  readonly writesConfirmed: boolean;
  /** The adapter this link goes through (its spec's canonical text), where a central names one. */
  readonly adapter?: string;
  /** Every service and characteristic the board exposes. */
  discover(): Promise<ServiceInfo[]>;
  read(serviceUuid: string, characteristicUuid: string): Promise<Uint8Array>;
  /** With response unless `withoutResponse`; resolves when the board acknowledged (or it was sent). */
  write(
    serviceUuid: string,
    characteristicUuid: string,
    data: Uint8Array,
    options?: { withoutResponse?: boolean },
  ): Promise<void>;
  /** Notifications or indications; resolves once subscribed, with the function that unsubscribes. */
  subscribe(
    serviceUuid: string,
    characteristicUuid: string,
    onValue: (data: Uint8Array) => void,
  ): Promise<() => Promise<void>>;
  disconnect(): Promise<void>;
  /** Called once when the link goes down, whoever ended it. */
  onDisconnect(handler: (reason: string) => void): () => void;
  /**
   * The link as the controller reports it, where the HCI is visible (simulated bench, Linux
   * adapter); absent on noble's OS bindings.
   */
  linkInfo?(): LinkInfo | undefined;
  /** Every change of `linkInfo` the controller reports (requested or not). */
  onLinkChange?(handler: (link: LinkInfo) => void): () => void;
  /** Asks the controller (or the board, for pairing) for a change; resolves with the link after it. */
  requestLink?(request: LinkRequest): Promise<LinkInfo>;
}

export interface ConnectOptions {
  timeoutMs?: number;
  mtu?: number;
}

export interface BleCentral {
  state(): AdapterState;
  /** Why the adapter is in its state, where it says (e.g. what took it away). */
  stateReason?(): string | undefined;
  /** The address the adapter uses on the air and where it came from, once the HCI path settled it. */
  identity?(): AdapterIdentity | undefined;
  onStateChange(handler: (state: AdapterState) => void): () => void;
  /**
   * Several scans may run at once (the scan view and a provisioning verify); each gets only the
   * advertisements its filter matches, every time one is received.
   */
  startScan(filter: ScanFilter, onAdvertisement: (ad: Advertisement) => void): Promise<ScanHandle>;
  /** `mtu`: what the link's Exchange MTU Request asks for (default the stack's own). */
  connect(id: string, options?: ConnectOptions): Promise<BleConnection>;
  /** Stops scans and drops connections. */
  close(): Promise<void>;
}

/** Where a BLE operation failed, so an error can say which step and why. */
export type BleStep =
  | 'adapter'
  | 'scan'
  | 'connect'
  | 'discover'
  | 'read'
  | 'write'
  | 'subscribe'
  | 'disconnect'
  | 'link';

/**
 * How the link, rather than the board's GATT, ended an operation: it went down (or was down), or
 * the board stopped answering. A scenario reports these as connection errors.
 */
export type LinkFailure = 'lost' | 'timeout';

export class BleError extends Error {
  readonly link?: LinkFailure;
  /** What went wrong in the link's own words, where the message starts with the operation's name. */
  readonly detail?: string;
  constructor(
    readonly step: BleStep,
    message: string,
    readonly deviceId?: string,
    options?: { cause?: unknown; link?: LinkFailure; detail?: string },
  ) {
    super(message, options);
    this.name = 'BleError';
    if (options?.link) this.link = options.link;
    if (options?.detail !== undefined) this.detail = options.detail;
  }
}

/**
 * What went wrong, for a caller whose own words already name the operation ("pairing
 * failed: …"): the link's words once, without the operation's name it leads its message with.
 */
export function failureWords(err: unknown): string {
  return err instanceof BleError && err.detail !== undefined ? err.detail : errorMessage(err);
}

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

/** The first error of `kind` in `err`'s cause chain (the error itself included), if any. */
export function causeOf<E extends Error>(
  err: unknown,
  kind: abstract new (...args: never[]) => E,
): E | undefined {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause)
    if (e instanceof kind) return e;
  return undefined;
}

/** The board's ATT error under `err` (the error itself or one of its causes), if there is one. */
export function attErrorOf(err: unknown): AttError | undefined {
  return causeOf(err, AttError);
}

/**
 * The characteristic's properties do not allow the operation, so it was never sent: refused
 * here as the board would refuse it, and as final (docs/decisions.md, "Provisioning spends a
 * PSDI only on a board that can take it").
 */
export class NotAllowedError extends BleError {
  constructor(step: BleStep, message: string, deviceId?: string) {
    super(step, message, deviceId);
    this.name = 'NotAllowedError';
  }
}

const HEX_UUID = /^(?:[0-9a-f]{4}|[0-9a-f]{8}|[0-9a-f]{32})$/;
const DASHED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Why `text` is not a UUID in any form people write (dashed, undashed, 16- or 32-bit with or
 * without `0x`, in braces, upper or lower case), or undefined when it is one.
 */
export function uuidProblem(text: string): string | undefined {
  try {
    normalizeUuid(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The one UUID form used inside DeviceBench and by noble: lowercase hex without dashes. 16- and
 * 32-bit UUIDs stay short, as noble reports them. Accepts every form `uuidProblem` names; throws
 * a plain-language error on anything else.
 */
export function normalizeUuid(uuid: string): string {
  let text = uuid.trim().toLowerCase();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.includes('-')) {
    if (!DASHED_UUID.test(text))
      throw new Error(
        `"${uuid}" is not a UUID: a dashed UUID is 8-4-4-4-12 hex digits, e.g. 0000180f-0000-1000-8000-00805f9b34fb`,
      );
    return text.replace(/-/g, '');
  }
  const compact = /^0x[0-9a-f]{4}(?:[0-9a-f]{4})?$/.test(text) ? text.slice(2) : text;
  if (!HEX_UUID.test(compact))
    throw new Error(
      `"${uuid}" is not a UUID: type 4 or 8 hex digits for a short UUID (e.g. 180f) or 32, with or without dashes, for a 128-bit one`,
    );
  return compact;
}

/**
 * A UUID as a board or the platform reported it, in the `normalizeUuid` form when it is one;
 * anything else is kept, lowercased, so it still shows and compares instead of failing a listing.
 */
export function reportedUuid(uuid: string): string {
  try {
    return normalizeUuid(uuid);
  } catch {
    return uuid.toLowerCase();
  }
}

/**
 * The 128-bit dashed lowercase form of any UUID, as the platform's scenario sets and products
 * carry it: a short UUID is expanded over the Bluetooth base UUID.
 */
export function fullUuid(uuid: string): string {
  return formatUuid(expandUuid(normalizeUuid(uuid)));
}

/** The dashed lowercase form people read (128-bit only; short UUIDs stay as they are). */
export function formatUuid(uuid: string): string {
  const u = normalizeUuid(uuid);
  if (u.length !== 32) return u;
  return `${u.slice(0, 8)}-${u.slice(8, 12)}-${u.slice(12, 16)}-${u.slice(16, 20)}-${u.slice(20)}`;
}

/** Whether two UUIDs name the same attribute, whatever their form (16-bit short or 128-bit). */
export function sameUuid(a: string, b: string): boolean {
  return expandUuid(normalizeUuid(a)) === expandUuid(normalizeUuid(b));
}

/**
 * `sameUuid` for values a scenario set or a board file carries, which may be missing or not a
 * UUID at all: such a value matches nothing.
 */
export function matchesUuid(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  try {
    return sameUuid(a, b);
  } catch {
    return false;
  }
}

/**
 * The 128-bit form, for comparing: a 16- or 32-bit UUID is short for the Bluetooth base UUID,
 * so a filter for `0000180f-0000-1000-8000-00805f9b34fb` matches a board advertising `180f`.
 */
export function expandUuid(uuid: string): string {
  if (uuid.length === 4) return `0000${uuid}00001000800000805f9b34fb`;
  if (uuid.length === 8) return `${uuid}00001000800000805f9b34fb`;
  return uuid;
}

/** A zod field for UUIDs in any accepted form, normalised on parse. */
export const uuidSchema = z.string().transform((value, ctx) => {
  try {
    return normalizeUuid(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a UUID (16-, 32- or 128-bit hex)' });
    return z.NEVER;
  }
});
