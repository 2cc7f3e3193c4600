// Messages between the app and the BLE process. The app asks (`request`), the process answers
// once (`response`) and reports what happens on the radio (`event`). Byte arrays travel as
// Uint8Array: both transports (Node's advanced IPC serialization, Electron's structured clone)
// keep them.
//
// Every method the process answers is one entry of a method table (src/core/rpc/method-table.ts):
// a zod input and output schema. The same table types the caller (`BleHost.call`/`sim`) and the
// process's handlers (`MethodHandlers`), and the process parses each input with it where it
// crosses the boundary (`parseRequest`).
import { z } from 'zod';
import {
  method,
  parseRequest as parseTableRequest,
  type MethodTable,
} from '../../rpc/method-table';
import { adapterSpecText } from '../adapter-spec';
import type { PairingPrompt } from './pairing-prompts';
import type { AdapterView } from '../radio/multi-adapter-central';
import { linkUserSchema, type BoardLink, type GattLogEntry, type LoggedLink } from '../link-record';
import type { AdapterState, Advertisement, LinkFailure, ServiceInfo } from '../port';
import type { BoardView } from '../sim/board-view';
import { faultsSchema } from '../sim/board-schema';
import { bluetoothAddressSchema } from '../bluetooth-address';
import { bondStorageSchema, bondSummarySchema } from '../security-manager/bond-summary';
import {
  connectionParametersSchema,
  dataLengthSchema,
  mtuSchema,
  pairingAnswerSchema,
  pairingPromptSchema,
  pairRequestSchema,
  phyRequestSchema,
  type LinkInfo,
} from '../link-parameters';

export const hostConfigSchema = z.object({
  /** The station's adapters as spec text (src/core/ble/adapter-spec.ts), opened together. */
  adapters: z.array(adapterSpecText).min(1, 'names no adapter'),
  /** Simulated bench: where committed identities persist, as flash would. */
  stateFile: z.string().optional(),
  /** Simulated bench: board files loaded when a `sim` adapter opens (at start or added later). */
  boardFiles: z.array(z.string()).optional(),
  /** Simulated bench: the user's saved set-up, brought onto the board files at start. */
  setupFile: z.string().optional(),
  /** Simulated bench: the controller its adapters emulate (`sim-adapter.json`), if the user set one. */
  adapterFile: z.string().optional(),
  seed: z.number().int().optional(),
  /**
   * Where the session's HCI traffic goes as btsnoop files (src/core/ble/hci/trace-store.ts),
   * simulated bench and hardware alike, one folder per adapter (`traceDirFor`); no traces
   * without it.
   */
  traceDir: z.string().min(1, 'is empty').optional(),
  /** Whether the traces keep the link keys (src/core/usecases/bench/trace-settings.ts). */
  traceKeepKeys: z.boolean().optional(),
  /**
   * The data folder whose `bonds.bin` keeps the station's bonds, under a key in the OS keychain
   * (src/core/ble/security-manager/bond-store.ts), and whose `adapter-identities.json` keeps the
   * identities generated for adapters without an address (src/core/ble/adapter-identity-store.ts);
   * without it no bonds are kept and such an identity lasts one session.
   */
  bondsDir: z.string().min(1, 'is empty').optional(),
});
export type HostConfig = z.infer<typeof hostConfigSchema>;

const id = z.string().min(1, 'is empty');
const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be a Uint8Array');
const nothing = z.void();
const characteristic = z.object({
  connectionId: id,
  serviceUuid: id,
  characteristicUuid: id,
});
/** Produced by the process's own typed code, so declared for the types and not re-checked. */
const serviceInfo = z.custom<ServiceInfo>();
const boardView = z.custom<BoardView>();

/** Produced by the process's own typed code (the tap's view of the link), not re-checked. */
const linkInfo = z.custom<LinkInfo>();
const onLink = z.object({ connectionId: id });
const boardLink = z.custom<BoardLink>();
const adapterView = z.custom<AdapterView>();
/** An open adapter by its id (`AdapterView.id`), looked up where it sits when the call runs. */
const adapterId = z.object({ id: z.string().min(1) });
/** A new link: what `BleConnection` says of itself, with the process's id for it. */
const openedLink = z.object({
  connectionId: z.string(),
  mtu: z.number(),
  writesConfirmed: z.boolean(),
  adapter: z.string().optional(),
  link: linkInfo.optional(),
});

/**
 * A link's parameters and the requests for new ones, one method each (`BleConnection.requestLink`),
 * answered with the link once the controller's event for it came.
 */
const linkMethods = {
  updateConnection: method(onLink.extend({ parameters: connectionParametersSchema }), linkInfo),
  setPhy: method(onLink.extend({ phy: phyRequestSchema }), linkInfo),
  setDataLength: method(onLink.extend({ octets: dataLengthSchema }), linkInfo),
  pair: method(onLink.extend(pairRequestSchema.shape), linkInfo),
  readRssi: method(onLink, linkInfo),
} satisfies MethodTable;

/** The radio: what `BleCentral` and `BleConnection` do, by id across the boundary. */
const centralMethods = {
  ...linkMethods,
  /** The person's answer to a `pairingPrompt`: the passkey typed, or whether the numbers match. */
  answerPairing: method(pairingAnswerSchema, nothing),
  /** The prompts whose pairing has not ended, for a window that opens while one waits. */
  pairingPrompts: method(z.object({}), z.array(pairingPromptSchema)),
  startScan: method(
    z.object({
      serviceUuids: z.array(z.string()).optional(),
      name: z.string().optional(),
      minRssi: z.number().optional(),
    }),
    z.object({ scanId: z.string() }),
  ),
  stopScan: method(z.object({ scanId: id }), nothing),
  connect: method(
    z.object({
      deviceId: id,
      timeoutMs: z.number().positive().optional(),
      mtu: mtuSchema.optional(),
      user: linkUserSchema,
    }),
    openedLink,
  ),
  discover: method(z.object({ connectionId: id }), z.array(serviceInfo)),
  read: method(characteristic, bytes),
  write: method(characteristic.extend({ data: bytes, withoutResponse: z.boolean() }), nothing),
  subscribe: method(characteristic, z.object({ subscriptionId: z.string() })),
  unsubscribe: method(z.object({ subscriptionId: id }), nothing),
  /**
   * `keep`: the explorer's link stays listed, ended by its user, so its card keeps its log and
   * offers Reconnect until dismissed (docs/decisions/app-and-ui.md, "A Disconnect keeps the card").
   */
  disconnect: method(z.object({ connectionId: id, keep: z.boolean().optional() }), nothing),
} satisfies MethodTable;

/**
 * The links the process holds, with their GATT tables and logs (src/core/ble/link-record.ts),
 * and the station's adapters changed one at a time beside the others.
 */
const stationMethods = {
  links: method(z.object({}), z.array(z.custom<LoggedLink>())),
  /** The board of a link on a new link under the same id, keeping its log; `mtu` to ask for. */
  reconnect: method(
    onLink.extend({ mtu: mtuSchema.optional(), timeoutMs: z.number().positive().optional() }),
    openedLink,
  ),
  /** Takes a dropped link off the list. */
  forgetLink: method(onLink, nothing),
  /** Clears the link's log for every window. */
  clearLog: method(onLink, nothing),
  /**
   * Counts a characteristic's writes and notifications instead of logging each, until a call
   * with `summary` ends it with one line (an MCUmgr upload's chunks).
   */
  quietLog: method(
    onLink.extend({ characteristicUuid: z.string(), summary: z.string().optional() }),
    nothing,
  ),
  /** Ends the link's subscription to one characteristic, whoever made it. */
  unsubscribeFrom: method(characteristic, nothing),
  addAdapter: method(z.object({ spec: adapterSpecText }), z.array(adapterView)),
  /** Closes adapter `id`, ending its links; answers the links it ended. */
  removeAdapter: method(adapterId, z.array(boardLink)),
  /** The links adapter `id` holds: what removing it would drop. */
  linksOnAdapter: method(adapterId, z.array(boardLink)),
  /**
   * The station's bonds without their keys, with the boards' names where the process knows
   * them, and where they are kept; the process holds the one BondStore the pairings write.
   */
  bonds: method(
    z.object({}),
    z.object({ storage: bondStorageSchema, bonds: z.array(bondSummarySchema) }),
  ),
  /** Forgets station identity `station`'s bond with `board`, or all of its bonds; how many. */
  forgetBonds: method(
    z.object({ station: bluetoothAddressSchema, board: bluetoothAddressSchema.optional() }),
    z.object({ forgotten: z.number().int().min(0) }),
  ),
  /** From now on, every adapter's trace keeps the link keys, or redacts them. */
  keepTraceKeys: method(z.object({ keepKeys: z.boolean() }), nothing),
  /**
   * Sets a damaged `bonds.bin` aside and starts a new one: the name it was set aside as (null
   * when it was not damaged), and where the bonds are kept now.
   */
  resetBonds: method(
    z.object({}),
    z.object({ setAsideAs: z.string().nullable(), storage: bondStorageSchema }),
  ),
} satisfies MethodTable;

/** The simulated bench's controls; the process refuses them on hardware. */
const simMethods = {
  boards: method(z.object({}), z.array(boardView)),
  loadBoardFile: method(z.object({ path: id }), z.array(boardView)),
  loadBoards: method(
    z.object({ text: z.string(), source: z.string().optional() }),
    z.array(boardView),
  ),
  removeBoard: method(z.object({ boardId: id }), nothing),
  pressButton: method(z.object({ boardId: id, buttonId: z.string().optional() }), nothing),
  setFaults: method(z.object({ boardId: id, faults: faultsSchema }), boardView),
  factoryReset: method(z.object({ boardId: id }), boardView),
} satisfies MethodTable;

export type CentralMethods = typeof centralMethods & typeof stationMethods;
export type SimMethods = typeof simMethods;
export type CentralMethod = keyof CentralMethods;
export type SimMethod = keyof SimMethods;

/** What a caller passes and gets back. */
export type MethodInput<T extends MethodTable, M extends keyof T> = z.input<T[M]['input']>;
export type MethodOutput<T extends MethodTable, M extends keyof T> = z.output<T[M]['output']>;

/** What the process implements: each method gets its parsed input. */
export type MethodHandlers<T extends MethodTable> = {
  [M in keyof T]: (
    input: z.output<T[M]['input']>,
  ) => z.input<T[M]['output']> | Promise<z.input<T[M]['output']>>;
};

const TABLES = { central: { ...centralMethods, ...stationMethods }, sim: simMethods } as const;
type Target = keyof typeof TABLES;

/** On the wire the method and input are whatever arrived: `parseRequest` makes them typed. */
export interface Request {
  type: 'request';
  id: number;
  target: Target;
  method: string;
  input: unknown;
}

/** A request the process refused before running it: an unknown method or a bad input. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

/** The request's method (one of `target`'s) and its parsed input, or a ProtocolError naming both. */
export function parseRequest(request: Pick<Request, 'target' | 'method' | 'input'>): {
  method: string;
  input: unknown;
} {
  return parseTableRequest(TABLES, request, (message) => new ProtocolError(message));
}

/** Runs a parsed request on the handlers of its table. */
export function dispatch<T extends MethodTable>(
  handlers: MethodHandlers<T>,
  parsed: { method: string; input: unknown },
): unknown {
  const handler = handlers[parsed.method as keyof T] as (input: unknown) => unknown;
  return handler(parsed.input);
}

export interface SerializedError {
  name: string;
  message: string;
  step?: string;
  deviceId?: string;
  /** The board's ATT error under a BleError, as data: the app rebuilds its AttError cause. */
  att?: { code: number; request: string; handle: number };
  /** A BleError's `link`. */
  link?: LinkFailure;
  /** A BleError's `detail`: the link's own words, without the operation's name. */
  detail?: string;
}

type Response =
  | { type: 'response'; id: number; ok: true; value: unknown }
  | { type: 'response'; id: number; ok: false; error: SerializedError };

export type HostEvent =
  | { type: 'event'; event: 'ready'; state: AdapterState; adapters: AdapterView[] }
  /** Why the process could not open its station, just before it exits: the app says this. */
  | { type: 'event'; event: 'startFailed'; message: string }
  | { type: 'event'; event: 'state'; state: AdapterState }
  | { type: 'event'; event: 'adapters'; adapters: AdapterView[] }
  | { type: 'event'; event: 'scan'; scanId: string; ads: Advertisement[] }
  | { type: 'event'; event: 'notify'; subscriptionId: string; data: Uint8Array }
  | { type: 'event'; event: 'disconnected'; connectionId: string; reason: string }
  | { type: 'event'; event: 'link'; connectionId: string; link: LinkInfo }
  | { type: 'event'; event: 'links'; links: BoardLink[] }
  | { type: 'event'; event: 'gattLog'; entry: GattLogEntry }
  | { type: 'event'; event: 'pairingPrompt'; prompt: PairingPrompt }
  /** A bond was kept or forgotten. */
  | { type: 'event'; event: 'bonds' };

export type HostMessage = Response | HostEvent;

/** How the app reaches the process: a Node child, or an Electron utility process. */
export interface HostChannel {
  readonly pid: number | undefined;
  send(message: Request): void;
  onMessage(handler: (message: HostMessage) => void): void;
  /** Once, when the process is gone for whatever reason. */
  onExit(handler: (reason: string) => void): void;
  kill(): void;
}
