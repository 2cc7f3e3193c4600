// The simulated bench's LE controller: the object noble's `lib/hci-socket/hci.js` takes for its
// raw HCI socket, so noble's own host stack (HCI, ACL, L2CAP, ATT, SMP) runs above it exactly as
// over a Linux adapter. It answers HCI commands with Command Complete / Command Status / LE Meta
// events (Core Specification v5.3, Vol 4, Part E, 7), reports the bench's advertising, makes
// links to boards and carries their ACL data on the link model of `link.ts`, with the limits of
// its adapter profile (`adapter-profile.ts`). It scans and connects with the address the host
// asks for: its public one, or the random one the host set (LE Set Random Address), which is
// the initiator address the board's end of the link sees.
import { EventEmitter } from 'node:events';
import { ADV_REPORT_TYPE, HCI_CMD, HCI_ERROR, HCI_EVENT, HCI_PACKET } from '../hci/codes';
import { NO_ADDRESS, OWN_ADDRESS_TYPE, addressOfBytes } from '../hci/own-address';
import type { HciDevice, HciSocket } from '../hci/socket';
import type { AdapterState } from '../port';
import type { AdapterProfile } from './adapter-profile';
import type { AdvertisingPayloads } from './advertising-data';
import type { Clock, Timer } from '../../async/clock';
import { Link } from './link';
import { ConnectionSchedule } from './connection-schedule';
import { informationAnswer } from './controller-info';
import { LinkProcedures, MIN_DATA_LENGTH, type LinkEntry } from './link-procedures';
import {
  advertisingReport,
  commandComplete,
  commandStatus,
  connectionComplete,
  eventPacket,
  leMeta,
} from './hci-events';
import { RSSI_NOT_AVAILABLE } from '../rssi';
import type { CentralIdentity, RadioBoard, RadioPeer } from './radio';

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

const CONNECTION_HANDLE_BASE = 0x0040;

interface PendingConnection {
  address: string;
  addressType: 'public' | 'random';
  /** The station as the board will see it: the initiator address of the CONNECT_IND. */
  own: CentralIdentity;
  intervalRange: [number, number];
  supervisionTimeoutMs: number;
  timer: Timer | null;
}

export class VirtualController<B extends RadioBoard = RadioBoard>
  extends EventEmitter
  implements HciSocket
{
  readonly profile: AdapterProfile;
  private readonly host: RadioHost<B>;
  private readonly links = new Map<number, LinkEntry<B>>();
  private readonly procedures: LinkProcedures<B>;
  /** The one radio the links' connection events take turns on. */
  private readonly schedule = new ConnectionSchedule();
  private pending: PendingConnection | null = null;
  private nextHandle = CONNECTION_HANDLE_BASE;
  private started = false;
  private disposed = false;
  private scanEnabled = false;
  private activeScan = true;
  private filterDuplicates = false;
  private readonly reported = new Set<string>();
  /** The host's random address (LE Set Random Address); none after a reset. */
  private randomAddress: string | undefined;
  /** Own_Address_Type of LE Set Scan Parameters. */
  private scanOwnRandom = false;

  constructor(host: RadioHost<B>, profile: AdapterProfile) {
    super();
    this.host = host;
    this.profile = profile;
    this.procedures = new LinkProcedures(this.links, profile, {
      complete: (op, returnParams) => this.complete(op, returnParams),
      status: (op, status) => this.status(op, status),
      leMeta: (subevent, params) => this.leMeta(subevent, params),
      event: (code, params) => this.event(code, params),
    });
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
        this.randomAddress = undefined;
        this.scanOwnRandom = false;
        this.host.scanningChanged();
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.setEventMask:
      case HCI_CMD.leSetEventMask:
      case HCI_CMD.writeLeHostSupported:
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.leSetRandomAddress:
        return this.complete(op, Buffer.of(this.setRandomAddress(params)));
      case HCI_CMD.leSetScanParameters:
        if (params.length < 7) return this.complete(op, Buffer.of(HCI_ERROR.invalidParameters));
        if (this.scanEnabled) return this.complete(op, Buffer.of(HCI_ERROR.commandDisallowed));
        this.activeScan = params[0] === 0x01;
        this.scanOwnRandom = this.ownRandom(params[5]);
        return this.complete(op, Buffer.of(HCI_ERROR.success));
      case HCI_CMD.leSetScanEnable:
        if (params.length < 2) return this.complete(op, Buffer.of(HCI_ERROR.invalidParameters));
        // Scanning as a random address the host never set is refused (7.8.11).
        if (params[0] === 0x01 && this.scanOwnRandom && !this.randomAddress)
          return this.complete(op, Buffer.of(HCI_ERROR.invalidParameters));
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
      default:
        if (this.procedures.run(op, params)) return;
        return this.complete(
          op,
          informationAnswer(op, this.profile) ?? Buffer.of(HCI_ERROR.unknownCommand),
        );
    }
  }

  /**
   * LE Set Random Address (7.8.4): refused while scanning or initiating, as a controller without
   * extended advertising does.
   */
  private setRandomAddress(p: Buffer): number {
    if (p.length < 6) return HCI_ERROR.invalidParameters;
    if (this.scanEnabled || this.pending) return HCI_ERROR.commandDisallowed;
    this.randomAddress = addressOfBytes(p.subarray(0, 6));
    return HCI_ERROR.success;
  }

  /** Own_Address_Type 0x01 (random) and 0x03 (an RPA, else the random address) use the random one. */
  private ownRandom(type: number | undefined): boolean {
    return type === OWN_ADDRESS_TYPE.random || type === 0x03;
  }

  /** How the station appears on the air: its random address, or its public one (maybe none). */
  private own(random: boolean): CentralIdentity {
    if (random) return { address: this.randomAddress ?? NO_ADDRESS, addressType: 'random' };
    const address = this.profile.addressing === 'public' ? this.profile.address : NO_ADDRESS;
    return { address, addressType: 'public' };
  }

  private createConnection(op: number, p: Buffer): void {
    if (p.length < 25) return this.status(op, HCI_ERROR.invalidParameters);
    if (this.pending) return this.status(op, HCI_ERROR.commandDisallowed);
    if (this.links.size >= this.profile.maxConnections)
      return this.status(op, HCI_ERROR.connectionLimitExceeded);
    const ownRandom = this.ownRandom(p[12]);
    // Initiating as a random address the host never set is refused (7.8.12).
    if (ownRandom && !this.randomAddress) return this.status(op, HCI_ERROR.invalidParameters);
    const pending: PendingConnection = {
      addressType: p[5] === 0x01 ? 'random' : 'public',
      address: addressOfBytes(p.subarray(6, 12)),
      own: this.own(ownRandom),
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
        // Every link starts at the minimum; a Data Length Update raises it (link-procedures.ts).
        dataLength: MIN_DATA_LENGTH,
        pdusPerEvent: this.profile.pdusPerEvent,
        txPhy: '1M',
        rxPhy: '1M',
      },
      {
        toHost: (h, data, start) => this.aclToHost(h, data, start),
        completed: (h, count) => this.completedPackets(h, count),
        down: (h, reason) => this.linkDown(h, reason),
      },
      this.schedule,
    );
    const entry: LinkEntry<B> = { link, board, latency: 0, txPhy: '1M', rxPhy: '1M' };
    this.links.set(handle, entry);
    this.connectionComplete(HCI_ERROR.success, pending, handle, intervalMs, supervisionTimeoutMs);
    entry.peer = this.host.openPeer(board, link, pending.own);
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
    this.deliver(
      connectionComplete({
        status,
        handle,
        peerAddress: pending.address,
        peerAddressType: pending.addressType,
        intervalMs,
        supervisionTimeoutMs,
      }),
    );
  }

  private advertisingReport(board: B, type: number, data: Buffer, rssi: number): void {
    const reported = this.profile.rssi === 'notAvailable' ? RSSI_NOT_AVAILABLE : rssi;
    this.deliver(advertisingReport(board.airAddress, board.airAddressType, type, data, reported));
  }

  private complete(op: number, returnParams: Buffer): void {
    this.deliver(commandComplete(op, returnParams));
  }

  private status(op: number, status: number): void {
    this.deliver(commandStatus(op, status));
  }

  private leMeta(subevent: number, params: Buffer): void {
    this.deliver(leMeta(subevent, params));
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
