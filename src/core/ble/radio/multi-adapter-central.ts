// A station's adapters as one BleCentral (docs/decisions.md, "Several adapters at once"): every
// adapter scans, a board is listed once with the adapter that hears it best, and each link goes
// through an adapter that heard the board and has a link free. Provisioning, dry runs and the
// explorer see one central; the bench page sees each adapter through `adapters()`.
import type { AdapterIdentity } from '../adapter-identity';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { confirmsWrites, formatAdapterSpec, type AdapterSpec } from '../adapter-spec';
import {
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type ConnectOptions,
  type ScanFilter,
  type ScanHandle,
} from '../port';
import { errorMessage } from '../../errors/message';
import { RSSI_MIN_DBM } from '../../bounds';
import { measuredRssi } from '../rssi';

/** Links a hardware adapter holds when nothing says otherwise: what common BLE 4.x/5 dongles manage. */
export const DEFAULT_LINK_CAPACITY = 5;
/**
 * An adapter within this many dB of the strongest one counts as hearing the board as well; among
 * those, the one with the fewest links in use takes the next link, so links spread.
 */
const SAME_SIGNAL_DB = 10;
/**
 * The longest a removal waits for a connect under way on its adapter (ms): the longest connect
 * the station starts (a firmware reset's reconnect, 15 s) ends well within it.
 */
const CONNECT_SETTLE_MS = 20_000;
/** A hearing older than this (ms, on the advertisements' clock) no longer decides "best". */
const STALE_MS = 5_000;

/**
 * Where adapter `index` of a station keeps its btsnoop files under `traceDir`: the first in
 * `traceDir` itself (where a one-adapter station always kept them), each other in a folder
 * named for its place and spec, e.g. `adapter-2-serial-dev-ttyACM0`.
 */
export function adapterTraceDir(traceDir: string, index: number, spec: string): string {
  return index === 0 ? traceDir : join(traceDir, adapterLabel(index, spec));
}

/** Adapter `index` of a station as a file-name part: `adapter-2-serial-dev-ttyACM0`. */
export function adapterLabel(index: number, spec: string): string {
  return `adapter-${index + 1}-${spec.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
}

export interface AdapterEntry {
  spec: AdapterSpec;
  central: BleCentral;
  /** Simultaneous links this adapter holds. */
  linkCapacity: number;
  /** Why the adapter could not be opened, when it could not. */
  reason?: string;
}

/** One adapter as the bench page and the status show it. */
export interface AdapterView {
  /**
   * This adapter while it is open: the handle a change names it by, never its place or its spec,
   * which two `sim` adapters share (docs/decisions/ble-and-hci.md, "Adapters addressed by id").
   */
  id: string;
  /** The spec's canonical text. */
  spec: string;
  state: AdapterState;
  reason?: string;
  linksInUse: number;
  linkCapacity: number;
  /** False on noble's OS bindings: their write results are not the board's answer. */
  writesConfirmed: boolean;
  /** The address the adapter uses on the air and where it came from, once settled. */
  identity?: AdapterIdentity;
}

interface Hearing {
  rssi: number;
  seenAt: number;
}

/** One open adapter: its links in use (each held from connect until it goes down). */
interface Slot {
  /** Unique across BLE processes: a window holding an older status cannot name another adapter. */
  id: string;
  entry: AdapterEntry;
  links: Set<BleConnection>;
  /** Connects under way, counted against the capacity: each settles when its connect does. */
  connecting: Set<Promise<void>>;
  off: () => void;
}

export class MultiCentral implements BleCentral {
  private readonly slots: Slot[] = [];
  /** Board id → adapter → its latest hearing. */
  private readonly heard = new Map<string, Map<Slot, Hearing>>();
  private readonly stateHandlers = new Set<(state: AdapterState) => void>();
  private readonly changeHandlers = new Set<() => void>();
  private current: AdapterState = 'unknown';

  constructor(entries: AdapterEntry[]) {
    if (!entries.length) throw new RangeError('a station opens at least one adapter');
    for (const entry of entries) this.slots.push(this.slot(entry));
    this.current = this.state();
  }

  /** `poweredOn` while any adapter is; otherwise the first adapter's state. */
  state(): AdapterState {
    const states = this.slots.map((s) => s.entry.central.state());
    return states.includes('poweredOn') ? 'poweredOn' : (states[0] ?? 'noAdapter');
  }

  /** What each adapter that is not powered on says of itself, spec first. */
  stateReason(): string | undefined {
    const reasons = this.adapters()
      .filter((view) => view.state !== 'poweredOn' && view.reason)
      .map((view) => `${view.spec}: ${view.reason}`);
    return reasons.length ? reasons.join('; ') : undefined;
  }

  onStateChange(handler: (state: AdapterState) => void): () => void {
    this.stateHandlers.add(handler);
    return () => this.stateHandlers.delete(handler);
  }

  /** Called when any adapter's state or links in use change, or an adapter comes or goes. */
  onAdaptersChange(handler: () => void): () => void {
    this.changeHandlers.add(handler);
    return () => this.changeHandlers.delete(handler);
  }

  adapters(): AdapterView[] {
    return this.slots.map(({ id, entry, links, connecting }) => ({
      id,
      spec: formatAdapterSpec(entry.spec),
      state: entry.central.state(),
      reason: entry.reason ?? entry.central.stateReason?.(),
      linksInUse: links.size + connecting.size,
      linkCapacity: entry.linkCapacity,
      writesConfirmed: confirmsWrites(entry.spec),
      identity: entry.central.identity?.(),
    }));
  }

  /**
   * One more adapter beside the others, which keep their links (docs/decisions.md, "Adapters
   * change without a restart"). A scan running now goes on without it; the next one hears it.
   */
  add(entry: AdapterEntry): void {
    this.slots.push(this.slot(entry));
    this.changed();
    this.stateChanged();
  }

  /** The links adapter `index` holds: the ones that drop when it is removed. */
  linksOf(index: number): ReadonlySet<BleConnection> {
    return this.slots[index]?.links ?? new Set();
  }

  /**
   * Once the connects under way on adapter `index` have ended, each as a link or an error, and
   * whoever awaited them has taken the link: the row counted them as links in use, so a removal
   * asks about them as links (docs/decisions/ble-and-hci.md, "Adapters addressed by id"). A
   * connect ends within its own timeout; `CONNECT_SETTLE_MS` bounds the wait where one does not.
   */
  async connectsSettled(index: number): Promise<void> {
    const slot = this.slots[index];
    if (!slot?.connecting.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(slot.connecting),
      new Promise((resolve) => (timer = setTimeout(resolve, CONNECT_SETTLE_MS))),
    ]);
    clearTimeout(timer);
    // The connect's own caller goes on in the microtasks after its settling: a macrotask later,
    // it has listed the link.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Where the adapter with `id` sits now; a clear error when it is no longer open. */
  indexOf(id: string): number {
    const index = this.slots.findIndex((slot) => slot.id === id);
    if (index < 0)
      throw new RangeError(
        'that adapter is no longer on the station (removed in another window?): look again',
      );
    return index;
  }

  /** Ends adapter `index`'s links and closes it; the other adapters go on as they were. */
  async remove(index: number): Promise<void> {
    const slot = this.slots[index];
    if (!slot) throw new RangeError(`the station has no adapter ${index + 1}`);
    if (this.slots.length === 1) throw new RangeError('a station keeps at least one adapter');
    this.slots.splice(index, 1);
    slot.off();
    for (const hearings of this.heard.values()) hearings.delete(slot);
    await Promise.all([...slot.links].map((link) => link.disconnect().catch(() => undefined)));
    await slot.entry.central.close().catch(() => undefined);
    this.changed();
    this.stateChanged();
  }

  async startScan(
    filter: ScanFilter,
    onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    const started = await Promise.allSettled(
      this.slots.map((slot) =>
        slot.entry.central.state() === 'noAdapter'
          ? Promise.reject(new BleError('scan', slot.entry.reason ?? 'no adapter'))
          : slot.entry.central.startScan(filter, (ad) => {
              if (this.hear(slot, ad))
                onAdvertisement({ ...ad, adapter: formatAdapterSpec(slot.entry.spec) });
            }),
      ),
    );
    const handles = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (!handles.length) {
      const first = started.find((r) => r.status === 'rejected');
      throw first?.reason instanceof BleError
        ? first.reason
        : new BleError('scan', `no adapter could scan: ${errorMessage(first?.reason)}`);
    }
    // An adapter removed while the scan ran is closed already: its stop may fail, the rest not.
    return { stop: async () => void (await Promise.allSettled(handles.map((h) => h.stop()))) };
  }

  /**
   * Through the adapter that hears `id` best and has a free link (spreading among those that
   * hear it about as well); the link is held from here until it goes down.
   */
  async connect(id: string, options?: ConnectOptions): Promise<BleConnection> {
    const hearings = this.heard.get(id);
    if (!hearings?.size)
      throw new BleError(
        'connect',
        `device ${id} has not been seen by a scan: scan for it first`,
        id,
      );
    const slot = this.pick(id, hearings);
    let settle = () => {};
    const attempt = new Promise<void>((resolve) => (settle = resolve));
    slot.connecting.add(attempt);
    this.changed();
    let link: BleConnection;
    try {
      link = withAdapter(
        await slot.entry.central.connect(id, options),
        formatAdapterSpec(slot.entry.spec),
        confirmsWrites(slot.entry.spec),
      );
    } catch (err) {
      slot.connecting.delete(attempt);
      settle();
      this.changed();
      throw err;
    }
    slot.connecting.delete(attempt);
    settle();
    slot.links.add(link);
    this.changed();
    link.onDisconnect(() => {
      if (slot.links.delete(link)) this.changed();
    });
    return link;
  }

  async close(): Promise<void> {
    for (const slot of this.slots) slot.off();
    await Promise.all(this.slots.map((s) => s.entry.central.close().catch(() => undefined)));
  }

  private slot(entry: AdapterEntry): Slot {
    return {
      id: randomUUID(),
      entry,
      links: new Set(),
      connecting: new Set(),
      off: entry.central.onStateChange(() => {
        this.changed();
        this.stateChanged();
      }),
    };
  }

  private pick(id: string, hearings: Map<Slot, Hearing>): Slot {
    const inUse = (slot: Slot) => slot.links.size + slot.connecting.size;
    // A resetting adapter is back within its central's wait for it (a transport reset).
    const usable = [...hearings]
      .filter(([slot]) => ['poweredOn', 'resetting'].includes(slot.entry.central.state()))
      .map(([slot, h]) => ({ slot, rssi: h.rssi }));
    const free = usable.filter(({ slot }) => inUse(slot) < slot.entry.linkCapacity);
    if (!free.length) {
      const why = usable.length
        ? `every adapter that hears it is using all its links (${usable
            .map(
              ({ slot }) =>
                `${formatAdapterSpec(slot.entry.spec)} ${inUse(slot)}/${slot.entry.linkCapacity}`,
            )
            .join(', ')}): wait for a link to end or add an adapter`
        : 'no adapter that heard it is powered on';
      throw new BleError('connect', `no link free for ${id}: ${why}`, id);
    }
    const best = Math.max(...free.map((c) => c.rssi));
    const close = free.filter((c) => c.rssi >= best - SAME_SIGNAL_DB);
    close.sort((a, b) => inUse(a.slot) - inUse(b.slot) || b.rssi - a.rssi);
    return close[0]!.slot;
  }

  /** Records the hearing; true when `slot` is now the adapter that hears the board best. */
  private hear(slot: Slot, ad: Advertisement): boolean {
    if (!this.slots.includes(slot)) return false;
    let hearings = this.heard.get(ad.id);
    if (!hearings) this.heard.set(ad.id, (hearings = new Map()));
    // An unmeasured signal (127, "not available") counts as the weakest, never the best.
    const rssi = measuredRssi(ad.rssi) ?? RSSI_MIN_DBM;
    hearings.set(slot, { rssi, seenAt: ad.seenAt });
    let best = slot;
    let bestRssi = rssi;
    for (const [other, h] of hearings) {
      if (other === slot || ad.seenAt - h.seenAt > STALE_MS) continue;
      if (h.rssi > bestRssi) {
        best = other;
        bestRssi = h.rssi;
      }
    }
    return best === slot;
  }

  private stateChanged(): void {
    const state = this.state();
    if (state === this.current) return;
    this.current = state;
    for (const handler of this.stateHandlers) handler(state);
  }

  private changed(): void {
    for (const handler of this.changeHandlers) handler();
  }
}

/** The link as the adapter's: named, and unconfirmed where the adapter cannot see refusals. */
function withAdapter(link: BleConnection, adapter: string, confirms: boolean): BleConnection {
  const writesConfirmed = confirms && link.writesConfirmed;
  return {
    get id() {
      return link.id;
    },
    get mtu() {
      return link.mtu;
    },
    writesConfirmed,
    adapter,
    discover: () => link.discover(),
    read: (s, c) => link.read(s, c),
    write: (s, c, data, options) => link.write(s, c, data, options),
    subscribe: (s, c, onValue) => link.subscribe(s, c, onValue),
    disconnect: () => link.disconnect(),
    onDisconnect: (handler) => link.onDisconnect(handler),
    // The link card's view and requests, where the adapter's HCI is visible.
    linkInfo: link.linkInfo && (() => link.linkInfo?.()),
    onLinkChange: link.onLinkChange && ((handler) => link.onLinkChange!(handler)),
    requestLink: link.requestLink && ((request) => link.requestLink!(request)),
  };
}
