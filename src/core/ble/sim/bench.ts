// The simulated bench: the boards on it, their advertising (batched: one timer per interval
// slot however many boards share it), the virtual LE controllers listening (one per simulated
// central, each under a real noble), and the flash that keeps provisioned identities across
// restarts (an optional JSON state file, shared by every process that opens the data folder:
// changed per board under its lock, and the boards' bonds in it sealed under the bond key).
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import {
  fileStamp,
  SECRET_FILE_MODE,
  withFileLockSync,
  writeFileAtomicSync,
} from '../../data-folder/shared-file';
import { seal, unseal } from '../../data-folder/sealed';
import type { AdapterState } from '../port';
import type { ProvisioningProfile } from '../provisioning-profile';
import { SimBoard } from './board';
import type { BoardView } from './board-view';
import type { CommittedIdentity } from './board-provisioning';
import type { McumgrFlash } from './board-mcumgr';
import type { BoardBond } from './smp-responder-options';
import {
  boardsFromJson,
  loadProfiles,
  parseBoardFile,
  readBoardFile,
  type BoardDefinition,
} from './board-file';
import {
  describeIssues,
  faultsSchema,
  type BoardFaultsInput,
  type BoardSpecInput,
} from './board-schema';
import { adapterProfileSchema, type AdapterProfileInput } from './adapter-profile';
import { encodeAdvertisement, type AdvertisingPayloads } from './advertising-data';
import { BoardPeer } from './board-peer';
import { wallClock, type Clock, type Timer } from '../../async/clock';
import { VirtualController, type RadioHost } from './controller';
import type { CentralIdentity } from './radio';
import type { Link } from './link';
import { hashSeed } from './random';

export interface SimulatedBenchOptions {
  /** Default: the wall clock. Use `ManualSimClock` for deterministic runs. */
  clock?: Clock;
  /** Seeds RSSI noise, jitter and fault dice. Default 1. */
  seed?: number;
  /** Keeps committed identities here (JSON), written synchronously on commit and reset. */
  stateFile?: string;
  /**
   * Seals the boards' bonds in `stateFile` (bond-key.ts `boardFlashKey`). None: a board's bonds
   * stay in this process's memory and none is written, as no station key may be in clear.
   */
  flashKey?: Uint8Array;
  /** Where profile ids in board files are looked up. Default resources/profiles. */
  profilesDir?: string;
  /**
   * The controller this bench's adapters emulate (`sim-adapter.json` in a data folder): any
   * fields of the adapter profile, the rest at their defaults. None: the defaults.
   */
  adapterFile?: string;
}

/** A change on the bench, for views that follow it. */
export type BenchChange = { kind: 'board'; board: BoardView } | { kind: 'removed'; id: string };

export class SimBenchError extends Error {
  override name = 'SimBenchError';
}

const identitySchema = z.object({
  serviceUuid: z.string(),
  psdiServiceUuid: z.string(),
  psdiCharacteristicUuid: z.string(),
  psdi: z.string(),
  committedAt: z.number(),
});
const slotImageSchema = z.object({
  version: z.string(),
  hash: z.string(),
  size: z.number(),
  corrupt: z.boolean().optional(),
});
const mcumgrFlashSchema = z.object({
  primary: slotImageSchema,
  secondary: slotImageSchema.optional(),
  confirmed: z.boolean(),
  pending: z.enum(['test', 'permanent']).optional(),
  settings: z.record(z.string(), z.string()),
});
const hexBytes = z
  .string()
  .regex(/^(?:[0-9a-f]{2})*$/)
  .transform((hex) => new Uint8Array(Buffer.from(hex, 'hex')));
const bondSchema = z.object({
  ltk: hexBytes,
  ediv: z.number().int(),
  rand: hexBytes,
  authenticated: z.boolean(),
  sc: z.boolean(),
  keySize: z.number().int(),
  central: z
    .object({ irk: hexBytes, address: z.string(), type: z.enum(['public', 'random']) })
    .optional(),
});
const boardBondsSchema = z.record(z.string(), bondSchema);
const stateFileSchema = z.object({
  version: z.literal(1),
  boards: z.record(z.string(), identitySchema),
  /** The MCUmgr boards' flash: slots, MCUboot's flags, saved settings (absent in older files). */
  mcumgr: z.record(z.string(), mcumgrFlashSchema).default({}),
  /**
   * Each board's bonds by the central's address in clear, as files written before the bonds
   * were sealed kept them: read, and taken out of the file at its next write.
   */
  bonds: z.record(z.string(), boardBondsSchema).default({}),
  /**
   * Each board's bonds by the central's address, as Zephyr keeps them in its settings: JSON
   * sealed under the flash key (base64), the board's id bound in.
   */
  sealedBonds: z.record(z.string(), z.string()).default({}),
});
type StateFile = z.output<typeof stateFileSchema>;

interface Slot {
  boards: Set<SimBoard>;
  timer: Timer | null;
  nextAt: number;
}

export class SimulatedBench implements RadioHost<SimBoard> {
  readonly clock: Clock;
  private readonly seed: number;
  private readonly stateFile: string | undefined;
  private readonly flashKey: Uint8Array | undefined;
  /** What every controller of this bench starts from (`adapterFile`), before its own profile. */
  readonly controllerProfile: AdapterProfileInput;
  private readonly profilesDir: string | undefined;
  private profiles: Map<string, ProvisioningProfile> | undefined;
  private readonly identities: Map<string, CommittedIdentity>;
  private readonly mcumgrFlash: Map<string, McumgrFlash>;
  private readonly bondFlash: Map<string, Map<string, BoardBond>>;
  private readonly boardsById = new Map<string, SimBoard>();
  private readonly slots = new Map<number, Slot>();
  private readonly radios = new Set<VirtualController<SimBoard>>();
  private readonly byAddress = new Map<string, SimBoard>();
  /** Encoded once per advertisement object: the board builds a new one only when it changes. */
  private readonly payloads = new WeakMap<object, AdvertisingPayloads>();
  private readonly listeners = new Set<(change: BenchChange) => void>();
  private adapter: AdapterState = 'poweredOn';
  private closed = false;
  /** The state file as this bench last read or wrote it, and when it last looked. */
  private stateStamp: string | undefined;
  private stateLookedAt = -Infinity;
  /** Each board's entries in the file as this bench last saw them, to tell another's change. */
  private readonly seenIdentities = new Map<string, string>();
  private readonly seenBonds = new Map<string, string>();

  constructor(options: SimulatedBenchOptions = {}) {
    this.clock = options.clock ?? wallClock();
    this.seed = options.seed ?? 1;
    this.stateFile = options.stateFile;
    this.flashKey = options.flashKey;
    this.profilesDir = options.profilesDir;
    this.controllerProfile = readAdapterFile(options.adapterFile);
    this.stateStamp = this.stateFile && fileStamp(this.stateFile);
    const state = this.readState();
    this.noteSeen(state);
    this.identities = new Map(Object.entries(state.boards));
    this.mcumgrFlash = new Map(Object.entries(state.mcumgr));
    this.bondFlash = new Map();
    for (const id of new Set([...Object.keys(state.bonds), ...Object.keys(state.sealedBonds)])) {
      const opened = this.unsealBonds(state, id)?.bonds;
      if (opened) this.bondFlash.set(id, new Map(Object.entries(opened)));
    }
    // Bonds an older version left in clear come out of the file now, not at the next pairing.
    if (Object.keys(state.bonds).length) this.writeState(undefined, () => undefined);
  }

  /** Loads a board file (`{ "boards": [...] }`); all its boards or none. */
  loadBoardFile(path: string): BoardView[] {
    return this.addDefinitions(readBoardFile(path, { profiles: () => this.profileMap() }));
  }

  /** Loads board-file JSON text; `source` names it in errors. */
  loadBoards(text: string, source = 'boards.json'): BoardView[] {
    return this.addDefinitions(parseBoardFile(text, { source, profiles: () => this.profileMap() }));
  }

  /** Adds one board description (with `count`, a tray of them). */
  addBoard(spec: BoardSpecInput, source = 'board'): BoardView[] {
    return this.addDefinitions(
      boardsFromJson({ boards: [spec] }, { source, profiles: () => this.profileMap() }),
    );
  }

  removeBoard(id: string): void {
    const board = this.get(id);
    board.dispose();
    this.boardsById.delete(id);
    this.byAddress.delete(board.address);
    const slot = this.slots.get(board.intervalMs);
    slot?.boards.delete(board);
    if (slot && !slot.boards.size) {
      if (slot.timer) this.clock.clearTimeout(slot.timer);
      this.slots.delete(board.intervalMs);
    }
    this.publish({ kind: 'removed', id });
  }

  boards(): BoardView[] {
    return [...this.boardsById.values()].map((b) => b.view());
  }

  board(id: string): SimBoard | undefined {
    return this.boardsById.get(id);
  }

  view(id: string): BoardView {
    return this.get(id).view();
  }

  pressButton(id: string, buttonId?: string): void {
    try {
      this.get(id).pressButton(buttonId);
    } catch (err) {
      throw err instanceof SimBenchError ? err : new SimBenchError((err as Error).message);
    }
  }

  /** Replaces a board's faults (fields missing from `faults` go back to none). */
  setFaults(id: string, faults: BoardFaultsInput): BoardView {
    const board = this.get(id);
    const parsed = faultsSchema.safeParse(faults);
    if (!parsed.success)
      throw new SimBenchError(describeIssues(parsed.error.issues, ['faults']).join('; '));
    board.setFaults(parsed.data);
    return board.view();
  }

  /** Erases what the board was provisioned with and reboots it blank. */
  factoryReset(id: string): BoardView {
    const board = this.get(id);
    try {
      board.factoryReset();
    } catch (err) {
      throw new SimBenchError((err as Error).message);
    }
    return board.view();
  }

  adapterState(): AdapterState {
    return this.adapter;
  }

  /** Switches the simulated adapter (e.g. `poweredOff` to see how the app copes). */
  setAdapterState(state: AdapterState): void {
    this.adapter = state;
    for (const radio of this.radios) radio.adapterStateChanged();
  }

  /** A fresh LE controller on this bench: one per simulated central (noble opens it as its socket). */
  createController(profile: AdapterProfileInput = {}): VirtualController<SimBoard> {
    if (this.closed) throw new SimBenchError('the simulated bench is closed');
    const parsed = adapterProfileSchema.safeParse({ ...this.controllerProfile, ...profile });
    if (!parsed.success)
      throw new SimBenchError(`adapter profile: ${describeIssues(parsed.error.issues).join('; ')}`);
    return new VirtualController(this, parsed.data);
  }

  onChange(listener: (change: BenchChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every timer and link; the bench cannot be used afterwards. */
  close(): void {
    this.closed = true;
    for (const radio of [...this.radios]) radio.dispose();
    for (const board of this.boardsById.values()) board.dispose();
    for (const slot of this.slots.values()) if (slot.timer) this.clock.clearTimeout(slot.timer);
    this.slots.clear();
    this.listeners.clear();
  }

  /** The board on the air under this address now; a board with privacy only under its RPA. */
  boardAt(address: string): SimBoard | undefined {
    const wanted = address.toLowerCase();
    const board = this.byAddress.get(wanted);
    if (board) return board.airAddress === wanted ? board : undefined;
    // A resolvable private address has 01 as its top bits (Vol 6, Part B, 1.3.2.2).
    if ((parseInt(wanted.slice(0, 2), 16) & 0xc0) !== 0x40) return undefined;
    for (const candidate of this.boardsById.values())
      if (candidate.airAddress === wanted) return candidate;
    return undefined;
  }

  attachRadio(radio: VirtualController<SimBoard>): void {
    this.radios.add(radio);
  }

  detachRadio(radio: VirtualController<SimBoard>): void {
    this.radios.delete(radio);
  }

  openPeer(board: SimBoard, link: Link, central: CentralIdentity): BoardPeer {
    this.followState(true);
    return new BoardPeer(board, link, central, () => this.clock.now());
  }

  /** Advertising runs only while some central scans: idle benches cost nothing. */
  scanningChanged(): void {
    const scanning = this.scanning();
    for (const [interval, slot] of this.slots) {
      if (scanning && !slot.timer) this.schedule(interval, slot, this.clock.now() + interval);
      if (!scanning && slot.timer) {
        this.clock.clearTimeout(slot.timer);
        slot.timer = null;
      }
    }
  }

  private get(id: string): SimBoard {
    const board = this.boardsById.get(id);
    if (!board) throw new SimBenchError(`no simulated board "${id}"`);
    return board;
  }

  private profileMap(): Map<string, ProvisioningProfile> {
    this.profiles ??= loadProfiles(this.profilesDir);
    return this.profiles;
  }

  private addDefinitions(defs: BoardDefinition[]): BoardView[] {
    if (this.closed) throw new SimBenchError('the simulated bench is closed');
    const clash = defs.find((d) => this.boardsById.has(d.id));
    if (clash)
      throw new SimBenchError(
        `${clash.source}: a board with address ${clash.address} is already on the bench`,
      );
    const scanning = this.scanning();
    return defs.map((def) => {
      const board = new SimBoard(def, {
        clock: this.clock,
        seed: hashSeed(this.seed, def.id),
        committed: this.identities.get(def.id),
        persist: (id, identity) => {
          if (identity) this.identities.set(id, identity);
          else this.identities.delete(id);
          this.writeState(id, (state) => {
            if (identity) state.boards[id] = identity;
            else delete state.boards[id];
          });
        },
        mcumgrFlash: this.mcumgrFlash.get(def.id),
        persistMcumgr: (id, flash) => {
          this.mcumgrFlash.set(id, flash);
          this.writeState(id, (state) => {
            state.mcumgr[id] = flash;
          });
        },
        bonds: this.bondFlash.get(def.id),
        persistBonds: (id, bonds) => {
          if (bonds.size) this.bondFlash.set(id, new Map(bonds));
          else this.bondFlash.delete(id);
          this.writeState(id, (state) => {
            const key = this.flashKey;
            if (!bonds.size) delete state.sealedBonds[id];
            else if (key)
              state.sealedBonds[id] = seal(
                key,
                Buffer.from(JSON.stringify(bondsJson(bonds))),
                id,
              ).toString('base64');
          });
        },
        follow: () => this.followState(true),
        changed: (b) => this.publish({ kind: 'board', board: b.view() }),
      });
      this.boardsById.set(def.id, board);
      this.byAddress.set(board.address.toLowerCase(), board);
      let slot = this.slots.get(board.intervalMs);
      if (!slot) {
        slot = { boards: new Set(), timer: null, nextAt: 0 };
        this.slots.set(board.intervalMs, slot);
        if (scanning) this.schedule(board.intervalMs, slot, this.clock.now() + board.intervalMs);
      }
      slot.boards.add(board);
      const view = board.view();
      this.publish({ kind: 'board', board: view });
      return view;
    });
  }

  /** One timer per interval slot; each tick every advertising board in it is heard once. */
  private schedule(interval: number, slot: Slot, at: number): void {
    slot.nextAt = at;
    const timer = this.clock.setTimeout(
      () => {
        this.followState(false);
        const listening = [...this.radios].filter((r) => r.scanning);
        for (const board of slot.boards) {
          if (!board.advertising) continue;
          const payloads = this.encoded(board);
          const rssi = board.rssi();
          for (const radio of listening) radio.advertisementHeard(board, payloads, rssi);
        }
        // Drift-free: the next slot is due one interval after this one was, however late it ran.
        if (slot.timer === timer)
          this.schedule(interval, slot, Math.max(slot.nextAt + interval, this.clock.now()));
      },
      Math.max(0, at - this.clock.now()),
    );
    slot.timer = timer;
  }

  private scanning(): boolean {
    return [...this.radios].some((r) => r.scanning);
  }

  private encoded(board: SimBoard): AdvertisingPayloads {
    const ad = board.advertisement();
    // The board rebuilds its advertisement only when it changes; its UUID list is the marker.
    let payloads = this.payloads.get(ad.serviceUuids);
    if (!payloads) {
      payloads = encodeAdvertisement(ad, board.connectable);
      this.payloads.set(ad.serviceUuids, payloads);
    }
    return payloads;
  }

  private publish(change: BenchChange): void {
    for (const listener of this.listeners) listener(change);
  }

  private readState(): StateFile {
    const empty = { version: 1 as const, boards: {}, mcumgr: {}, bonds: {}, sealedBonds: {} };
    if (!this.stateFile || !existsSync(this.stateFile)) return empty;
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.stateFile, 'utf8'));
    } catch (err) {
      throw new SimBenchError(
        `${this.stateFile}: not a readable bench state file: ${(err as Error).message}`,
      );
    }
    const parsed = stateFileSchema.safeParse(json);
    if (!parsed.success)
      throw new SimBenchError(
        `${this.stateFile}: ${describeIssues(parsed.error.issues).join('; ')}`,
      );
    return parsed.data;
  }

  /**
   * Takes up what another process (the app, another command) wrote to its copy of this bench's
   * boards: a board provisioned or bonded there is provisioned or bonded here, as one physical
   * board between two stations would be. Looked at on connect (`now`) and at most every
   * FOLLOW_MS while advertising; a board this process holds a link to waits for its next look.
   */
  private followState(now: boolean): void {
    const file = this.stateFile;
    if (!file) return;
    if (!now && this.clock.now() - this.stateLookedAt < FOLLOW_MS) return;
    this.stateLookedAt = this.clock.now();
    const stamp = fileStamp(file);
    if (stamp === this.stateStamp) return;
    let state: StateFile;
    try {
      state = this.readState();
    } catch {
      return; // Written whole by rename, so unreadable means damaged: the next write says so.
    }
    let behind = false;
    for (const [id, board] of this.boardsById) {
      const bondsText = bondsEntryText(state, id);
      if ((this.seenBonds.get(id) ?? NO_ENTRY) !== bondsText) {
        // Without the key, or under another key, the file says nothing of the bonds: own kept.
        const readable = this.flashKey && this.unsealBonds(state, id);
        if (readable) {
          const bonds = new Map(Object.entries(readable.bonds));
          board.adoptBonds(bonds);
          if (bonds.size) this.bondFlash.set(id, bonds);
          else this.bondFlash.delete(id);
        }
        this.seenBonds.set(id, bondsText);
      }
      const identityText = identityEntryText(state, id);
      if ((this.seenIdentities.get(id) ?? NO_ENTRY) === identityText) continue;
      const identity = state.boards[id];
      if (!board.adoptCommitted(identity)) {
        behind = true;
        continue;
      }
      if (identity) this.identities.set(id, identity);
      else this.identities.delete(id);
      this.seenIdentities.set(id, identityText);
    }
    if (!behind) this.stateStamp = stamp;
  }

  /** Notes each board's entries as `state` has them. */
  private noteSeen(state: StateFile): void {
    for (const id of Object.keys(state.boards))
      this.seenIdentities.set(id, identityEntryText(state, id));
    for (const id of new Set([...Object.keys(state.bonds), ...Object.keys(state.sealedBonds)]))
      this.seenBonds.set(id, bondsEntryText(state, id));
  }

  /**
   * Board `id`'s bonds as the file has them: in clear (an older file), or sealed and opened with
   * the flash key; none without the key or when its entry does not open (sealed under another
   * key), where a board starts with none, as a board whose flash was erased.
   */
  private unsealBonds(
    state: StateFile,
    id: string,
  ): { bonds: z.output<typeof boardBondsSchema> } | undefined {
    const sealed = state.sealedBonds[id];
    if (sealed === undefined) return { bonds: state.bonds[id] ?? {} };
    const key = this.flashKey;
    const plain = key && unseal(key, Buffer.from(sealed, 'base64'), id);
    const parsed = plain && boardBondsSchema.safeParse(JSON.parse(plain.toString('utf8')));
    return parsed?.success ? { bonds: parsed.data } : undefined;
  }

  /**
   * Like flash: written and synced before the board answers the commit. Per board, under the
   * file's lock, on the file as it is now: another process's boards keep what it wrote. Bonds
   * in clear (an older file) are sealed on the way, or dropped without a key: no station key
   * stays in clear.
   */
  private writeState(id: string | undefined, change: (state: StateFile) => void): void {
    const file = this.stateFile;
    if (!file) return;
    withFileLockSync(file, () => {
      const state = this.readState();
      change(state);
      const key = this.flashKey;
      for (const [id, bonds] of Object.entries(state.bonds))
        if (key && !(id in state.sealedBonds))
          state.sealedBonds[id] = seal(
            key,
            Buffer.from(JSON.stringify(bondsJson(new Map(Object.entries(bonds))))),
            id,
          ).toString('base64');
      const written = {
        version: 1,
        boards: state.boards,
        ...(Object.keys(state.mcumgr).length ? { mcumgr: state.mcumgr } : {}),
        ...(Object.keys(state.sealedBonds).length ? { sealedBonds: state.sealedBonds } : {}),
      };
      writeFileAtomicSync(file, JSON.stringify(written, null, 2) + '\n', SECRET_FILE_MODE);
      // This board's entries are this bench's own; the others' are compared at the next look.
      if (id !== undefined) {
        this.seenIdentities.set(id, identityEntryText(state, id));
        this.seenBonds.set(id, bondsEntryText(state, id));
      }
    });
  }
}

/** How often an advertising bench looks at its state file for another process's changes. */
const FOLLOW_MS = 250;

/** A board the file has no entry for. */
const NO_ENTRY = 'null';

/** A board's committed identity in the state file, as text to compare. */
function identityEntryText(state: StateFile, id: string): string {
  return JSON.stringify(state.boards[id] ?? null);
}

/** A board's bonds in the state file, as text to compare. */
function bondsEntryText(state: StateFile, id: string): string {
  return JSON.stringify(state.sealedBonds[id] ?? state.bonds[id] ?? null);
}

/** One board's bonds as the state file seals them: keys in lowercase hex. */
function bondsJson(bonds: ReadonlyMap<string, BoardBond>) {
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  return Object.fromEntries(
    [...bonds].map(([address, { central, ...bond }]) => [
      address,
      {
        ...bond,
        ltk: hex(bond.ltk),
        rand: hex(bond.rand),
        ...(central && { central: { ...central, irk: hex(central.irk) } }),
      },
    ]),
  );
}

/**
 * A data folder's `sim-adapter.json`, so the simulated bench moves data as the station's own
 * dongle would (docs/decisions/simulated-bench.md, "The controller a data folder emulates"). A
 * file that is not one is refused naming the field, never ignored: a bench faster or slower than
 * the user set would mislead every time read off it.
 */
function readAdapterFile(file: string | undefined): AdapterProfileInput {
  if (!file || !existsSync(file)) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SimBenchError(`${basename(file)}: not JSON: ${(err as Error).message}`);
  }
  const parsed = adapterProfileSchema.partial().strict().safeParse(json);
  if (!parsed.success)
    throw new SimBenchError(
      describeIssues(parsed.error.issues)
        .map((line) => `${basename(file)}: ${line}`)
        .join('\n'),
    );
  // The fields as written, checked above: the ones left out stay each controller's to default.
  return json as AdapterProfileInput;
}
