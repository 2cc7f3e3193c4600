// One simulated prototype: what it advertises, its GATT table and values, its notifications and
// its faults. The parts live beside it: the provisioning state machine of its profile
// (board-provisioning.ts), its GATT table (board-gatt-table.ts), advertisement
// (board-advertisement.ts), notifications (board-notifications.ts), faults (board-faults.ts),
// privacy (board-privacy.ts) and what the bench shows of it (board-view.ts). Its GATT server
// (att-server.ts) moves bytes to and from it over a link; the board decides.
import { STATUS } from '../provisioning-profile';
import {
  BoardProvisioning,
  type CommittedIdentity,
  type ProvisioningStatus,
} from './board-provisioning';
import type { BoardFaults } from './board-schema';
import type { BoardDefinition } from './board-file';
import type { Clock, Timer } from '../../async/clock';
import { SeededRandom } from './random';
import { ATT_ERROR } from '../att/codes';
import { HCI_ERROR } from '../hci/codes';
import type { AttResult, AttValues, WriteResult } from './att-server';
import type { BoardBond, BoardIdentity } from './smp-responder';
import type { Characteristic, Service } from './board-service';
import type { GattServiceSpec } from './gatt-database';
import { MCUMGR_CHARACTERISTIC_UUID, MCUMGR_SERVICE_UUID } from '../mcumgr/service';
import { BoardMcumgr, factoryFlash, type McumgrFlash } from './board-mcumgr';
import {
  buildGattTable,
  characteristicKey as key,
  findCharacteristic,
  gattSpecs,
} from './board-gatt-table';
import { BoardNotifications } from './board-notifications';
import { boardIrk, privateAddress } from './board-privacy';
import { buildAdvertisement, type Advertisement } from './board-advertisement';
import { refusedAccess, refusesConnection } from './board-faults';
import { boardView, type BoardView } from './board-view';

/** The link's side of a connection (board-peer.ts), through which the board pushes. */
export interface BoardLink {
  notify(service: string, characteristic: string, data: Uint8Array): void;
  /** The link's ATT_MTU: a notification carries at most this less 3. */
  mtu(): number;
  /** The board ends the link (reboot, reset), with an HCI reason. */
  drop(reason: number): void;
}

export interface BoardContext {
  clock: Clock;
  seed: number;
  /** The identity this board committed before (from the bench's state file). */
  committed?: CommittedIdentity;
  /** Called synchronously with the new identity on commit and `null` on a factory reset. */
  persist(boardId: string, identity: CommittedIdentity | null): void;
  /** The MCUmgr server's flash as the board last wrote it (from the bench's state file). */
  mcumgrFlash?: McumgrFlash;
  /** Called synchronously whenever the MCUmgr server writes its flash. */
  persistMcumgr?(boardId: string, flash: McumgrFlash): void;
  /** The bonds the board kept before (from the bench's state file), by the central's address. */
  bonds?: ReadonlyMap<string, BoardBond>;
  /** Called synchronously whenever the board's bonds change. */
  persistBonds?(boardId: string, bonds: ReadonlyMap<string, BoardBond>): void;
  /** Takes up what another process wrote to the shared flash, before the bonds are read. */
  follow?(): void;
  changed(board: SimBoard): void;
}

export class SimBoard implements AttValues {
  readonly id: string;
  readonly address: string;
  readonly name: string;
  private readonly def: BoardDefinition;
  private readonly ctx: BoardContext;
  private readonly rng: SeededRandom;
  private readonly values = new Map<string, Uint8Array>();
  private readonly notifications: BoardNotifications;
  private faultState: BoardFaults;
  private matchingWrites = 0;
  private link: BoardLink | null = null;
  private rebootTimer: Timer | null = null;
  private readonly provisioning: BoardProvisioning | undefined;
  private readonly mcumgr: BoardMcumgr | undefined;
  /** MCUmgr requests taken and not yet answered, and when the last one's answer is ready. */
  private mcumgrPending = 0;
  private mcumgrBusyUntil = 0;
  private table: Service[] = [];
  private adCache: Advertisement | undefined;

  private readonly bonds: Map<string, BoardBond>;
  /** The board's Identity Resolving Key, with privacy on. */
  private readonly irk: Uint8Array | undefined;
  /** Reboots since the bench made the board: each one shows a new private address. */
  private boots = 0;
  /**
   * When the board last booted, on the bench clock: its rotation periods count from here, as
   * Zephyr's RPA timer starts when the board enables Bluetooth, not on the wall clock's quarter
   * hours (docs/decisions/simulated-bench.md, "Privacy").
   */
  private bootedAt: number;

  constructor(def: BoardDefinition, ctx: BoardContext) {
    this.def = def;
    this.ctx = ctx;
    this.id = def.id;
    this.bonds = new Map(ctx.bonds);
    this.address = def.address;
    this.name = def.name;
    this.rng = new SeededRandom(ctx.seed);
    this.faultState = def.faults;
    this.irk = boardIrk(def);
    this.bootedAt = ctx.clock.now();
    for (const s of def.services)
      for (const c of s.characteristics) this.values.set(key(s.uuid, c.uuid), c.value);
    this.notifications = new BoardNotifications({
      clock: ctx.clock,
      rng: this.rng,
      periodic: def.periodic,
      store: (service, characteristic, data) => this.values.set(key(service, characteristic), data),
      notify: (service, characteristic, data) => this.link?.notify(service, characteristic, data),
    });
    this.provisioning =
      def.provisioning &&
      new BoardProvisioning(def.provisioning, ctx.committed, {
        now: () => ctx.clock.now(),
        persist: (identity) => ctx.persist(this.id, identity),
        statusChanged: (status, changed) => this.statusChanged(status, changed),
        committed: (rebootMs) => this.reboot(rebootMs),
      });
    this.mcumgr =
      def.mcumgr &&
      new BoardMcumgr(def.mcumgr, ctx.mcumgrFlash ?? factoryFlash(def.mcumgr, def.name), {
        send: (frame) => this.sendMcumgr(frame),
        // The requests waiting or being handled hold a buffer each, the one handled one more
        // for its answer (Zephyr's MCUmgr buffer pool, CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT).
        full: () => this.mcumgrPending >= Math.max(1, (def.mcumgr?.bufferCount ?? 1) - 1),
        reboot: (ms) => this.reboot(ms),
        persist: (flash) => ctx.persistMcumgr?.(this.id, flash),
      });
    this.rebuild();
  }

  get addressType(): 'public' | 'random' {
    return this.def.addressType;
  }

  get mtu(): number {
    return this.def.mtu;
  }

  /** How the board answers a Pairing Request. */
  get pairing(): 'justWorks' | 'refuse' {
    return this.faultState.refusePairing ? 'refuse' : this.def.pairing;
  }

  /** How the board pairs and asks for security (the board file's `security` block). */
  get security(): BoardDefinition['security'] {
    return this.def.security;
  }

  /** The address on the air now: with privacy, the RPA of this boot's rotation period. */
  get airAddress(): string {
    const privacy = this.def.security.privacy;
    if (!privacy || !this.irk) return this.address;
    return privateAddress(
      this.irk,
      this.boots,
      Math.floor((this.ctx.clock.now() - this.bootedAt) / (privacy.rotateSeconds * 1000)),
    );
  }

  get airAddressType(): 'public' | 'random' {
    return this.irk ? 'random' : this.def.addressType;
  }

  /** What a board with privacy hands out in pairing: its IRK and identity address. */
  get identity(): BoardIdentity | undefined {
    return this.irk && { irk: this.irk, address: this.address, type: this.def.addressType };
  }

  /** Whether the board's bond table has room for no other central. */
  get bondTableFull(): boolean {
    return this.bonds.size >= this.def.security.bonding.maxBonds;
  }

  get intervalMs(): number {
    return this.def.advertising.intervalMs;
  }

  /**
   * The bond with a central, by its address. Kept in the simulated flash as Zephyr keeps bonds
   * in its settings, so a station that kept its side finds the board's after a restart; the
   * "forgot its bonds" fault erases them when it is set.
   */
  bondWith(central: string): BoardBond | undefined {
    // Another process's copy of this board may have bonded meanwhile (bench.ts `followState`).
    this.ctx.follow?.();
    return this.bonds.get(central);
  }

  keepBond(central: string, bond: BoardBond): void {
    this.bonds.set(central, bond);
    this.ctx.persistBonds?.(this.id, this.bonds);
  }

  get faults(): BoardFaults {
    return this.faultState;
  }

  get connected(): boolean {
    return this.link !== null;
  }

  /** Advertising now: not while connected (one link at a time) or rebooting. */
  get advertising(): boolean {
    return this.link === null && this.rebootTimer === null;
  }

  get connectable(): boolean {
    return this.def.advertising.connectable;
  }

  /** A fresh advertisement object (noble keeps and merges into the first it sees). */
  advertisement() {
    if (!this.adCache) {
      const identity = this.mcumgr?.identity;
      this.adCache = buildAdvertisement(this.def, [
        ...(identity ? [identity.serviceUuid] : []),
        ...this.provisioningAdvertised(),
      ]);
    }
    return { ...this.adCache, serviceData: [], solicitationServiceUuids: [] };
  }

  /** One RSSI sample: the mean plus seeded Gaussian noise, in the range radios report. */
  rssi(): number {
    const { mean, noise } = this.def.advertising.rssi;
    return Math.max(-127, Math.min(20, Math.round(mean + noise * this.rng.gaussian())));
  }

  /** Milliseconds an operation takes on this link: base plus seeded jitter, times slowLink. */
  latency(kind: 'connect' | 'operation'): number {
    const { connectMs, perOperationMs, jitterMs } = this.def.latency;
    const base = kind === 'connect' ? connectMs : perOperationMs;
    return (base + (jitterMs ? this.rng.next() * jitterMs : 0)) * this.faultState.slowLink;
  }

  /** Rolls the refuseConnection fault for one attempt. */
  refusesConnection(): boolean {
    return refusesConnection(this.faultState, this.rng);
  }

  attach(link: BoardLink): void {
    this.link = link;
    this.ctx.changed(this);
  }

  /** The link went down, whoever ended it: subscriptions end with it, as on a real board. */
  detach(): void {
    this.link = null;
    this.mcumgr?.linkDown();
    this.notifications.endSubscriptions();
    this.ctx.changed(this);
  }

  /** The current GATT table, as the board's ATT server lays it out. */
  services(): GattServiceSpec[] {
    return gattSpecs(this.table);
  }

  read(service: string, characteristic: string): AttResult {
    const c = this.find(service, characteristic);
    if (!c) return { ok: false, code: ATT_ERROR.attributeNotFound };
    if (!c.properties.includes('read')) return { ok: false, code: ATT_ERROR.readNotPermitted };
    const refused = refusedAccess(this.faultState, 'read', characteristic);
    if (refused) return refused;
    return {
      ok: true,
      data: c.read ? c.read() : (this.values.get(key(service, characteristic)) ?? new Uint8Array()),
    };
  }

  write(
    service: string,
    characteristic: string,
    data: Uint8Array,
    withoutResponse: boolean,
  ): WriteResult {
    const c = this.find(service, characteristic);
    if (!c) return { ok: false, code: ATT_ERROR.attributeNotFound };
    if (!c.properties.includes(withoutResponse ? 'writeWithoutResponse' : 'write'))
      return { ok: false, code: ATT_ERROR.writeNotPermitted };
    const refused = refusedAccess(this.faultState, 'write', characteristic);
    if (refused) return refused;
    const drop = this.faultState.dropLinkDuringWrite;
    if (drop && (drop.characteristic === undefined || drop.characteristic === characteristic)) {
      this.matchingWrites++;
      if (this.matchingWrites > drop.afterWrites) {
        this.faultState = { ...this.faultState, dropLinkDuringWrite: undefined };
        this.matchingWrites = 0;
        this.ctx.changed(this);
        return { ok: false, drop: true };
      }
    }
    if (data.length > c.maxLength)
      return { ok: false, code: ATT_ERROR.invalidAttributeValueLength };
    if (c.write) return c.write(data);
    this.values.set(key(service, characteristic), Uint8Array.from(data));
    return { ok: true, data: new Uint8Array() };
  }

  setNotify(service: string, characteristic: string, on: boolean): AttResult {
    const c = this.find(service, characteristic);
    if (!c) return { ok: false, code: ATT_ERROR.attributeNotFound };
    if (!c.properties.includes('notify') && !c.properties.includes('indicate'))
      return { ok: false, code: ATT_ERROR.requestNotSupported };
    this.notifications.subscribe(service, characteristic, on);
    return { ok: true, data: new Uint8Array() };
  }

  isSubscribed(service: string, characteristic: string): boolean {
    return this.notifications.isSubscribed(service, characteristic);
  }

  /** Presses a button: its characteristic takes the next payload and notifies if subscribed. */
  pressButton(buttonId?: string): void {
    const button =
      buttonId === undefined
        ? this.def.buttons[0]
        : this.def.buttons.find((b) => b.id === buttonId);
    if (!button)
      throw new Error(
        buttonId === undefined
          ? `board ${this.name} has no button`
          : `board ${this.name} has no button "${buttonId}"`,
      );
    this.notifications.emit(
      button.service,
      button.characteristic,
      `button:${button.id}`,
      button.payload,
    );
  }

  setFaults(faults: BoardFaults): void {
    if (faults.forgetBonds && this.bonds.size) {
      this.bonds.clear();
      this.ctx.persistBonds?.(this.id, this.bonds);
    }
    this.faultState = faults;
    this.matchingWrites = 0;
    this.ctx.changed(this);
  }

  /**
   * The bonds another process's copy of this board wrote to the shared flash (bench.ts follows
   * the state file): this board's at once, as they are read only when a central encrypts.
   * Nothing is written back.
   */
  adoptBonds(bonds: ReadonlyMap<string, BoardBond>): void {
    this.bonds.clear();
    for (const [central, bond] of bonds) this.bonds.set(central, bond);
  }

  /**
   * The identity another process's copy of this board committed (or erased) in the shared
   * flash, as if the board had rebooted with it; not while this process holds a link to it
   * (false: the link's own writes come first, and it is taken up after). Nothing is written back.
   */
  adoptCommitted(committed: CommittedIdentity | undefined): boolean {
    if (this.link) return false;
    this.provisioning?.adopt(committed);
    this.rebuild();
    this.ctx.changed(this);
    return true;
  }

  /** Forgets what was written and committed, as the firmware's reset would, and reboots. */
  factoryReset(): void {
    if (!this.provisioning) throw new Error(`board ${this.name} has no provisioning profile`);
    this.provisioning.reset();
    this.rebuild();
    this.reboot(0);
  }

  /** Stops the board's timers (removal from the bench). */
  dispose(): void {
    if (this.rebootTimer) this.ctx.clock.clearTimeout(this.rebootTimer);
    this.rebootTimer = null;
    this.notifications.stopTimers();
    this.link?.drop(HCI_ERROR.connectionTimeout);
  }

  view(): BoardView {
    return boardView(this.def, {
      advertisement: this.advertisement(),
      advertising: this.advertising,
      connected: this.connected,
      table: this.table,
      provisioning: this.provisioning?.view(),
      faults: this.faultState,
      bonds: [...this.bonds].map(([central, bond]) => ({
        central,
        identity: bond.central && { address: bond.central.address, type: bond.central.type },
      })),
    });
  }

  private find(service: string, characteristic: string): Characteristic | undefined {
    return findCharacteristic(this.table, service, characteristic);
  }

  private provisioningAdvertised(): string[] {
    return this.provisioning?.advertised() ?? [];
  }

  /** The GATT table for the current provisioning state. */
  private rebuild(): void {
    this.table = buildGattTable(this.def.services, this.provisioning, this.mcumgr);
    this.adCache = undefined;
  }

  /** Notifies a subscribed central of a new provisioning status; tells the bench either way. */
  private statusChanged(status: ProvisioningStatus, changed: boolean): void {
    const profile = this.def.provisioning?.profile;
    if (
      changed &&
      profile &&
      this.notifications.isSubscribed(profile.service, profile.characteristics.status)
    )
      this.link?.notify(
        profile.service,
        profile.characteristics.status,
        Uint8Array.of(STATUS[status]),
      );
    this.ctx.changed(this);
  }

  /** Drops the link after `ms` and comes back with the table and advertising of the new state. */
  private reboot(ms: number): void {
    if (this.rebootTimer) this.ctx.clock.clearTimeout(this.rebootTimer);
    this.rebootTimer = this.ctx.clock.setTimeout(() => {
      this.link?.drop(HCI_ERROR.remoteUserTerminated);
      this.mcumgr?.boot();
      this.boots++;
      this.bootedAt = this.ctx.clock.now();
      this.rebuild();
      this.rebootTimer = null;
      this.ctx.changed(this);
    }, ms);
    this.ctx.changed(this);
  }

  /**
   * An MCUmgr answer, after the board's processing time, as notifications of ATT_MTU − 3 bytes
   * (docs/mcumgr/protocol.md); lost, as on a real board, if nobody subscribed.
   */
  private sendMcumgr(frame: Uint8Array): void {
    // One work queue handles the requests, in turn (Zephyr's smp_process_request_packet).
    const now = this.ctx.clock.now();
    const ready = Math.max(now, this.mcumgrBusyUntil) + this.latency('operation');
    this.mcumgrBusyUntil = ready;
    this.mcumgrPending++;
    this.ctx.clock.setTimeout(() => {
      this.mcumgrPending--;
      const link = this.link;
      if (
        !link ||
        !this.notifications.isSubscribed(MCUMGR_SERVICE_UUID, MCUMGR_CHARACTERISTIC_UUID)
      )
        return;
      const size = link.mtu() - 3;
      for (let at = 0; at < frame.length; at += size)
        link.notify(MCUMGR_SERVICE_UUID, MCUMGR_CHARACTERISTIC_UUID, frame.subarray(at, at + size));
    }, ready - now);
  }
}
