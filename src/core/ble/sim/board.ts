// One simulated prototype: what it advertises, its GATT table and values, its notifications and
// its faults (the provisioning state machine of its profile is board-provisioning.ts). Its GATT
// server (att-server.ts) moves bytes to and from it over a link; the board decides.
import { formatUuid } from '../port';
import { STATUS } from '../provisioning-profile';
import {
  BoardProvisioning,
  type CommittedIdentity,
  type ProvisioningStatus,
  type ProvisioningView,
} from './board-provisioning';
import type { BoardFaults, NotificationPayload } from './board-schema';
import { encodeNumber } from '../values/value-format';
import type { BoardDefinition } from './board-file';
import type { Clock, Timer } from '../../async/clock';
import { SeededRandom } from './random';
import { ATT_ERROR } from '../att/codes';
import { HCI_ERROR } from '../hci/codes';
import type { AttResult, AttValues, WriteResult } from './att-server';
import type { BoardBond, BoardIdentity } from './smp-responder';
import { createHash } from 'node:crypto';
import { ah } from '../security-manager/crypto';
import type { Characteristic, Service } from './board-service';
import type { GattServiceSpec } from './gatt-database';
import { MCUMGR_CHARACTERISTIC_UUID, MCUMGR_SERVICE_UUID } from '../mcumgr/service';
import { BoardMcumgr, factoryFlash, type McumgrFlash } from './board-mcumgr';

/** The link's side of a connection (board-peer.ts), through which the board pushes. */
export interface BoardLink {
  notify(service: string, characteristic: string, data: Uint8Array): void;
  /** The link's ATT_MTU: a notification carries at most this less 3. */
  mtu(): number;
  /** The board ends the link (reboot, reset), with an HCI reason. */
  drop(reason: number): void;
}

export interface BoardView {
  id: string;
  address: string;
  name: string;
  source: string;
  advertising: {
    localName: string;
    /** Dashed form. */
    serviceUuids: string[];
    manufacturerData?: string;
    txPower?: number;
    intervalMs: number;
    rssiMean: number;
    /** False while connected or rebooting: a single-link peripheral stops advertising. */
    active: boolean;
  };
  connected: boolean;
  mtu: number;
  /** Dashed service UUIDs of the current GATT table. */
  services: string[];
  /** The board file's names of its services and characteristics, by noble-form UUID. */
  names: Record<string, string>;
  /** Each characteristic's longest value, by noble-form UUID: what a 0x0d refusal is measured by. */
  maxLengths: Record<string, number>;
  buttons: string[];
  provisioning?: ProvisioningView;
  faults: BoardFaults;
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
  changed(board: SimBoard): void;
}

const key = (service: string, characteristic: string) => `${service}/${characteristic}`;

export class SimBoard implements AttValues {
  readonly id: string;
  readonly address: string;
  readonly name: string;
  private readonly def: BoardDefinition;
  private readonly ctx: BoardContext;
  private readonly rng: SeededRandom;
  private readonly values = new Map<string, Uint8Array>();
  private readonly counters = new Map<string, number>();
  private readonly subscribed = new Set<string>();
  private readonly periodicTimers = new Map<string, Timer[]>();
  private faultState: BoardFaults;
  private matchingWrites = 0;
  private link: BoardLink | null = null;
  private rebootTimer: Timer | null = null;
  private readonly provisioning: BoardProvisioning | undefined;
  private readonly mcumgr: BoardMcumgr | undefined;
  private table: Service[] = [];
  private adCache:
    | {
        localName: string;
        serviceUuids: string[];
        manufacturerData?: Buffer;
        txPowerLevel?: number;
      }
    | undefined;

  private readonly bonds = new Map<string, BoardBond>();
  /** The board's Identity Resolving Key, with privacy on. */
  private readonly irk: Uint8Array | undefined;

  constructor(def: BoardDefinition, ctx: BoardContext) {
    this.def = def;
    this.ctx = ctx;
    this.id = def.id;
    this.address = def.address;
    this.name = def.name;
    this.rng = new SeededRandom(ctx.seed);
    this.faultState = def.faults;
    const privacy = def.security.privacy;
    this.irk =
      privacy &&
      (privacy.irk
        ? Uint8Array.from(Buffer.from(privacy.irk, 'hex'))
        : Uint8Array.from(createHash('sha256').update(`irk:${def.id}`).digest().subarray(0, 16)));
    for (const s of def.services)
      for (const c of s.characteristics) this.values.set(key(s.uuid, c.uuid), c.value);
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

  /** The address on the air now: with privacy, the RPA of the current rotation period. */
  get airAddress(): string {
    const privacy = this.def.security.privacy;
    if (!privacy || !this.irk) return this.address;
    return privateAddress(
      this.irk,
      Math.floor(this.ctx.clock.now() / (privacy.rotateSeconds * 1000)),
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
   * The bond with a central, by its address. Bonds live in RAM: the simulated flash keeps
   * provisioning, not keys; the "forgot its bonds" fault erases them when it is set.
   */
  bondWith(central: string): BoardBond | undefined {
    return this.bonds.get(central);
  }

  keepBond(central: string, bond: BoardBond): void {
    this.bonds.set(central, bond);
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
      const serviceUuids = [
        ...(identity ? [identity.serviceUuid] : []),
        ...this.provisioningAdvertised(),
        ...this.def.advertising.serviceUuids,
      ];
      this.adCache = {
        localName: this.def.name,
        serviceUuids: [...new Set(serviceUuids)],
        manufacturerData:
          this.def.advertising.manufacturerData !== undefined
            ? Buffer.from(this.def.advertising.manufacturerData, 'hex')
            : undefined,
        txPowerLevel: this.def.advertising.txPower,
      };
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
    const refuse = this.faultState.refuseConnection;
    return (
      refuse === true || (typeof refuse === 'number' && refuse > 0 && this.rng.next() < refuse)
    );
  }

  attach(link: BoardLink): void {
    this.link = link;
    this.ctx.changed(this);
  }

  /** The link went down, whoever ended it: subscriptions end with it, as on a real board. */
  detach(): void {
    this.link = null;
    this.mcumgr?.linkDown();
    for (const k of [...this.subscribed]) this.stopPeriodic(k);
    this.subscribed.clear();
    this.ctx.changed(this);
  }

  /** The current GATT table, as the board's ATT server lays it out. */
  services(): GattServiceSpec[] {
    return this.table.map((s) => ({
      uuid: s.uuid,
      characteristics: s.characteristics.map((c) => ({
        uuid: c.uuid,
        name: c.name,
        properties: c.properties,
        permissions: c.permissions,
        maxLength: c.maxLength,
      })),
    }));
  }

  read(service: string, characteristic: string): AttResult {
    const c = this.find(service, characteristic);
    if (!c) return { ok: false, code: ATT_ERROR.attributeNotFound };
    if (!c.properties.includes('read')) return { ok: false, code: ATT_ERROR.readNotPermitted };
    const refused = this.refused('read', characteristic);
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
    const refused = this.refused('write', characteristic);
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

  /** The `refuseAccess` fault's answer to this access, if it applies. */
  private refused(
    operation: 'read' | 'write',
    characteristic: string,
  ): { ok: false; code: number } | undefined {
    const refuse = this.faultState.refuseAccess;
    if (!refuse || refuse.operation !== operation) return undefined;
    if (refuse.characteristic !== undefined && refuse.characteristic !== characteristic)
      return undefined;
    return { ok: false, code: refuse.code };
  }

  setNotify(service: string, characteristic: string, on: boolean): AttResult {
    const c = this.find(service, characteristic);
    if (!c) return { ok: false, code: ATT_ERROR.attributeNotFound };
    if (!c.properties.includes('notify') && !c.properties.includes('indicate'))
      return { ok: false, code: ATT_ERROR.requestNotSupported };
    const k = key(service, characteristic);
    if (on && !this.subscribed.has(k)) {
      this.subscribed.add(k);
      this.startPeriodic(k);
    } else if (!on && this.subscribed.has(k)) {
      this.subscribed.delete(k);
      this.stopPeriodic(k);
    }
    return { ok: true, data: new Uint8Array() };
  }

  isSubscribed(service: string, characteristic: string): boolean {
    return this.subscribed.has(key(service, characteristic));
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
    this.emitValue(button.service, button.characteristic, `button:${button.id}`, button.payload);
  }

  setFaults(faults: BoardFaults): void {
    if (faults.forgetBonds) this.bonds.clear();
    this.faultState = faults;
    this.matchingWrites = 0;
    this.ctx.changed(this);
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
    for (const k of [...this.periodicTimers.keys()]) this.stopPeriodic(k);
    this.link?.drop(HCI_ERROR.connectionTimeout);
  }

  view(): BoardView {
    const ad = this.advertisement();
    return {
      id: this.id,
      address: this.address,
      name: this.name,
      source: this.def.source,
      advertising: {
        localName: ad.localName,
        serviceUuids: ad.serviceUuids.map(formatUuid),
        manufacturerData: this.def.advertising.manufacturerData,
        txPower: this.def.advertising.txPower,
        intervalMs: this.def.advertising.intervalMs,
        rssiMean: this.def.advertising.rssi.mean,
        active: this.advertising,
      },
      connected: this.connected,
      mtu: this.def.mtu,
      services: this.table.map((s) => formatUuid(s.uuid)),
      names: Object.fromEntries(
        this.table.flatMap((s) =>
          [s, ...s.characteristics].flatMap((a) => (a.name ? [[a.uuid, a.name]] : [])),
        ),
      ),
      maxLengths: Object.fromEntries(
        this.table.flatMap((s) => s.characteristics.map((c) => [c.uuid, c.maxLength])),
      ),
      buttons: this.def.buttons.map((b) => b.id),
      provisioning: this.provisioning?.view(),
      faults: this.faultState,
    };
  }

  private find(service: string, characteristic: string): Characteristic | undefined {
    return this.table
      .find((s) => s.uuid === service)
      ?.characteristics.find((c) => c.uuid === characteristic);
  }

  private provisioningAdvertised(): string[] {
    return this.provisioning?.advertised() ?? [];
  }

  /** The GATT table for the current provisioning state. */
  private rebuild(): void {
    const table: Service[] = this.def.services.map((s) => ({
      ...s,
      characteristics: [...s.characteristics],
    }));
    if (this.provisioning) table.push(this.provisioning.service());
    if (this.mcumgr) table.push(this.mcumgr.service());
    const identity = this.mcumgr?.identity;
    if (identity) {
      const psdi = Buffer.from(identity.psdi, 'utf8');
      table.push({
        uuid: identity.psdiServiceUuid,
        name: 'PSDI',
        characteristics: [
          {
            uuid: identity.psdiCharacteristicUuid,
            name: 'PSDI',
            properties: ['read'],
            value: psdi,
            maxLength: psdi.length,
            read: () => psdi,
          },
        ],
      });
    }
    this.table = table;
    this.adCache = undefined;
  }

  /** Notifies a subscribed central of a new provisioning status; tells the bench either way. */
  private statusChanged(status: ProvisioningStatus, changed: boolean): void {
    const profile = this.def.provisioning?.profile;
    if (
      changed &&
      profile &&
      this.subscribed.has(key(profile.service, profile.characteristics.status))
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
    this.ctx.clock.setTimeout(() => {
      const link = this.link;
      if (!link || !this.subscribed.has(key(MCUMGR_SERVICE_UUID, MCUMGR_CHARACTERISTIC_UUID)))
        return;
      const size = link.mtu() - 3;
      for (let at = 0; at < frame.length; at += size)
        link.notify(MCUMGR_SERVICE_UUID, MCUMGR_CHARACTERISTIC_UUID, frame.subarray(at, at + size));
    }, this.latency('operation'));
  }

  private startPeriodic(k: string): void {
    const [service, characteristic] = k.split('/') as [string, string];
    const timers: Timer[] = [];
    this.def.periodic.forEach((p, i) => {
      if (p.service !== service || p.characteristic !== characteristic) return;
      const tick = () => {
        this.emitValue(service, characteristic, `periodic:${i}`, p.payload);
        timers[i] = this.ctx.clock.setTimeout(tick, p.intervalMs);
      };
      timers[i] = this.ctx.clock.setTimeout(tick, p.intervalMs);
    });
    this.periodicTimers.set(k, timers);
  }

  private stopPeriodic(k: string): void {
    for (const t of this.periodicTimers.get(k) ?? []) if (t) this.ctx.clock.clearTimeout(t);
    this.periodicTimers.delete(k);
  }

  private emitValue(
    service: string,
    characteristic: string,
    source: string,
    payload: NotificationPayload,
  ): void {
    const data = this.payload(source, payload);
    this.values.set(key(service, characteristic), data);
    if (this.subscribed.has(key(service, characteristic)))
      this.link?.notify(service, characteristic, data);
  }

  private payload(source: string, payload: NotificationPayload): Uint8Array {
    if (payload.kind === 'fixed') return Buffer.from(payload.hex, 'hex');
    if (payload.kind === 'random') return this.rng.bytes(payload.bytes);
    if (payload.kind === 'drift') {
      const last = this.counters.get(source) ?? payload.start ?? (payload.min + payload.max) / 2;
      const moved = last + (this.rng.next() * 2 - 1) * payload.step;
      const float = payload.type.startsWith('float');
      const next = Math.min(payload.max, Math.max(payload.min, float ? moved : Math.round(moved)));
      this.counters.set(source, next);
      return encodeNumber(payload.type, next);
    }
    const n = (this.counters.get(source) ?? 0) + 1;
    this.counters.set(source, n);
    const out = Buffer.alloc(payload.bytes);
    out.writeUIntLE(n % 2 ** (8 * payload.bytes), 0, payload.bytes);
    return out;
  }
}

/**
 * The resolvable private address of one rotation period: prand (its top bits 01) fixed per
 * period from the IRK, then ah(IRK, prand) (Vol 6, Part B, 1.3.2.2).
 */
function privateAddress(irk: Uint8Array, period: number): string {
  const seed = createHash('sha256').update(irk).update(String(period)).digest();
  const prand = Uint8Array.of(seed[0]!, seed[1]!, (seed[2]! & 0x3f) | 0x40);
  const hash = ah(irk, prand);
  // Least significant octet first: the hash, then prand, whose last octet is the top one.
  return [...hash, ...prand]
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}
