// A station's adapters as one BleCentral (docs/decisions.md, "Several adapters at once"): every
// adapter scans, a board is listed once with the adapter that hears it best, and each link goes
// through an adapter that heard the board and has a link free. Provisioning, dry runs and the
// explorer see one central; the bench page sees each adapter through `adapters()`.
import { join } from 'node:path';
import { confirmsWrites, formatAdapterSpec, type AdapterSpec } from './adapter-spec';
import {
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type ConnectOptions,
  type ScanFilter,
  type ScanHandle,
} from './port';
import { errorMessage } from '../errors/message';

/** Links a hardware adapter holds when nothing says otherwise: what common BLE 4.x/5 dongles manage. */
export const DEFAULT_LINK_CAPACITY = 5;
/**
 * An adapter within this many dB of the strongest one counts as hearing the board as well; among
 * those, the one with the fewest links in use takes the next link, so links spread.
 */
const SAME_SIGNAL_DB = 10;
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
  /** The spec's canonical text. */
  spec: string;
  state: AdapterState;
  reason?: string;
  linksInUse: number;
  linkCapacity: number;
  /** False on noble's OS bindings: their write results are not the board's answer. */
  writesConfirmed: boolean;
}

interface Hearing {
  rssi: number;
  seenAt: number;
}

export class MultiCentral implements BleCentral {
  private readonly links: number[];
  /** Board id → adapter index → its latest hearing. */
  private readonly heard = new Map<string, Map<number, Hearing>>();
  private readonly stateHandlers = new Set<(state: AdapterState) => void>();
  private readonly changeHandlers = new Set<() => void>();
  private readonly offs: (() => void)[];
  private current: AdapterState;

  constructor(private readonly entries: AdapterEntry[]) {
    if (!entries.length) throw new RangeError('a station opens at least one adapter');
    this.links = entries.map(() => 0);
    this.current = this.state();
    this.offs = entries.map((entry) =>
      entry.central.onStateChange(() => {
        this.changed();
        const state = this.state();
        if (state === this.current) return;
        this.current = state;
        for (const handler of this.stateHandlers) handler(state);
      }),
    );
  }

  /** `poweredOn` while any adapter is; otherwise the first adapter's state. */
  state(): AdapterState {
    const states = this.entries.map((e) => e.central.state());
    return states.includes('poweredOn') ? 'poweredOn' : states[0]!;
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

  /** Called when any adapter's state or links in use change. */
  onAdaptersChange(handler: () => void): () => void {
    this.changeHandlers.add(handler);
    return () => this.changeHandlers.delete(handler);
  }

  adapters(): AdapterView[] {
    return this.entries.map((entry, index) => ({
      spec: formatAdapterSpec(entry.spec),
      state: entry.central.state(),
      reason: entry.reason ?? entry.central.stateReason?.(),
      linksInUse: this.links[index]!,
      linkCapacity: entry.linkCapacity,
      writesConfirmed: confirmsWrites(entry.spec),
    }));
  }

  async startScan(
    filter: ScanFilter,
    onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    const started = await Promise.allSettled(
      this.entries.map((entry, index) =>
        entry.central.state() === 'noAdapter'
          ? Promise.reject(new BleError('scan', entry.reason ?? 'no adapter'))
          : entry.central.startScan(filter, (ad) => {
              if (this.hear(index, ad)) onAdvertisement({ ...ad, adapter: this.specOf(index) });
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
    return { stop: async () => void (await Promise.all(handles.map((h) => h.stop()))) };
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
    const index = this.pick(id, hearings);
    this.links[index]! += 1;
    this.changed();
    let link: BleConnection;
    try {
      link = await this.entries[index]!.central.connect(id, options);
    } catch (err) {
      this.release(index);
      throw err;
    }
    let held = true;
    link.onDisconnect(() => {
      if (!held) return;
      held = false;
      this.release(index);
    });
    return withAdapter(link, this.specOf(index), confirmsWrites(this.entries[index]!.spec));
  }

  async close(): Promise<void> {
    for (const off of this.offs) off();
    await Promise.all(this.entries.map((e) => e.central.close().catch(() => undefined)));
  }

  private pick(id: string, hearings: Map<number, Hearing>): number {
    // A resetting adapter is back within its central's wait for it (a transport reset).
    const usable = [...hearings]
      .filter(([index]) =>
        ['poweredOn', 'resetting'].includes(this.entries[index]!.central.state()),
      )
      .map(([index, h]) => ({ index, rssi: h.rssi }));
    const free = usable.filter(
      ({ index }) => this.links[index]! < this.entries[index]!.linkCapacity,
    );
    if (!free.length) {
      const why = usable.length
        ? `every adapter that hears it is using all its links (${usable
            .map(
              ({ index }) =>
                `${this.specOf(index)} ${this.links[index]}/${this.entries[index]!.linkCapacity}`,
            )
            .join(', ')}): wait for a link to end or add an adapter`
        : 'no adapter that heard it is powered on';
      throw new BleError('connect', `no link free for ${id}: ${why}`, id);
    }
    const best = Math.max(...free.map((c) => c.rssi));
    const close = free.filter((c) => c.rssi >= best - SAME_SIGNAL_DB);
    close.sort((a, b) => this.links[a.index]! - this.links[b.index]! || b.rssi - a.rssi);
    return close[0]!.index;
  }

  /** Records the hearing; true when `index` is now the adapter that hears the board best. */
  private hear(index: number, ad: Advertisement): boolean {
    let hearings = this.heard.get(ad.id);
    if (!hearings) this.heard.set(ad.id, (hearings = new Map()));
    hearings.set(index, { rssi: ad.rssi, seenAt: ad.seenAt });
    let bestIndex = index;
    let bestRssi = ad.rssi;
    for (const [other, h] of hearings) {
      if (other === index || ad.seenAt - h.seenAt > STALE_MS) continue;
      if (h.rssi > bestRssi) {
        bestIndex = other;
        bestRssi = h.rssi;
      }
    }
    return bestIndex === index;
  }

  private release(index: number): void {
    this.links[index] = Math.max(0, this.links[index]! - 1);
    this.changed();
  }

  private specOf(index: number): string {
    return formatAdapterSpec(this.entries[index]!.spec);
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
