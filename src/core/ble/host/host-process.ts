// The BLE process: owns noble over the station's adapters (hardware, or the simulated bench's
// virtual controllers) and answers the app's requests. It runs apart from the app so that a native crash in the radio stack ends only
// this process; the app sees it exit, reports it and can start a new one.
import {
  AttError,
  BleError,
  type AdapterState,
  type Advertisement,
  reportedUuid,
  type BleCentral,
  type BleConnection,
} from '../port';
import { formatAdapterSpec, parseAdapterSpec, type AdapterSpec } from '../adapter-spec';
import { adapterTraceDir, MultiCentral } from '../radio/multi-adapter-central';
import { openAdapter } from '../radio/open-adapters';
import { openBench, type BenchSource } from '../radio/open-station';
import { BondStore } from '../security-manager/bond-store';
import { folderBonds } from '../security-manager/folder-bonds';
import { BondKeyFileError, boardFlashKey } from '../security-manager/bond-key';
import { AdapterIdentityFile, type IdentityKeeper } from '../adapter-identity-store';
import type { Direction } from '../hci/btsnoop';
import { TraceWriter } from '../hci/trace-store';
import type { SimulatedBench } from '../sim/bench';
import { resolveName } from '../names/resolver';
import { LinkBook, type BoardFacts } from './link-book';
import { PairingPrompts } from './pairing-prompts';
import { UNATTENDED } from '../radio/hci-central';
import {
  dispatch,
  parseRequest,
  type CentralMethods,
  type HostConfig,
  type HostEvent,
  type HostMessage,
  type MethodHandlers,
  type Request,
  type SerializedError,
  type SimMethods,
} from './protocol';

/** Advertisements are sent in batches: one message per scan per window, not one per packet. */
const SCAN_BATCH_MS = 50;
/** How long to wait for the adapter to say what state it is in before reporting `unknown`. */
const STATE_WAIT_MS = 5_000;
/** Boards whose last advertisement is kept, to name the links made to them. */
const SEEN_KEEP = 2_000;

export interface ParentPort {
  send(message: HostMessage): void;
  onMessage(handler: (message: Request) => void): void;
}

/** What a process started without a data folder says of its bonds. */
const NO_BONDS = {
  kind: 'memory',
  reason: 'no bonds are kept: the BLE process was started without a data folder',
} as const;

/**
 * The data folder's bonds; a key file that cannot be used leaves them to this session's memory,
 * its words shown where the app shows the bonds (the Settings page, the Bonds panel).
 */
async function openBonds(dir: string): Promise<BondStore> {
  try {
    return await folderBonds(dir);
  } catch (err) {
    if (!(err instanceof BondKeyFileError)) throw err;
    return BondStore.inMemory(err.message);
  }
}

/** The data folder's generated adapter identities; one that cannot be read is set aside. */
async function openIdentities(dir: string): Promise<IdentityKeeper | undefined> {
  try {
    return await AdapterIdentityFile.open(dir);
  } catch {
    // An unreadable data folder: each adapter without an address gets one for this session.
    return undefined;
  }
}

export async function runHost(config: HostConfig, parent: ParentPort): Promise<void> {
  const bonds = config.bondsDir ? await openBonds(config.bondsDir) : undefined;
  const identities = config.bondsDir ? await openIdentities(config.bondsDir) : undefined;
  const emit = (event: HostEvent) => parent.send(event);
  const station = await Station.open(config, emit, bonds, identities);
  const { book } = station;
  bonds?.onChange(() => emit({ type: 'event', event: 'bonds' }));

  const scans = new Map<string, { stop: () => Promise<void>; flush: () => void }>();
  let next = 0;

  /** What a connect or a reconnect answers, once the link reports its end as an event. */
  const opened = (connectionId: string, link: BleConnection) => {
    link.onDisconnect((reason) =>
      emit({ type: 'event', event: 'disconnected', connectionId, reason }),
    );
    return {
      connectionId,
      mtu: link.mtu,
      writesConfirmed: link.writesConfirmed,
      adapter: link.adapter,
      link: link.linkInfo?.(),
    };
  };

  const centralCalls: MethodHandlers<CentralMethods> = {
    startScan: async (filter) => {
      const scanId = `scan-${++next}`;
      let pending: Advertisement[] = [];
      const flush = () => {
        if (!pending.length) return;
        emit({ type: 'event', event: 'scan', scanId, ads: pending });
        pending = [];
      };
      const timer = setInterval(flush, SCAN_BATCH_MS);
      const handle = await station.central.startScan(filter, (ad) => {
        station.saw(ad);
        pending.push(ad);
      });
      scans.set(scanId, {
        flush,
        stop: async () => {
          clearInterval(timer);
          await handle.stop();
        },
      });
      return { scanId };
    },
    stopScan: async ({ scanId }) => {
      const scan = scans.get(scanId);
      scans.delete(scanId);
      await scan?.stop();
    },
    connect: async ({ deviceId, timeoutMs, mtu, user }) => {
      const link = await station.central.connect(deviceId, { timeoutMs, mtu });
      const connectionId = book.open(link, {
        deviceId,
        ad: station.seen.get(deviceId),
        user,
        askedMtu: mtu,
      });
      return opened(connectionId, link);
    },
    reconnect: async ({ connectionId, mtu, timeoutMs }) => {
      const link = await book.reconnect(
        connectionId,
        (deviceId) => station.central.connect(deviceId, { timeoutMs, mtu }),
        mtu,
      );
      return opened(connectionId, link);
    },
    links: () => book.logged(),
    forgetLink: ({ connectionId }) => book.forget(connectionId),
    clearLog: ({ connectionId }) => book.clearLog(connectionId),
    quietLog: ({ connectionId, characteristicUuid, summary }) =>
      book.quietLog(connectionId, characteristicUuid, summary),
    updateConnection: ({ connectionId, parameters }) =>
      book.requestLink(connectionId, { kind: 'connectionParameters', parameters }),
    setPhy: ({ connectionId, phy }) => book.requestLink(connectionId, { kind: 'phy', phy }),
    setDataLength: ({ connectionId, octets }) =>
      book.requestLink(connectionId, { kind: 'dataLength', octets }),
    // A pairing asked to be MITM-protected with no IO capability named claims the station's
    // windows: a keyboard for the board's passkey and a display for a number to confirm
    // (docs/decisions/ble-and-hci.md, "Pairing as a phone does").
    pair: ({ connectionId, ...options }) =>
      book.requestLink(connectionId, {
        kind: 'pair',
        ...options,
        io: options.io ?? (options.mitm ? 'keyboardDisplay' : undefined),
      }),
    readRssi: ({ connectionId }) => book.requestLink(connectionId, { kind: 'rssi' }),
    discover: ({ connectionId }) => book.discover(connectionId),
    read: ({ connectionId, serviceUuid, characteristicUuid }) =>
      book.read(connectionId, serviceUuid, characteristicUuid),
    write: ({ connectionId, serviceUuid, characteristicUuid, data, withoutResponse }) =>
      book.write(connectionId, serviceUuid, characteristicUuid, data, withoutResponse),
    subscribe: async ({ connectionId, serviceUuid, characteristicUuid }) => ({
      subscriptionId: await book.subscribe(connectionId, serviceUuid, characteristicUuid),
    }),
    unsubscribe: ({ subscriptionId }) => book.unsubscribe({ subscriptionId }),
    unsubscribeFrom: (target) => book.unsubscribe(target),
    disconnect: ({ connectionId, keep }) => book.disconnect(connectionId, keep),
    addAdapter: async ({ spec }) => {
      await station.add(parseAdapterSpec(spec));
      return station.central.adapters();
    },
    removeAdapter: ({ id }) => station.remove(station.central.indexOf(id)),
    // A connect under way on the adapter is waited for, so the link it opens is named too.
    linksOnAdapter: async ({ id }) => {
      await station.central.connectsSettled(station.central.indexOf(id));
      return book.connectedOn(station.central.linksOf(station.central.indexOf(id)));
    },
    answerPairing: (answer) => station.prompts.answer(answer),
    pairingPrompts: () => station.prompts.list(),
    bonds: () => ({
      storage: bonds?.storage ?? NO_BONDS,
      bonds: (bonds?.summaries() ?? []).map((b) => ({ ...b, name: station.nameOf(b.board) })),
    }),
    // A link open to the board keeps its encryption until it drops; its next connection pairs
    // afresh (docs/decisions/ble-and-hci.md, "Bonds on the BLE bench").
    forgetBonds: ({ station: identity, board }) => ({
      forgotten: bonds?.forget(identity, board) ?? 0,
    }),
    keepTraceKeys: ({ keepKeys }) => station.keepTraceKeys(keepKeys),
    resetBonds: () => {
      if (bonds?.storage.kind !== 'damaged')
        return { setAsideAs: null, storage: bonds?.storage ?? NO_BONDS };
      const setAsideAs = bonds.resetDamaged();
      return { setAsideAs, storage: bonds.storage };
    },
  };

  parent.onMessage((request) => {
    void answer(request)
      .then((value) => parent.send({ type: 'response', id: request.id, ok: true, value }))
      .catch((err: unknown) =>
        parent.send({ type: 'response', id: request.id, ok: false, error: serialize(err) }),
      );
  });

  async function answer(request: Request): Promise<unknown> {
    const parsed = parseRequest(request);
    if (request.target === 'central') return dispatch(centralCalls, parsed);
    if (!station.bench)
      throw new Error('The simulated bench is off: the BLE process runs on hardware.');
    return dispatch(simHandlers(station.bench), parsed);
  }

  const state = await settledState(station.central);
  emit({ type: 'event', event: 'ready', state, adapters: station.central.adapters() });
}

/**
 * The process's radio: its adapters (added and removed one at a time beside the others), the
 * simulated bench while a `sim` adapter is open, a btsnoop trace per adapter, and the links.
 */
class Station {
  /** Boards heard, by noble's id: their last advertisement names a link made to them. */
  readonly seen = new Map<string, Advertisement>();
  /** Each adapter's trace, in the order of the adapters; a holder, so it can move folders. */
  private readonly traces: { writer?: TraceWriter }[] = [];
  /** Whether the traces keep the link keys: the user's choice, which can change meanwhile. */
  private keepKeys: boolean;
  private readonly specs: AdapterSpec[] = [];
  /**
   * Each open `sim` adapter's controller number, in the adapters' order: a new one takes the
   * lowest free, so two open at once never share an address, whichever was removed before.
   */
  private readonly simNumbers: (number | undefined)[] = [];
  central!: MultiCentral;
  readonly book: LinkBook;
  /** A pairing that needs the person asks through an event, answered by `answerPairing`. */
  readonly prompts: PairingPrompts;

  private constructor(
    private readonly config: HostConfig,
    emit: (event: HostEvent) => void,
    public bench: SimulatedBench | undefined,
    private readonly bonds: BondStore | undefined,
    private readonly identities: IdentityKeeper | undefined,
  ) {
    this.keepKeys = config.traceKeepKeys ?? false;
    this.book = new LinkBook(
      {
        links: (links) => emit({ type: 'event', event: 'links', links }),
        log: (entry) => emit({ type: 'event', event: 'gattLog', entry }),
        link: (connectionId, link) => emit({ type: 'event', event: 'link', connectionId, link }),
        notify: (subscriptionId, data) =>
          emit({ type: 'event', event: 'notify', subscriptionId, data }),
      },
      this.facts(),
    );
    this.prompts = new PairingPrompts(
      (prompt) => emit({ type: 'event', event: 'pairingPrompt', prompt }),
      (deviceId) => {
        const connectionId = this.book.connectionOf(deviceId);
        const record = this.book.list().find((r) => r.connectionId === connectionId);
        return (
          record && {
            connectionId: record.connectionId,
            board: record.name ?? record.address,
            inRun: record.user === 'provisioning',
          }
        );
      },
    );
  }

  static async open(
    config: HostConfig,
    emit: (event: HostEvent) => void,
    bonds: BondStore | undefined,
    identities: IdentityKeeper | undefined,
  ): Promise<Station> {
    const specs = config.adapters.map(parseAdapterSpec);
    const bench = specs.some((s) => s.kind === 'sim')
      ? await openBench(benchSource(config, bonds))
      : undefined;
    const station = new Station(config, emit, bench, bonds, identities);
    try {
      station.specs.push(...specs);
      const entries = await Promise.all(specs.map((spec, index) => station.open(spec, index)));
      station.central = new MultiCentral(entries);
    } catch (err) {
      bench?.close();
      throw err;
    }
    station.central.onStateChange((state) => emit({ type: 'event', event: 'state', state }));
    station.central.onAdaptersChange(() =>
      emit({ type: 'event', event: 'adapters', adapters: station.central.adapters() }),
    );
    return station;
  }

  /**
   * The name the process knows for the board at identity address `address`: a link's, a
   * scan's (a private address resolved to it included), or a simulated board's from its file.
   */
  nameOf(address: string): string | undefined {
    const link = this.book
      .list()
      .find((r) => r.name && (r.identityAddress ?? r.address) === address);
    const heard = [...this.seen.values()].find(
      (ad) => ad.localName && (ad.identityAddress ?? ad.address) === address,
    );
    return (
      link?.name ??
      heard?.localName ??
      this.bench?.boards().find((b) => b.address === address)?.name
    );
  }

  saw(ad: Advertisement): void {
    this.seen.delete(ad.id);
    this.seen.set(ad.id, ad);
    if (this.seen.size > SEEN_KEEP) this.seen.delete(this.seen.keys().next().value!);
  }

  async add(spec: AdapterSpec): Promise<void> {
    if (spec.kind === 'sim') this.bench ??= await openBench(benchSource(this.config, this.bonds));
    this.specs.push(spec);
    try {
      const entry = await this.open(spec, this.specs.length - 1);
      // Scans and links go to it once it has said what state it is in, as at start.
      await settledState(entry.central);
      this.central.add(entry);
    } catch (err) {
      this.specs.pop();
      this.simNumbers.pop();
      this.traces.pop()?.writer?.close();
      throw err;
    }
  }

  keepTraceKeys(keepKeys: boolean): void {
    this.keepKeys = keepKeys;
    for (const { writer } of this.traces) if (writer) writer.keepKeys = keepKeys;
  }

  /** Closes adapter `index` and answers the links that went with it. */
  async remove(index: number) {
    const dropped = this.book.connectedOn(this.central.linksOf(index));
    await this.central.remove(index);
    const [spec] = this.specs.splice(index, 1);
    this.simNumbers.splice(index, 1);
    this.traces.splice(index, 1)[0]?.writer?.close();
    // The adapters after it move up one place, and their traces to that place's folder.
    for (let i = index; i < this.specs.length; i++) {
      const holder = this.traces[i]!;
      const dir = this.traceDir(i, this.specs[i]!);
      if (!holder.writer || dir === undefined || holder.writer.dir === dir) continue;
      holder.writer.close();
      holder.writer = new TraceWriter(dir, { keepKeys: this.keepKeys });
    }
    if (spec?.kind === 'sim' && !this.specs.some((s) => s.kind === 'sim')) {
      this.bench?.close();
      this.bench = undefined;
    }
    return dropped;
  }

  private open(spec: AdapterSpec, index: number) {
    const dir = this.traceDir(index, spec);
    const holder = {
      writer: dir === undefined ? undefined : new TraceWriter(dir, { keepKeys: this.keepKeys }),
    };
    this.traces[index] = holder;
    let simIndex = 0;
    while (this.simNumbers.includes(simIndex)) simIndex += 1;
    this.simNumbers[index] = spec.kind === 'sim' ? simIndex : undefined;
    return openAdapter(spec, index, simIndex, {
      bench: this.bench,
      bonds: this.bonds,
      identities: this.identities,
      security: {
        ...UNATTENDED,
        userFor: (deviceId) => this.prompts.userFor(deviceId),
        onPairing: (deviceId, outcome) =>
          this.prompts.ended(deviceId, outcome instanceof Error ? outcome : undefined),
      },
      // Through the holder: removing an adapter before this one moves its trace.
      trace: () =>
        holder.writer &&
        ((direction: Direction, packet: Uint8Array) => holder.writer?.record(direction, packet)),
    });
  }

  /**
   * Where adapter `index` keeps its HCI traffic as btsnoop files, simulated bench and hardware
   * alike (docs/decisions.md, "HCI traces" and "Several adapters at once"); none without a
   * trace folder.
   */
  private traceDir(index: number, spec: AdapterSpec): string | undefined {
    const dir = this.config.traceDir;
    return dir === undefined ? undefined : adapterTraceDir(dir, index, formatAdapterSpec(spec));
  }

  /** A simulated board's names and longest values, from its board file; SIG names for any. */
  private facts(): BoardFacts {
    // By its identity address, or by the private address it is on the air under now (a board
    // with privacy, as the Zephyr Secure one): its names are its file's either way (issue 45).
    const board = (deviceId: string) => {
      const onAir = this.bench?.boardAt(deviceId.match(/../g)?.join(':') ?? deviceId)?.id;
      const identity = this.seen.get(deviceId)?.identityAddress;
      return this.bench
        ?.boards()
        .find(
          (b) =>
            b.address.replace(/:/g, '') === deviceId || b.id === onAir || b.address === identity,
        );
    };
    return {
      names: (deviceId) => board(deviceId)?.names,
      characteristic: (deviceId, uuid) => {
        const found = board(deviceId);
        return {
          name: resolveName(uuid, { board: found?.names, kinds: ['characteristic'] })?.name,
          maxLength: found?.maxLengths[reportedUuid(uuid)],
        };
      },
    };
  }
}

/** The bench of `config`, its boards' bonds sealed under the key of `bonds`. */
function benchSource(config: HostConfig, bonds: BondStore | undefined): BenchSource {
  return {
    boardFiles: config.boardFiles ?? [],
    stateFile: config.stateFile,
    flashKey: bonds && boardFlashKey(bonds.keySource),
    setupFile: config.setupFile,
    adapterFile: config.adapterFile,
    seed: config.seed,
  };
}

/** The simulated bench's controls, each the bench method of the same name. */
function simHandlers(bench: SimulatedBench): MethodHandlers<SimMethods> {
  return {
    boards: () => bench.boards(),
    loadBoardFile: ({ path }) => bench.loadBoardFile(path),
    loadBoards: ({ text, source }) => bench.loadBoards(text, source),
    removeBoard: ({ boardId }) => bench.removeBoard(boardId),
    pressButton: ({ boardId, buttonId }) => bench.pressButton(boardId, buttonId),
    setFaults: ({ boardId, faults }) => bench.setFaults(boardId, faults),
    factoryReset: ({ boardId }) => bench.factoryReset(boardId),
  };
}

/** noble reports `unknown` until its binding has opened the adapter; wait for a real answer. */
export function settledState(central: BleCentral): Promise<AdapterState> {
  if (central.state() !== 'unknown') return Promise.resolve(central.state());
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(central.state()), STATE_WAIT_MS);
    const off = central.onStateChange((state) => {
      if (state !== 'unknown') done(state);
    });
    function done(state: AdapterState) {
      clearTimeout(timer);
      off();
      resolve(state);
    }
  });
}

function serialize(err: unknown): SerializedError {
  if (err instanceof BleError) {
    const att = err.cause instanceof AttError ? err.cause : undefined;
    return {
      name: err.name,
      message: err.message,
      step: err.step,
      deviceId: err.deviceId,
      att: att && { code: att.code, request: att.request, handle: att.attHandle },
      link: err.link,
      detail: err.detail,
    };
  }
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}
