// The simulated bench's LE controller: the object noble's `lib/hci-socket/hci.js` takes for its
// raw HCI socket, so noble's own host stack (HCI, ACL, L2CAP, ATT, SMP) runs above it exactly as
// over a Linux adapter. It answers HCI commands with Command Complete / Command Status / LE Meta
// events (Core Specification v5.3, Vol 4, Part E, 7), reports the bench's advertising, makes
// links to boards and carries their ACL data on the link model of `link.ts`, with the limits of
// its adapter profile (`adapter-profile.ts`).
import { EventEmitter } from 'node:events';
import {
  ADV_REPORT_TYPE,
  HCI_CMD,
  HCI_ERROR,
  HCI_EVENT,
  HCI_PACKET,
  HCI_VERSION,
  LE_SUBEVENT,
} from '../hci/codes';
import type { HciDevice, HciSocket } from '../hci/socket';
import { PHY_CODE, type Phy } from '../link-parameters';
import type { AdapterState } from '../port';
import type { AdapterProfile } from './adapter-profile';
import type { AdvertisingPayloads } from './advertising-data';
import type { Clock, Timer } from '../../async/clock';
import { Link } from './link';

/** A board as the controller's radio sees it. */
export interface RadioBoard {
  readonly address: string;
  readonly addressType: 'public' | 'random';
  /** The address on the air now: a resolvable private one for a board with privacy. */
  readonly airAddress: string;
  readonly airAddressType: 'public' | 'random';
  readonly connectable: boolean;
  /** Advertising now (not while connected or rebooting). */
  readonly advertising: boolean;
  readonly intervalMs: number;
  rssi(): number;
  /** Milliseconds from the first connect request the board hears until the link is up. */
  latency(kind: 'connect'): number;
  refusesConnection(): boolean;
}

/** What the controller needs from the bench it listens to. */
export interface RadioHost<B extends RadioBoard> {
  readonly clock: Clock;
  adapterState(): AdapterState;
  boardAt(address: string): B | undefined;
  attachRadio(radio: VirtualController<B>): void;
  detachRadio(radio: VirtualController<B>): void;
  scanningChanged(): void;
  /** The board's end of a new link (its GATT server, SMP, faults). */
  openPeer(board: B, link: Link, central: CentralIdentity): RadioPeer;
}

/** Who is connecting, as the board's SMP needs it for its confirm values. */
export interface CentralIdentity {
  address: string;
  addressType: 'public' | 'random';
}

/** The board's answer to LE Start Encryption (LL_ENC_REQ with the host's key). */
export type EncryptionVerdict = 'encrypted' | 'keyMissing' | 'micFailure';

/** What LE Start Encryption names the key by: EDIV and Rand (zero for an STK or an SC key). */
export interface KeyIdentity {
  ediv: number;
  rand: Buffer;
}

export interface RadioPeer {
  encryptionRequested(key: Buffer, identity: KeyIdentity): EncryptionVerdict;
  /** The link is encrypted: the board may now distribute keys. */
  encrypted(): void;
}

const CONNECTION_HANDLE_BASE = 0x0040;

/** One link and what the controller keeps about it beside the link model. */
interface LinkEntry<B> {
  link: Link;
  board: B;
  peer?: RadioPeer;
  latency: number;
  txPhy: Phy;
  rxPhy: Phy;
}

/** The PHYs this controller and every simulated board have (a common dongle's: 1M, 2M, Coded). */
const SUPPORTED_PHY_BITS = 0b111;

/** The PHY a preference bitmask settles on: the fastest offered, 1M when none (7.8.49). */
function chosenPhy(bits: number): Phy {
  if (bits & 0b010) return '2M';
  if (bits & 0b001 || bits === 0) return '1M';
  return 'coded';
}
/** The Bluetooth SIG company identifier of The Linux Foundation, as a virtual controller's. */
const MANUFACTURER = 0x05f1;

interface PendingConnection {
  address: string;
  addressType: 'public' | 'random';
  intervalRange: [number, number];
  supervisionTimeoutMs: number;
  timer: Timer | null;
}

function addressFromBytes(bytes: Buffer): string {
  return [...bytes]
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}

function addressBytes(address: string): Buffer {
  return Buffer.from(address.split(':').reverse().join(''), 'hex');
}

export class VirtualController<B extends RadioBoard = RadioBoard>
  extends EventEmitter
  implements HciSocket
{
  readonly profile: AdapterProfile;
  private readonly host: RadioHost<B>;
  private readonly links = new Map<number, LinkEntry<B>>();
  private pending: PendingConnection | null = null;
  private nextHandle = CONNECTION_HANDLE_BASE;
  private started = false;
  private disposed = false;
  private scanEnabled = false;
  private activeScan = true;
  private filterDuplicates = false;
  private readonly reported = new Set<string>();

  constructor(host: RadioHost<B>, profile: AdapterProfile) {
    super();
    this.host = host;
    this.profile = profile;
  }

  get scanning(): boolean {
    return this.started && this.scanEnabled && this.powered;
  }

  private get powered(): boolean {
    return !this.disposed && this.host.adapterState() === 'poweredOn';
  }

  // The socket interface noble's hci.js calls.

  bindRaw(devId = 0): number {
    return devId;
  }

  bindUser(devId = 0): number {
    return devId;
  }

  bindControl(): void {}

  isDevUp(): boolean {
    return this.powered;
  }

  setFilter(): void {}

  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    this.host.attachRadio(this);
  }

  stop(): void {
    this.dispose();
  }

  getDeviceList(): HciDevice[] {
    return [
      {
        devId: 0,
        devUp: this.powered,
        idVendor: null,
        idProduct: null,
        busNumber: null,
        deviceAddress: null,
      },
    ];
  }

  write(packet: Buffer): void {
    if (this.disposed || packet.length < 1) return;
    const type = packet[0];
    if (type === HCI_PACKET.command) this.command(packet);
    else if (type === HCI_PACKET.acl) this.acl(packet);
  }

  /** Leaves the bench: links end without air time, nothing more is reported. */
  dispose(): void {
    if (this.disposed) return;
    this.cancelPending();
    for (const { link } of [...this.links.values()]) link.abort(HCI_ERROR.localHostTerminated);
    this.disposed = true;
    this.scanEnabled = false;
    this.host.detachRadio(this);
    this.host.scanningChanged();
  }

  // What the bench tells the controller.

  /** One advertising event of `board` on the air (ADV_IND, then SCAN_RSP when scanning actively). */
  advertisementHeard(board: B, payloads: AdvertisingPayloads, rssi: number): void {
    if (!this.scanning) return;
    if (this.filterDuplicates) {
      if (this.reported.has(board.airAddress)) return;
      this.reported.add(board.airAddress);
    }
    const type = board.connectable ? ADV_REPORT_TYPE.advInd : ADV_REPORT_TYPE.advNonconnInd;
    this.advertisingReport(board, type, payloads.adv, rssi);
    if (this.activeScan && board.connectable)
      this.advertisingReport(board, ADV_REPORT_TYPE.scanRsp, payloads.scanResponse, rssi);
  }

  /** The bench's adapter was switched: off ends every link and pending connection. */
  adapterStateChanged(): void {
    if (this.powered) return;
    this.cancelPending(HCI_ERROR.hardwareFailure);
    for (const { link } of [...this.links.values()]) link.abort(HCI_ERROR.localHostTerminated);
  }

  // Commands.

  private command(packet: Buffer): void {
    if (packet.length < 4) return;
    const op = packet.readUInt16LE(1);
    const params = packet.subarray(4, 4 + packet[3]!);
    switch (op) {
      case HCI_CMD.reset:
        this.cancelPending();
        for (const { link } of [...this.links.values()]) link.abort(HCI_ERROR.localHostTerminated);
        this.scanEnabled = false;
        this.host.scanningChanged();
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.setEventMask:
      case HCI_CMD.leSetEventMask:
      case HCI_CMD.writeLeHostSupported:
      case HCI_CMD.leSetRandomAddress:
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.readLocalVersion: {
        const r = Buffer.alloc(9);
        r.writeUInt8(HCI_ERROR.success, 0);
        r.writeUInt8(HCI_VERSION.v5_3, 1);
        r.writeUInt16LE(0x0001, 2);
        r.writeUInt8(HCI_VERSION.v5_3, 4);
        r.writeUInt16LE(MANUFACTURER, 5);
        r.writeUInt16LE(0x0001, 7);
        return this.complete(op, r);
      }
      case HCI_CMD.readSupportedCommands:
        // Legacy scanning and connecting only: no extended-advertising bits set.
        return this.complete(op, Buffer.concat([Buffer.of(HCI_ERROR.success), Buffer.alloc(64)]));
      case HCI_CMD.readLeHostSupported:
        return this.complete(op, Buffer.of(HCI_ERROR.success, 0x01, 0x00));
      case HCI_CMD.leReadBufferSize: {
        const r = Buffer.alloc(4);
        r.writeUInt8(HCI_ERROR.success, 0);
        r.writeUInt16LE(this.profile.aclBufferSize, 1);
        r.writeUInt8(this.profile.aclBufferCount, 3);
        return this.complete(op, r);
      }
      case HCI_CMD.readBufferSize: {
        const r = Buffer.alloc(8);
        r.writeUInt8(HCI_ERROR.success, 0);
        r.writeUInt16LE(this.profile.aclBufferSize, 1);
        r.writeUInt16LE(this.profile.aclBufferCount, 4);
        return this.complete(op, r);
      }
      case HCI_CMD.readBdAddr:
        return this.complete(
          op,
          Buffer.concat([Buffer.of(HCI_ERROR.success), addressBytes(this.profile.address)]),
        );
      case HCI_CMD.leSetScanParameters:
        if (params.length < 7) return this.complete(op, Buffer.of(HCI_ERROR.invalidParameters));
        if (this.scanEnabled) return this.complete(op, Buffer.of(HCI_ERROR.commandDisallowed));
        this.activeScan = params[0] === 0x01;
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.leSetScanEnable:
        if (params.length < 2) return this.complete(op, Buffer.of(HCI_ERROR.invalidParameters));
        this.scanEnabled = params[0] === 0x01;
        this.filterDuplicates = params[1] === 0x01;
        this.reported.clear();
        this.host.scanningChanged();
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.leCreateConnection:
        return this.createConnection(op, params);
      case HCI_CMD.leCreateConnectionCancel:
        return this.cancelConnection(op);
      case HCI_CMD.disconnect:
        return this.disconnect(op, params);
      case HCI_CMD.leConnectionUpdate:
        return this.connectionUpdate(op, params);
      case HCI_CMD.leStartEncryption:
        return this.startEncryption(op, params);
      case HCI_CMD.leSetPhy:
        return this.setPhy(op, params);
      case HCI_CMD.leReadPhy: {
        const handle = params.length >= 2 ? params.readUInt16LE(0) : -1;
        const entry = this.links.get(handle);
        const r = Buffer.alloc(5);
        r.writeUInt8(entry ? HCI_ERROR.success : HCI_ERROR.unknownConnectionId, 0);
        r.writeUInt16LE(Math.max(0, handle), 1);
        r.writeUInt8(PHY_CODE[entry?.txPhy ?? '1M'], 3);
        r.writeUInt8(PHY_CODE[entry?.rxPhy ?? '1M'], 4);
        return this.complete(op, r);
      }
      case HCI_CMD.readRssi: {
        const handle = params.length >= 2 ? params.readUInt16LE(0) : -1;
        const entry = this.links.get(handle);
        const r = Buffer.alloc(4);
        r.writeUInt8(entry ? HCI_ERROR.success : HCI_ERROR.unknownConnectionId, 0);
        r.writeUInt16LE(Math.max(0, handle), 1);
        r.writeInt8(entry ? entry.board.rssi() : 0, 3);
        return this.complete(op, r);
      }
      default:
        return this.complete(op, Buffer.of(HCI_ERROR.unknownCommand));
    }
  }

  private createConnection(op: number, p: Buffer): void {
    if (p.length < 25) return this.status(op, HCI_ERROR.invalidParameters);
    if (this.pending) return this.status(op, HCI_ERROR.commandDisallowed);
    if (this.links.size >= this.profile.maxConnections)
      return this.status(op, HCI_ERROR.connectionLimitExceeded);
    const pending: PendingConnection = {
      addressType: p[5] === 0x01 ? 'random' : 'public',
      address: addressFromBytes(p.subarray(6, 12)),
      intervalRange: [p.readUInt16LE(13) * 1.25, p.readUInt16LE(15) * 1.25],
      supervisionTimeoutMs: p.readUInt16LE(19) * 10,
      timer: null,
    };
    this.pending = pending;
    this.status(op, HCI_ERROR.success);
    this.initiate(pending);
  }

  /** Listens for the board's next connectable advertisement, as an initiator does. */
  private initiate(pending: PendingConnection): void {
    const board = this.host.boardAt(pending.address);
    if (!board || !board.advertising || !board.connectable || !this.powered) {
      // Not on the air now: listen again one advertising interval later.
      pending.timer = this.host.clock.setTimeout(
        () => this.pending === pending && this.initiate(pending),
        board?.intervalMs ?? 100,
      );
      return;
    }
    pending.timer = this.host.clock.setTimeout(() => {
      if (this.pending !== pending) return;
      this.pending = null;
      if (board.refusesConnection() || !board.advertising || !this.powered) {
        this.connectionComplete(HCI_ERROR.connectionFailedToBeEstablished, pending);
        return;
      }
      this.establish(board, pending);
    }, board.latency('connect'));
  }

  private establish(board: B, pending: PendingConnection): void {
    const handle = this.allocateHandle();
    const [min, max] = pending.intervalRange;
    const intervalMs = Math.min(Math.max(this.profile.connectionIntervalMs, min), max);
    const supervisionTimeoutMs = Math.max(
      pending.supervisionTimeoutMs,
      this.profile.supervisionTimeoutMs,
    );
    const link = new Link(
      handle,
      this.host.clock,
      {
        intervalMs,
        supervisionTimeoutMs,
        dataLength: this.profile.dataLength,
        pdusPerEvent: this.profile.pdusPerEvent,
      },
      {
        toHost: (h, data, start) => this.aclToHost(h, data, start),
        completed: (h, count) => this.completedPackets(h, count),
        down: (h, reason) => this.linkDown(h, reason),
      },
    );
    const entry: LinkEntry<B> = { link, board, latency: 0, txPhy: '1M', rxPhy: '1M' };
    this.links.set(handle, entry);
    this.connectionComplete(HCI_ERROR.success, pending, handle, intervalMs, supervisionTimeoutMs);
    entry.peer = this.host.openPeer(board, link, {
      address: this.profile.address,
      addressType: 'public',
    });
  }

  private cancelConnection(op: number): void {
    const pending = this.pending;
    if (!pending) return this.complete(op, Buffer.of(HCI_ERROR.commandDisallowed));
    this.cancelPending();
    this.complete(op, Buffer.of(HCI_ERROR.success));
    this.connectionComplete(HCI_ERROR.unknownConnectionId, pending);
  }

  private cancelPending(reason?: number): void {
    const pending = this.pending;
    if (!pending) return;
    if (pending.timer) this.host.clock.clearTimeout(pending.timer);
    this.pending = null;
    if (reason !== undefined) this.connectionComplete(reason, pending);
  }

  private disconnect(op: number, p: Buffer): void {
    if (p.length < 3) return this.status(op, HCI_ERROR.invalidParameters);
    const entry = this.links.get(p.readUInt16LE(0));
    if (!entry) return this.status(op, HCI_ERROR.unknownConnectionId);
    this.status(op, HCI_ERROR.success);
    // The initiating side reports "terminated by local host", whatever reason it sent.
    entry.link.terminate(HCI_ERROR.localHostTerminated);
  }

  /**
   * LE Connection Update (7.8.18): parameters outside the spec's ranges, or a supervision timeout
   * not above (1 + latency) × maximum interval × 2, are refused with Command Status 0x12; the
   * new timing applies from the next connection event, reported by LE Connection Update Complete.
   */
  private connectionUpdate(op: number, p: Buffer): void {
    if (p.length < 14) return this.status(op, HCI_ERROR.invalidParameters);
    const handle = p.readUInt16LE(0);
    const entry = this.links.get(handle);
    if (!entry) return this.status(op, HCI_ERROR.unknownConnectionId);
    const [min, max, latency, timeout] = [2, 4, 6, 8].map((at) => p.readUInt16LE(at)) as [
      number,
      number,
      number,
      number,
    ];
    const valid =
      min >= 0x0006 &&
      max <= 0x0c80 &&
      min <= max &&
      latency <= 0x01f3 &&
      timeout >= 0x000a &&
      timeout <= 0x0c80 &&
      timeout * 10 > (1 + latency) * max * 1.25 * 2;
    if (!valid) return this.status(op, HCI_ERROR.invalidParameters);
    this.status(op, HCI_ERROR.success);
    const intervalMs = Math.min(
      Math.max(this.profile.connectionIntervalMs, min * 1.25),
      max * 1.25,
    );
    const supervisionTimeoutMs = timeout * 10;
    entry.link.nextEvent(() => {
      entry.link.retime({ intervalMs, supervisionTimeoutMs });
      entry.latency = latency;
      const e = Buffer.alloc(9);
      e.writeUInt8(HCI_ERROR.success, 0);
      e.writeUInt16LE(handle, 1);
      e.writeUInt16LE(Math.round(intervalMs / 1.25), 3);
      e.writeUInt16LE(latency, 5);
      e.writeUInt16LE(timeout, 7);
      this.leMeta(LE_SUBEVENT.connectionUpdateComplete, e);
    });
  }

  /**
   * LE Set PHY (7.8.49): Command Status, then LE PHY Update Complete once the LL_PHY_REQ/RSP and
   * LL_PHY_UPDATE_IND exchange is done (two connection events), even when nothing changed, as
   * for any procedure the host starts. A PHY bit this controller does not know: 0x11.
   */
  private setPhy(op: number, p: Buffer): void {
    if (p.length < 7) return this.status(op, HCI_ERROR.invalidParameters);
    const handle = p.readUInt16LE(0);
    const entry = this.links.get(handle);
    if (!entry) return this.status(op, HCI_ERROR.unknownConnectionId);
    const [allPhys, tx, rx] = [p[2]!, p[3]!, p[4]!];
    if ((tx | rx) & ~SUPPORTED_PHY_BITS) return this.status(op, HCI_ERROR.unsupportedFeature);
    if ((!(allPhys & 0b01) && tx === 0) || (!(allPhys & 0b10) && rx === 0))
      return this.status(op, HCI_ERROR.invalidParameters);
    this.status(op, HCI_ERROR.success);
    entry.link.nextEvent(() =>
      entry.link.nextEvent(() => {
        entry.txPhy = chosenPhy(allPhys & 0b01 ? SUPPORTED_PHY_BITS : tx);
        entry.rxPhy = chosenPhy(allPhys & 0b10 ? SUPPORTED_PHY_BITS : rx);
        const e = Buffer.alloc(5);
        e.writeUInt8(HCI_ERROR.success, 0);
        e.writeUInt16LE(handle, 1);
        e.writeUInt8(PHY_CODE[entry.txPhy], 3);
        e.writeUInt8(PHY_CODE[entry.rxPhy], 4);
        this.leMeta(LE_SUBEVENT.phyUpdateComplete, e);
      }),
    );
  }

  private startEncryption(op: number, p: Buffer): void {
    if (p.length < 28) return this.status(op, HCI_ERROR.invalidParameters);
    const handle = p.readUInt16LE(0);
    const entry = this.links.get(handle);
    if (!entry) return this.status(op, HCI_ERROR.unknownConnectionId);
    this.status(op, HCI_ERROR.success);
    const key = Buffer.from(p.subarray(12, 28));
    // Connection_Handle, Random_Number (8), Encrypted_Diversifier (2), Long_Term_Key (16).
    const identity = { rand: Buffer.from(p.subarray(2, 10)), ediv: p.readUInt16LE(10) };
    // LL_ENC_REQ/RSP at the next event, LL_START_ENC_REQ/RSP at the one after.
    entry.link.nextEvent(() =>
      entry.link.nextEvent(() =>
        this.encryptionResult(
          handle,
          entry.peer?.encryptionRequested(key, identity) ?? 'keyMissing',
        ),
      ),
    );
  }

  private encryptionResult(handle: number, result: EncryptionVerdict): void {
    const entry = this.links.get(handle);
    if (!entry) return;
    if (result === 'micFailure') {
      entry.link.abort(HCI_ERROR.connectionTerminatedMicFailure);
      return;
    }
    const encrypted = result === 'encrypted';
    if (entry.link.encrypted) {
      // A new key on an encrypted link (a pairing at a higher level): the controller pauses
      // encryption and answers Encryption Key Refresh Complete (Vol 4, Part E, 7.8.24, 7.7.39).
      const refreshed = Buffer.alloc(3);
      refreshed.writeUInt8(encrypted ? HCI_ERROR.success : HCI_ERROR.pinOrKeyMissing, 0);
      refreshed.writeUInt16LE(handle, 1);
      this.event(HCI_EVENT.encryptionKeyRefreshComplete, refreshed);
      if (encrypted) entry.peer?.encrypted();
      else entry.link.abort(HCI_ERROR.pinOrKeyMissing);
      return;
    }
    entry.link.encrypted = encrypted;
    const e = Buffer.alloc(4);
    e.writeUInt8(encrypted ? HCI_ERROR.success : HCI_ERROR.pinOrKeyMissing, 0);
    e.writeUInt16LE(handle, 1);
    e.writeUInt8(encrypted ? 0x01 : 0x00, 3);
    this.event(HCI_EVENT.encryptionChange, e);
    if (encrypted) entry.peer?.encrypted();
  }

  // ACL.

  private acl(packet: Buffer): void {
    if (packet.length < 5) return;
    const header = packet.readUInt16LE(1);
    const handle = header & 0x0fff;
    const boundary = (header >> 12) & 0x03;
    const length = packet.readUInt16LE(3);
    const entry = this.links.get(handle);
    if (!entry) return;
    // Continuation is 0x01; both start flags (0x00 non-flushable, 0x02 flushable) begin a frame.
    entry.link.fromHostPacket(Buffer.from(packet.subarray(5, 5 + length)), boundary !== 0x01);
  }

  private aclToHost(handle: number, data: Buffer, start: boolean): void {
    const packet = Buffer.alloc(5 + data.length);
    packet.writeUInt8(HCI_PACKET.acl, 0);
    packet.writeUInt16LE(handle | ((start ? 0x02 : 0x01) << 12), 1);
    packet.writeUInt16LE(data.length, 3);
    data.copy(packet, 5);
    this.deliver(packet);
  }

  private completedPackets(handle: number, count: number): void {
    const e = Buffer.alloc(5);
    e.writeUInt8(1, 0);
    e.writeUInt16LE(handle, 1);
    e.writeUInt16LE(count, 3);
    this.event(HCI_EVENT.numberOfCompletedPackets, e);
  }

  private linkDown(handle: number, reason: number): void {
    if (!this.links.delete(handle)) return;
    if (this.disposed) return;
    const e = Buffer.alloc(4);
    e.writeUInt8(HCI_ERROR.success, 0);
    e.writeUInt16LE(handle, 1);
    e.writeUInt8(reason, 3);
    this.event(HCI_EVENT.disconnectionComplete, e);
  }

  // Events.

  private allocateHandle(): number {
    for (;;) {
      const handle = this.nextHandle;
      this.nextHandle = this.nextHandle >= 0x0eff ? CONNECTION_HANDLE_BASE : this.nextHandle + 1;
      if (!this.links.has(handle)) return handle;
    }
  }

  private connectionComplete(
    status: number,
    pending: PendingConnection,
    handle = 0,
    intervalMs = 0,
    supervisionTimeoutMs = 0,
  ): void {
    const e = Buffer.alloc(18);
    e.writeUInt8(status, 0);
    e.writeUInt16LE(handle, 1);
    e.writeUInt8(0x00, 3); // role: central
    e.writeUInt8(pending.addressType === 'random' ? 0x01 : 0x00, 4);
    addressBytes(pending.address).copy(e, 5);
    e.writeUInt16LE(Math.round(intervalMs / 1.25), 11);
    e.writeUInt16LE(0, 13);
    e.writeUInt16LE(Math.round(supervisionTimeoutMs / 10), 15);
    e.writeUInt8(0x00, 17);
    this.leMeta(LE_SUBEVENT.connectionComplete, e);
  }

  private advertisingReport(board: B, type: number, data: Buffer, rssi: number): void {
    const r = Buffer.alloc(11 + data.length);
    r.writeUInt8(1, 0);
    r.writeUInt8(type, 1);
    r.writeUInt8(board.airAddressType === 'random' ? 0x01 : 0x00, 2);
    addressBytes(board.airAddress).copy(r, 3);
    r.writeUInt8(data.length, 9);
    data.copy(r, 10);
    r.writeInt8(Math.max(-127, Math.min(20, rssi)), 10 + data.length);
    this.leMeta(LE_SUBEVENT.advertisingReport, r);
  }

  private complete(op: number, returnParams: Buffer): void {
    const e = Buffer.alloc(3 + returnParams.length);
    e.writeUInt8(1, 0); // Num_HCI_Command_Packets
    e.writeUInt16LE(op, 1);
    returnParams.copy(e, 3);
    this.event(HCI_EVENT.commandComplete, e);
  }

  private status(op: number, status: number): void {
    const e = Buffer.alloc(4);
    e.writeUInt8(status, 0);
    e.writeUInt8(1, 1);
    e.writeUInt16LE(op, 2);
    this.event(HCI_EVENT.commandStatus, e);
  }

  private leMeta(subevent: number, params: Buffer): void {
    this.event(HCI_EVENT.leMeta, Buffer.concat([Buffer.of(subevent), params]));
  }

  private event(code: number, params: Buffer): void {
    this.deliver(eventPacket(code, params));
  }

  /**
   * Everything reaches the host asynchronously and in order, as over a real transport: a command
   * is answered after the host's write returns, and its Command Complete precedes the events it
   * causes.
   */
  private deliver(packet: Buffer): void {
    process.nextTick(() => {
      if (!this.disposed) this.emit('data', packet);
    });
  }
}

function eventPacket(code: number, params: Buffer): Buffer {
  return Buffer.concat([Buffer.of(HCI_PACKET.event, code, params.length), params]);
}
