// The BLE process's links: every link it holds, whoever opened it, with its board's GATT table
// and a log of everything done on it (docs/decisions.md, "The BLE process holds the links").
// Windows come and go; the book stays with the radio, so a reload or a second window renders
// the same links. An explorer link stays listed once down, dropped or ended by its user's
// Disconnect, so its card can reconnect with the log and the values it had, until dismissed.
import {
  BleError,
  sameUuid,
  type Advertisement,
  type BleConnection,
  type ServiceInfo,
} from '../port';
import type { LinkInfo, LinkRequest } from '../link-parameters';
import {
  subscriptionKey,
  type BoardLink,
  type GattLogEntry,
  type GattService,
  type LinkUser,
  type LoggedLink,
} from '../link-record';
import { errorMessage } from '../../errors/message';
import { describeLinkRequest, explainGattError, NOT_CONFIRMED } from './link-log-words';

/** Log entries kept per link, oldest dropped first. */
const LOG_KEEP = 1000;

const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

/** What the process knows of a board's attributes: names and, on the simulated bench, lengths. */
export interface BoardFacts {
  names(deviceId: string): Record<string, string> | undefined;
  characteristic(deviceId: string, uuid: string): { name?: string; maxLength?: number };
}

export interface LinkBookEvents {
  links(links: BoardLink[]): void;
  log(entry: GattLogEntry): void;
  link(connectionId: string, info: LinkInfo): void;
  notify(subscriptionId: string, data: Uint8Array): void;
}

interface Subscription {
  connectionId: string;
  key: string;
  off: () => Promise<void>;
}

interface Entry {
  record: BoardLink;
  /** The current link; undefined while dropped. */
  connection: BleConnection | undefined;
  /**
   * Its user ended it: it leaves the book when it goes down, or with `keep` (the explorer's
   * Disconnect) stays listed as ended by its user.
   */
  ending: false | 'forget' | 'keep';
  log: GattLogEntry[];
  offs: (() => void)[];
  /** The subscriptions the last link had (`service/characteristic`): the next one renews them. */
  renew: string[];
  /**
   * A characteristic whose writes and notifications are counted, not logged one by one (an
   * MCUmgr upload's hundreds of SMP chunks): one summary line says them when it ends.
   */
  quiet?: { characteristicUuid: string; writes: number; notifies: number; bytes: number };
}

export class LinkBook {
  private readonly entries = new Map<string, Entry>();
  private readonly subscriptions = new Map<string, Subscription>();
  private seq = 0;
  private next = 0;

  constructor(
    private readonly on: LinkBookEvents,
    private readonly facts: BoardFacts,
  ) {}

  /** A new link: listed, logged and followed until it goes down. */
  open(
    link: BleConnection,
    board: { deviceId: string; ad?: Advertisement; user: LinkUser; askedMtu?: number },
  ): string {
    // The explorer connecting a board whose card is still listed, down: the same card goes on,
    // its log and GATT table kept, as its Reconnect would.
    const kept =
      board.user === 'explorer'
        ? [...this.entries.values()].find(
            (e) =>
              !e.connection && e.record.user === 'explorer' && e.record.deviceId === board.deviceId,
          )
        : undefined;
    if (kept) {
      kept.record = { ...kept.record, openedAt: Date.now(), adapter: link.adapter };
      this.attach(kept, link, board.askedMtu, 'reconnected');
      return kept.record.connectionId;
    }
    const connectionId = `link-${++this.next}`;
    const { ad } = board;
    const entry: Entry = {
      record: {
        connectionId,
        adapter: link.adapter,
        deviceId: board.deviceId,
        address: ad?.address ?? board.deviceId,
        // A bonded board advertising under a private address is known by its identity
        // (docs/decisions.md, "Pairing as a phone does").
        identityAddress: ad && (ad.identityAddress ?? ad.address),
        name: ad?.localName,
        advertisedServices: ad?.serviceUuids ?? [],
        state: 'connected',
        openedAt: Date.now(),
        mtu: link.mtu,
        info: link.linkInfo?.(),
        user: board.user,
        services: [],
        subscriptions: [],
      },
      connection: undefined,
      ending: false,
      log: [],
      offs: [],
      renew: [],
    };
    this.entries.set(connectionId, entry);
    this.attach(entry, link, board.askedMtu, 'connected');
    return connectionId;
  }

  /**
   * The board of `connectionId` on a new link (a drop, or another MTU to ask for): the same
   * entry, so its log and GATT table stay; the old link is ended first if it is still up.
   */
  async reconnect(
    connectionId: string,
    connect: (deviceId: string) => Promise<BleConnection>,
    askedMtu: number | undefined,
  ): Promise<BleConnection> {
    const entry = this.entry(connectionId);
    const old = entry.connection;
    if (old) {
      this.detach(entry, 'reconnecting');
      await old.disconnect().catch(() => undefined);
    }
    try {
      const link = await connect(entry.record.deviceId);
      entry.record = { ...entry.record, openedAt: Date.now(), adapter: link.adapter };
      this.attach(entry, link, askedMtu, 'reconnected');
      return link;
    } catch (err) {
      const reason = `reconnect: ${errorMessage(err)}`;
      this.log(entry, { kind: 'error', message: reason });
      // No link now, whatever there was before: the card offers Reconnect again.
      entry.record = {
        ...entry.record,
        state: 'dropped',
        droppedAt: Date.now(),
        droppedReason: reason,
        endedByUser: undefined,
      };
      this.changed();
      throw err;
    }
  }

  /** The link as a BleConnection, or a BleError saying it is not up. */
  connection(connectionId: string): BleConnection {
    const found = this.entries.get(connectionId)?.connection;
    if (!found) throw new BleError('connect', `no open connection ${connectionId}; connect again`);
    return found;
  }

  /**
   * Ends a link its user is done with; it leaves the book once down, unless `keep` (an explorer
   * link then stays listed, ended by its user, for its card's Reconnect or Dismiss).
   */
  async disconnect(connectionId: string, keep = false): Promise<void> {
    const entry = this.entries.get(connectionId);
    if (!entry) return;
    if (!entry.connection) return this.forget(connectionId);
    entry.ending = keep ? 'keep' : 'forget';
    await entry.connection.disconnect();
  }

  /** Takes a dropped link off the list (its card's Dismiss). */
  forget(connectionId: string): void {
    const entry = this.entries.get(connectionId);
    if (!entry || entry.connection) return;
    this.entries.delete(connectionId);
    this.changed();
  }

  /**
   * Counts the writes and notifications on `characteristicUuid` instead of logging each, until
   * `summary` ends it with one line: "<summary>: 37 writes, 37 notifications, 24.6 kB".
   */
  quietLog(connectionId: string, characteristicUuid: string, summary?: string): void {
    const entry = this.entries.get(connectionId);
    if (!entry) return;
    if (summary === undefined) {
      entry.quiet = { characteristicUuid, writes: 0, notifies: 0, bytes: 0 };
      return;
    }
    const quiet = entry.quiet;
    entry.quiet = undefined;
    if (!quiet) return;
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    this.log(entry, {
      kind: 'write',
      characteristicUuid,
      message: `${summary}: ${count(quiet.writes, 'write')}, ${count(quiet.notifies, 'notification')}, ${(quiet.bytes / 1000).toFixed(1)} kB (not logged one by one)`,
    });
  }

  /** Whether a write or notification on the characteristic is counted rather than logged. */
  private counted(
    entry: Entry,
    characteristicUuid: string,
    kind: 'write' | 'notify',
    bytes: number,
  ) {
    const quiet = entry.quiet;
    if (!quiet || !sameUuid(quiet.characteristicUuid, characteristicUuid)) return false;
    if (kind === 'write') quiet.writes += 1;
    else quiet.notifies += 1;
    quiet.bytes += bytes;
    return true;
  }

  /**
   * Clears the link's log (its card's Clear log): the book keeps only a `cleared` entry, which
   * tells every window to drop what came before it, so no reload brings the log back.
   */
  clearLog(connectionId: string): void {
    const entry = this.entries.get(connectionId);
    if (!entry) return;
    entry.log = [];
    this.log(entry, { kind: 'cleared' });
  }

  /** The links of the adapters about to close. */
  connectedOn(connections: ReadonlySet<BleConnection>): BoardLink[] {
    return [...this.entries.values()]
      .filter((e) => e.connection && connections.has(e.connection))
      .map((e) => e.record);
  }

  /** The connected link to a board, by noble's id for it. */
  connectionOf(deviceId: string): string | undefined {
    for (const { connection, record } of this.entries.values())
      if (connection && record.deviceId === deviceId) return record.connectionId;
    return undefined;
  }

  list(): BoardLink[] {
    return [...this.entries.values()].map((e) => e.record);
  }

  logged(): LoggedLink[] {
    return [...this.entries.values()].map((e) => ({ ...e.record, log: [...e.log] }));
  }

  async discover(connectionId: string): Promise<ServiceInfo[]> {
    const entry = this.entry(connectionId);
    const services = await this.attempt(entry, undefined, undefined, (c) => c.discover());
    const names = this.facts.names(entry.record.deviceId) ?? {};
    const named = <A extends { uuid: string }>(a: A) =>
      names[a.uuid] === undefined ? a : { ...a, name: names[a.uuid] };
    const table: GattService[] = services.map((s) => ({
      ...named(s),
      characteristics: s.characteristics.map(named),
    }));
    entry.record = { ...entry.record, services: table };
    this.log(entry, {
      kind: 'discover',
      message: `${services.length} services, ${services.reduce((n, s) => n + s.characteristics.length, 0)} characteristics`,
    });
    this.changed();
    await this.renewSubscriptions(entry, services);
    return services;
  }

  /**
   * A reconnected link's notifications and indications come back on by themselves, as they were
   * before it dropped or was made again with a new MTU (docs/decisions.md, "Subscriptions
   * renewed after Reconnect"); one that fails is in the log and the others still renew.
   */
  private async renewSubscriptions(entry: Entry, services: ServiceInfo[]): Promise<void> {
    const keys = entry.renew;
    entry.renew = [];
    const { connectionId } = entry.record;
    for (const key of keys) {
      const [serviceUuid = '', characteristicUuid = ''] = key.split('/');
      const service = services.find((s) => sameUuid(s.uuid, serviceUuid));
      if (!service?.characteristics.some((c) => sameUuid(c.uuid, characteristicUuid))) continue;
      await this.subscribe(connectionId, serviceUuid, characteristicUuid, 'renewed').catch(
        () => undefined,
      );
    }
  }

  async read(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const entry = this.entry(connectionId);
    const data = await this.attempt(entry, serviceUuid, characteristicUuid, (c) =>
      c.read(serviceUuid, characteristicUuid),
    );
    this.log(entry, { kind: 'read', serviceUuid, characteristicUuid, data: hex(data) });
    return data;
  }

  async write(
    connectionId: string,
    serviceUuid: string,
    characteristicUuid: string,
    data: Uint8Array,
    withoutResponse: boolean,
  ): Promise<void> {
    const entry = this.entry(connectionId);
    const confirmed = this.connection(connectionId).writesConfirmed;
    await this.attempt(
      entry,
      serviceUuid,
      characteristicUuid,
      (c) => c.write(serviceUuid, characteristicUuid, data, { withoutResponse }),
      data.length,
    );
    if (this.counted(entry, characteristicUuid, 'write', data.length)) return;
    this.log(entry, {
      kind: 'write',
      serviceUuid,
      characteristicUuid,
      data: hex(data),
      message:
        [withoutResponse && 'without response', !confirmed && NOT_CONFIRMED]
          .filter(Boolean)
          .join('; ') || undefined,
      writeConfirmed: confirmed,
    });
  }

  async subscribe(
    connectionId: string,
    serviceUuid: string,
    characteristicUuid: string,
    message?: string,
  ): Promise<string> {
    const entry = this.entry(connectionId);
    const subscriptionId = `sub-${++this.next}`;
    const off = await this.attempt(entry, serviceUuid, characteristicUuid, (c) =>
      c.subscribe(serviceUuid, characteristicUuid, (data) => {
        if (!this.counted(entry, characteristicUuid, 'notify', data.length))
          this.log(entry, { kind: 'notify', serviceUuid, characteristicUuid, data: hex(data) });
        this.on.notify(subscriptionId, data);
      }),
    );
    const key = subscriptionKey(serviceUuid, characteristicUuid);
    this.subscriptions.set(subscriptionId, { connectionId, key, off });
    this.log(entry, { kind: 'subscribe', serviceUuid, characteristicUuid, message });
    this.setSubscriptions(entry);
    return subscriptionId;
  }

  /** Ends one subscription; by id, or the link's on one characteristic. */
  async unsubscribe(
    target:
      | { subscriptionId: string }
      | { connectionId: string; serviceUuid: string; characteristicUuid: string },
  ): Promise<void> {
    const ids =
      'subscriptionId' in target
        ? [target.subscriptionId]
        : [...this.subscriptions]
            .filter(
              ([, s]) =>
                s.connectionId === target.connectionId &&
                s.key === subscriptionKey(target.serviceUuid, target.characteristicUuid),
            )
            .map(([id]) => id);
    for (const id of ids) {
      const subscription = this.subscriptions.get(id);
      if (!subscription) continue;
      this.subscriptions.delete(id);
      const entry = this.entries.get(subscription.connectionId);
      if (entry?.connection) await subscription.off();
      if (!entry) continue;
      const [serviceUuid, characteristicUuid] = subscription.key.split('/');
      this.log(entry, {
        kind: 'subscribe',
        serviceUuid,
        characteristicUuid,
        message: 'unsubscribed',
      });
      this.setSubscriptions(entry);
    }
  }

  /** One link request; the log says what was asked and what the link is after it. */
  async requestLink(connectionId: string, request: LinkRequest): Promise<LinkInfo> {
    const entry = this.entry(connectionId);
    const link = this.connection(connectionId);
    if (!link.requestLink)
      throw new BleError('link', 'link controls need an HCI adapter (the simulated bench or hciN)');
    try {
      const info = await link.requestLink(request);
      // The card reads the RSSI every few seconds: that would bury the log.
      if (request.kind !== 'rssi')
        this.log(entry, {
          kind: 'link',
          message: describeLinkRequest(request.kind, info),
        });
      this.setInfo(entry, info);
      return info;
    } catch (err) {
      this.log(entry, { kind: 'error', message: errorMessage(err) });
      throw err;
    }
  }

  private attach(
    entry: Entry,
    link: BleConnection,
    askedMtu: number | undefined,
    verb: 'connected' | 'reconnected',
  ): void {
    const { connectionId } = entry.record;
    entry.connection = link;
    entry.ending = false;
    entry.record = {
      ...entry.record,
      state: 'connected',
      droppedAt: undefined,
      droppedReason: undefined,
      endedByUser: undefined,
      mtu: link.mtu,
      info: link.linkInfo?.(),
      subscriptions: [],
    };
    entry.offs = [
      link.onDisconnect((reason) => {
        if (entry.connection === link) this.down(entry, reason);
      }),
      ...(link.onLinkChange
        ? [
            link.onLinkChange((info) => {
              if (entry.connection !== link) return;
              this.setInfo(entry, info);
              this.on.link(connectionId, info);
            }),
          ]
        : []),
    ];
    const mtu =
      askedMtu === undefined ? `MTU ${link.mtu}` : `MTU ${link.mtu} (asked for ${askedMtu})`;
    this.log(entry, { kind: 'connect', message: verb === 'connected' ? mtu : `${verb}: ${mtu}` });
    this.changed();
  }

  /** Stops following the entry's current link (it is being replaced or has gone down). */
  private detach(entry: Entry, reason: string): void {
    for (const off of entry.offs) off();
    entry.offs = [];
    entry.connection = undefined;
    if (entry.record.subscriptions.length > 0) entry.renew = [...entry.record.subscriptions];
    for (const [id, s] of this.subscriptions)
      if (s.connectionId === entry.record.connectionId) this.subscriptions.delete(id);
    this.log(entry, { kind: 'disconnect', message: reason });
  }

  private down(entry: Entry, reason: string): void {
    const { connectionId } = entry.record;
    const ended = entry.ending;
    this.detach(entry, reason);
    if (ended === 'forget' || entry.record.user !== 'explorer') this.entries.delete(connectionId);
    else
      entry.record = {
        ...entry.record,
        state: 'dropped',
        droppedAt: Date.now(),
        droppedReason: ended ? undefined : reason,
        endedByUser: ended === 'keep' || undefined,
        subscriptions: [],
      };
    this.changed();
  }

  private entry(connectionId: string): Entry {
    const entry = this.entries.get(connectionId);
    if (!entry) throw new BleError('connect', `no open connection ${connectionId}; connect again`);
    return entry;
  }

  /** Runs one GATT operation, logging its failure on the link before passing it on. */
  private async attempt<T>(
    entry: Entry,
    serviceUuid: string | undefined,
    characteristicUuid: string | undefined,
    run: (connection: BleConnection) => Promise<T>,
    written?: number,
  ): Promise<T> {
    try {
      return await run(this.connection(entry.record.connectionId));
    } catch (err) {
      if (characteristicUuid !== undefined && entry.record.user === 'explorer')
        explainGattError(
          err,
          characteristicUuid,
          this.facts.characteristic(entry.record.deviceId, characteristicUuid),
          written,
        );
      this.log(entry, {
        kind: 'error',
        serviceUuid,
        characteristicUuid,
        message: errorMessage(err),
      });
      throw err;
    }
  }

  private setInfo(entry: Entry, info: LinkInfo): void {
    entry.record = { ...entry.record, info, mtu: info.mtu };
    this.changed();
  }

  private setSubscriptions(entry: Entry): void {
    const { connectionId } = entry.record;
    const keys = [...this.subscriptions.values()]
      .filter((s) => s.connectionId === connectionId)
      .map((s) => s.key);
    entry.record = { ...entry.record, subscriptions: [...new Set(keys)] };
    this.changed();
  }

  private log(entry: Entry, fields: Omit<GattLogEntry, 'connectionId' | 'seq' | 'at'>): void {
    const logged: GattLogEntry = {
      connectionId: entry.record.connectionId,
      seq: ++this.seq,
      at: Date.now(),
      ...fields,
    };
    entry.log.push(logged);
    if (entry.log.length > LOG_KEEP) entry.log.splice(0, entry.log.length - LOG_KEEP);
    this.on.log(logged);
  }

  private changed(): void {
    this.on.links(this.list());
  }
}
