// The HCI tap: sits between noble's hci-socket host stack and the socket below it (the native
// HCI socket on hardware, the virtual controller in the simulated bench). It forwards every
// call and packet unchanged, records each packet to a sink (the btsnoop trace), and reads the
// traffic to tell the adapter what noble does not: which ATT request the board refused and
// with which code, and when pairing or encryption failed. Reports are emitted before the
// packet reaches noble, so the adapter knows first.
import { EventEmitter } from 'node:events';
import { ATT_OP, L2CAP_CID } from '../att/codes';
import type { Direction } from './btsnoop';
import { HCI_CMD, HCI_ERROR, HCI_EVENT, HCI_PACKET, LE_SUBEVENT, SMP_CODE } from './codes';
import type { HciDevice, HciSocket } from './socket';
import { errorMessage } from '../../errors/message';
import { PHY_CODE, phyOfCode, type LinkRequest, type Phy } from '../link-parameters';

export interface AttErrorReport {
  /** noble's peripheral id: the peer address without colons, lowercase. */
  peripheralId: string;
  address: string;
  connectionHandle: number;
  /** The opcode of the request the error answers (ATT_OP). */
  request: number;
  attHandle: number;
  /** The ATT error code (ATT_ERROR). */
  code: number;
  /** Whether the link was encrypted when the board answered. */
  encrypted: boolean;
}

export interface SecurityFailure {
  peripheralId: string;
  connectionHandle: number;
  /** SMP Pairing Failed (code: its reason), or encryption refused (code: the HCI status). */
  stage: 'pairing' | 'encryption';
  code: number;
  /** A Pairing Failed the board sent (else the station's own, or the controller's status). */
  byBoard: boolean;
}

/** A link as the controller's events describe it (what the board's link card shows). */
export interface LinkState {
  intervalMs: number;
  latency: number;
  supervisionTimeoutMs: number;
  txPhy: Phy;
  rxPhy: Phy;
  encrypted: boolean;
  rssi?: number;
}

/** What changed a link's state, or which request the controller refused (`status` not 0). */
export type LinkCause = 'connectionParameters' | 'phy' | 'encryption' | 'rssi';

export interface LinkReport {
  peripheralId: string;
  cause: LinkCause;
  /** The HCI status: 0, or why the controller refused or failed the procedure. */
  status: number;
  link: LinkState;
}

export interface TapEvents {
  data: [packet: Buffer];
  error: [err: Error];
  attError: [report: AttErrorReport];
  securityFailed: [failure: SecurityFailure];
  advertisingReport: [report: AdvertisingReport];
  linkChanged: [report: LinkReport];
}

/** One report of an LE Advertising Report event (Vol 4, Part E, 7.7.65.2): the AD bytes as received. */
export interface AdvertisingReport {
  /** ADV_REPORT_TYPE: ADV_IND … SCAN_RSP. */
  eventType: number;
  /** noble's peripheral id: the address without colons. */
  peripheralId: string;
  data: Uint8Array;
}

export type TraceSink = (direction: Direction, packet: Uint8Array) => void;

/** Packets the tap could not read, and reports it could not tie to a link; all passed on. */
export interface TapCounts {
  malformed: number;
  /** ATT or SMP traffic on a connection handle no Connection Complete announced. */
  unknownLink: number;
  /** Error Responses naming a request other than the one in flight. */
  unmatchedError: number;
}

/** Requests a client sends that the server answers (Vol 3, Part F, 3.4); one may be in flight. */
const ATT_REQUESTS: ReadonlySet<number> = new Set([
  ATT_OP.mtuReq,
  ATT_OP.findInfoReq,
  ATT_OP.findByTypeValueReq,
  ATT_OP.readByTypeReq,
  ATT_OP.readReq,
  ATT_OP.readBlobReq,
  ATT_OP.readMultipleReq,
  ATT_OP.readByGroupTypeReq,
  ATT_OP.writeReq,
  ATT_OP.prepareWriteReq,
  ATT_OP.executeWriteReq,
]);

/** The responses that end the request in flight. */
const ATT_RESPONSES: ReadonlySet<number> = new Set([
  ATT_OP.errorRsp,
  ATT_OP.mtuRsp,
  ATT_OP.findInfoRsp,
  ATT_OP.findByTypeValueRsp,
  ATT_OP.readByTypeRsp,
  ATT_OP.readRsp,
  ATT_OP.readBlobRsp,
  ATT_OP.readMultipleRsp,
  ATT_OP.readByGroupTypeRsp,
  ATT_OP.writeRsp,
  ATT_OP.prepareWriteRsp,
  ATT_OP.executeWriteRsp,
]);

/** ACL Packet_Boundary_Flag values (Vol 4, Part E, 5.4.2). */
const PB_CONTINUATION = 0b01;

interface Link extends LinkState {
  address: string;
  peripheralId: string;
  inFlight: number | undefined;
}

interface Partial {
  chunks: Buffer[];
  have: number;
}

type Report =
  | { event: 'attError'; payload: AttErrorReport }
  | { event: 'securityFailed'; payload: SecurityFailure }
  | { event: 'advertisingReport'; payload: AdvertisingReport }
  | { event: 'linkChanged'; payload: LinkReport };

/** Commands answered by Command Status whose failure ends a link procedure, and its cause. */
const STATUS_CAUSES: ReadonlyMap<number, LinkCause> = new Map([
  [HCI_CMD.leConnectionUpdate, 'connectionParameters'],
  [HCI_CMD.leSetPhy, 'phy'],
]);

/** An HCI command packet: H4 type, opcode, parameter length, parameters (Vol 4, Part E, 5.4.1). */
function commandPacket(op: number, params: Buffer): Buffer {
  return Buffer.concat([Buffer.of(HCI_PACKET.command, op & 0xff, op >> 8, params.length), params]);
}

/** The TX_PHYS/RX_PHYS bit of a PHY (7.8.49): bit 0 1M, bit 1 2M, bit 2 Coded. */
const phyBit = (phy: Phy): number => 1 << (PHY_CODE[phy] - 1);

class Malformed extends Error {}

/** Throws Malformed unless the packet holds `needed` bytes. */
function need(packet: Uint8Array, needed: number): void {
  if (packet.length < needed) throw new Malformed();
}

/** A BD_ADDR as noble writes it: the six little-endian bytes reversed, "aa:bb:cc:dd:ee:ff". */
function formatAddress(bytes: Buffer): string {
  return Array.from(bytes)
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}

/**
 * LE Advertising Report (7.7.65.2): Subevent_Code, Num_Reports, then per report Event_Type,
 * Address_Type, Address (6), Data_Length, Data, RSSI.
 */
function advertisingReports(p: Buffer): Report[] {
  need(p, 2);
  const reports: Report[] = [];
  let at = 2;
  for (let i = 0; i < (p[1] ?? 0); i += 1) {
    need(p, at + 9);
    const length = p[at + 8] ?? 0;
    need(p, at + 10 + length);
    reports.push({
      event: 'advertisingReport',
      payload: {
        eventType: p[at] ?? 0,
        peripheralId: formatAddress(p.subarray(at + 2, at + 8)).replace(/:/g, ''),
        data: Uint8Array.from(p.subarray(at + 9, at + 9 + length)),
      },
    });
    at += 10 + length;
  }
  return reports;
}

function snapshot(link: Link): LinkState {
  const { intervalMs, latency, supervisionTimeoutMs, txPhy, rxPhy, encrypted, rssi } = link;
  return { intervalMs, latency, supervisionTimeoutMs, txPhy, rxPhy, encrypted, rssi };
}

function changed(link: Link, cause: LinkCause, status: number): Report {
  return {
    event: 'linkChanged',
    payload: { peripheralId: link.peripheralId, cause, status, link: snapshot(link) },
  };
}

/** A Disconnection Complete (hardware failure) for `handle`: a link ended on this side. */
export function lostLinkEvent(handle: number): Buffer {
  return Buffer.from([
    HCI_PACKET.event,
    HCI_EVENT.disconnectionComplete,
    4,
    HCI_ERROR.success,
    handle & 0xff,
    handle >> 8,
    HCI_ERROR.hardwareFailure,
  ]);
}

export class HciTap extends EventEmitter<TapEvents> implements HciSocket {
  readonly counts: TapCounts = { malformed: 0, unknownLink: 0, unmatchedError: 0 };
  private readonly links = new Map<number, Link>();
  /** L2CAP PDUs being reassembled, per direction and connection handle. */
  private readonly partials = new Map<string, Partial>();
  /** Connection handles of LE Start Encryption commands awaiting their Command Status. */
  private readonly startingEncryption: number[] = [];
  /** Connection handles of link procedures awaiting their Command Status, per opcode. */
  private readonly awaitingStatus = new Map<number, number[]>();

  constructor(
    private readonly inner: HciSocket,
    private readonly sink?: TraceSink,
  ) {
    super();
    inner.on('data', (packet) => {
      this.observe('received', packet);
      this.deliver(packet);
    });
    inner.on('error', (err) => this.emit('error', err));
  }

  bindRaw(deviceId?: number): number {
    return this.inner.bindRaw(deviceId);
  }

  bindUser(deviceId?: number): number {
    return this.inner.bindUser(deviceId);
  }

  bindControl(): void {
    this.inner.bindControl();
  }

  isDevUp(): boolean {
    return this.inner.isDevUp();
  }

  setFilter(filter: Buffer): void {
    this.inner.setFilter(filter);
  }

  start(): void {
    this.inner.start();
  }

  stop(): void {
    this.inner.stop();
  }

  getDeviceList(): HciDevice[] {
    return this.inner.getDeviceList();
  }

  write(packet: Buffer): void {
    this.observe('sent', packet);
    this.inner.write(packet);
  }

  /** The link to a board as the controller last described it, while it is up. */
  linkState(peripheralId: string): LinkState | undefined {
    const link = this.linkTo(peripheralId);
    return link && snapshot(link);
  }

  /**
   * Sends the HCI command for a link request (all but pairing, the Security Manager's): LE
   * Connection Update, LE Set PHY, Read RSSI. It goes out as noble's commands do, so it is in
   * the trace; noble ignores the answers to commands it did not send (only its own Read RSSI
   * result updates its peripheral's rssi). The outcome comes as `linkChanged`. False when the
   * board has no link.
   */
  sendLinkRequest(peripheralId: string, request: Exclude<LinkRequest, { kind: 'pair' }>): boolean {
    const entry = [...this.links].find(([, l]) => l.peripheralId === peripheralId);
    if (!entry) return false;
    const [handle] = entry;
    let packet: Buffer;
    if (request.kind === 'connectionParameters') {
      const p = request.parameters;
      const params = Buffer.alloc(14);
      params.writeUInt16LE(handle, 0);
      params.writeUInt16LE(Math.round(p.minIntervalMs / 1.25), 2);
      params.writeUInt16LE(Math.round(p.maxIntervalMs / 1.25), 4);
      params.writeUInt16LE(p.latency, 6);
      params.writeUInt16LE(Math.round(p.supervisionTimeoutMs / 10), 8);
      packet = commandPacket(HCI_CMD.leConnectionUpdate, params);
    } else if (request.kind === 'phy') {
      const params = Buffer.alloc(7);
      params.writeUInt16LE(handle, 0);
      params.writeUInt8(0, 2); // ALL_PHYS: a preference both ways
      params.writeUInt8(phyBit(request.phy.tx), 3);
      params.writeUInt8(phyBit(request.phy.rx), 4);
      packet = commandPacket(HCI_CMD.leSetPhy, params);
    } else {
      const params = Buffer.alloc(2);
      params.writeUInt16LE(handle, 0);
      packet = commandPacket(HCI_CMD.readRssi, params);
    }
    this.write(packet);
    return true;
  }

  /**
   * The one place every socket's packets reach noble. An exception from noble's hci.js (or a
   * layer above it) leaves its state for that packet half-changed, so the socket starts over
   * where it can (`recover`) and otherwise every link ends as lost; the process never ends on
   * a packet (docs/decisions.md, "A noisy serial line").
   */
  private deliver(packet: Buffer): void {
    try {
      this.emit('data', packet);
    } catch (err) {
      const why = `the host stack could not read a packet (${errorMessage(err)})`;
      if (this.inner.recover) this.inner.recover(why);
      else
        for (const handle of [...this.links.keys()]) {
          // The controller ends the link too; its answer names a handle noble no longer has.
          const params = Buffer.of(handle & 0xff, handle >> 8, HCI_ERROR.remoteUserTerminated);
          this.write(commandPacket(HCI_CMD.disconnect, params));
          const event = lostLinkEvent(handle);
          this.observe('received', event);
          try {
            this.emit('data', event);
          } catch {
            // The link is gone either way; noble's half-read state goes with it.
          }
        }
    }
  }

  /**
   * noble's hci.js drops every listener of its socket when the adapter comes back up; the
   * adapter's own listeners (attError, securityFailed) must outlive that.
   */
  override removeAllListeners(event?: keyof TapEvents): this {
    if (event !== undefined) return super.removeAllListeners(event);
    super.removeAllListeners('data');
    super.removeAllListeners('error');
    return this;
  }

  private observe(direction: Direction, packet: Buffer): void {
    this.sink?.(direction, packet);
    let reports: Report[] = [];
    try {
      reports = this.read(direction, packet);
    } catch (err) {
      if (!(err instanceof Malformed) && !(err instanceof RangeError)) throw err;
      this.counts.malformed += 1;
    }
    for (const report of reports) {
      if (report.event === 'attError') this.emit('attError', report.payload);
      else if (report.event === 'advertisingReport') this.emit('advertisingReport', report.payload);
      else if (report.event === 'linkChanged') this.emit('linkChanged', report.payload);
      else this.emit('securityFailed', report.payload);
    }
  }

  private read(direction: Direction, packet: Buffer): Report[] {
    need(packet, 1);
    const type = packet[0];
    if (type === HCI_PACKET.command && direction === 'sent') return this.readCommand(packet);
    if (type === HCI_PACKET.event && direction === 'received') return this.readEvent(packet);
    if (type === HCI_PACKET.acl) return this.readAcl(direction, packet);
    throw new Malformed();
  }

  /** Command packet: opcode (2), parameter length (1), parameters (Vol 4, Part E, 5.4.1). */
  private readCommand(packet: Buffer): Report[] {
    need(packet, 4);
    if (packet[3] !== packet.length - 4) throw new Malformed();
    const op = packet.readUInt16LE(1);
    if (op === HCI_CMD.leStartEncryption) {
      need(packet, 6);
      this.startingEncryption.push(packet.readUInt16LE(4) & 0x0fff);
    }
    if (STATUS_CAUSES.has(op)) {
      need(packet, 6);
      const queue = this.awaitingStatus.get(op) ?? [];
      queue.push(packet.readUInt16LE(4) & 0x0fff);
      this.awaitingStatus.set(op, queue);
    }
    return [];
  }

  /** Event packet: event code (1), parameter length (1), parameters (Vol 4, Part E, 5.4.4). */
  private readEvent(packet: Buffer): Report[] {
    need(packet, 3);
    if (packet[2] !== packet.length - 3) throw new Malformed();
    const code = packet[1];
    const p = packet.subarray(3);
    switch (code) {
      case HCI_EVENT.disconnectionComplete: {
        // Status, Connection_Handle, Reason (7.7.5).
        need(p, 4);
        if (p[0] === 0) this.forget(p.readUInt16LE(1) & 0x0fff);
        return [];
      }
      case HCI_EVENT.encryptionChange: {
        // Status, Connection_Handle, Encryption_Enabled (7.7.8).
        need(p, 4);
        const handle = p.readUInt16LE(1) & 0x0fff;
        const status = p[0] ?? 0;
        if (status !== 0) return this.securityFailed(handle, 'encryption', status);
        const link = this.links.get(handle);
        if (!link) return [];
        link.encrypted = p[3] !== 0;
        return [changed(link, 'encryption', 0)];
      }
      case HCI_EVENT.encryptionKeyRefreshComplete: {
        // Status, Connection_Handle (7.7.39).
        need(p, 3);
        const handle = p.readUInt16LE(1) & 0x0fff;
        const status = p[0] ?? 0;
        if (status !== 0) return this.securityFailed(handle, 'encryption', status);
        // The link took a new key (a pairing at a higher level): its security changed.
        const link = this.links.get(handle);
        return link ? [changed(link, 'encryption', 0)] : [];
      }
      case HCI_EVENT.commandStatus: {
        // Status, Num_HCI_Command_Packets, Command_Opcode (7.7.15).
        need(p, 4);
        const op = p.readUInt16LE(2);
        const cause = STATUS_CAUSES.get(op);
        if (cause) {
          const link = this.links.get(this.awaitingStatus.get(op)?.shift() ?? -1);
          return link && p[0] !== 0 ? [changed(link, cause, p[0] ?? 0)] : [];
        }
        if (op !== HCI_CMD.leStartEncryption) return [];
        const handle = this.startingEncryption.shift();
        const status = p[0] ?? 0;
        return status === 0 || handle === undefined
          ? []
          : this.securityFailed(handle, 'encryption', status);
      }
      case HCI_EVENT.commandComplete: {
        // Num_HCI_Command_Packets, Command_Opcode, then the return parameters (7.7.14).
        need(p, 3);
        if (p.readUInt16LE(1) !== HCI_CMD.readRssi) return [];
        // Read RSSI: Status, Connection_Handle, RSSI (7.5.4).
        need(p, 7);
        const link = this.links.get(p.readUInt16LE(4) & 0x0fff);
        if (!link) return [];
        if (p[3] === 0) link.rssi = p.readInt8(6);
        return [changed(link, 'rssi', p[3] ?? 0)];
      }
      case HCI_EVENT.leMeta:
        need(p, 1);
        if (p[0] === LE_SUBEVENT.connectionComplete) this.connected(p, 12);
        if (p[0] === LE_SUBEVENT.enhancedConnectionComplete) this.connected(p, 24);
        if (p[0] === LE_SUBEVENT.advertisingReport) return advertisingReports(p);
        if (p[0] === LE_SUBEVENT.connectionUpdateComplete) return this.updated(p);
        if (p[0] === LE_SUBEVENT.phyUpdateComplete) return this.phyUpdated(p);
        return [];
      default:
        return [];
    }
  }

  /**
   * LE Connection Complete (7.7.65.1) and LE Enhanced Connection Complete (7.7.65.10) share
   * their first fields: Subevent_Code, Status, Connection_Handle, Role, Peer_Address_Type,
   * Peer_Address; then (at `timing`: after the two resolvable addresses in the enhanced one)
   * Connection_Interval, Peripheral_Latency, Supervision_Timeout.
   */
  private connected(p: Buffer, timing: number): void {
    need(p, timing + 6);
    if (p[1] !== 0) return;
    const handle = p.readUInt16LE(2) & 0x0fff;
    const address = formatAddress(p.subarray(6, 12));
    this.forget(handle);
    this.links.set(handle, {
      address,
      peripheralId: address.replace(/:/g, ''),
      encrypted: false,
      inFlight: undefined,
      intervalMs: p.readUInt16LE(timing) * 1.25,
      latency: p.readUInt16LE(timing + 2),
      supervisionTimeoutMs: p.readUInt16LE(timing + 4) * 10,
      // Every LE link starts on the 1M PHY (Vol 6, Part B, 5.1.10).
      txPhy: '1M',
      rxPhy: '1M',
    });
  }

  /**
   * LE Connection Update Complete (7.7.65.3): Subevent_Code, Status, Connection_Handle,
   * Connection_Interval, Peripheral_Latency, Supervision_Timeout.
   */
  private updated(p: Buffer): Report[] {
    need(p, 10);
    const link = this.links.get(p.readUInt16LE(2) & 0x0fff);
    if (!link) return [];
    if (p[1] === 0) {
      link.intervalMs = p.readUInt16LE(4) * 1.25;
      link.latency = p.readUInt16LE(6);
      link.supervisionTimeoutMs = p.readUInt16LE(8) * 10;
    }
    return [changed(link, 'connectionParameters', p[1] ?? 0)];
  }

  /** LE PHY Update Complete (7.7.65.12): Subevent_Code, Status, Connection_Handle, TX_PHY, RX_PHY. */
  private phyUpdated(p: Buffer): Report[] {
    need(p, 6);
    const link = this.links.get(p.readUInt16LE(2) & 0x0fff);
    if (!link) return [];
    if (p[1] === 0) {
      link.txPhy = phyOfCode(p[4] ?? 0) ?? link.txPhy;
      link.rxPhy = phyOfCode(p[5] ?? 0) ?? link.rxPhy;
    }
    return [changed(link, 'phy', p[1] ?? 0)];
  }

  private linkTo(peripheralId: string): Link | undefined {
    for (const link of this.links.values()) if (link.peripheralId === peripheralId) return link;
    return undefined;
  }

  private forget(handle: number): void {
    this.links.delete(handle);
    this.partials.delete(`sent:${handle}`);
    this.partials.delete(`received:${handle}`);
  }

  /**
   * ACL packet: Handle (12 bits), Packet_Boundary_Flag (2), Broadcast_Flag (2), length (2),
   * data (Vol 4, Part E, 5.4.2); the data are fragments of one L2CAP basic frame: length (2),
   * channel (2), payload (Vol 3, Part A, 3.1).
   */
  private readAcl(direction: Direction, packet: Buffer): Report[] {
    need(packet, 5);
    const header = packet.readUInt16LE(1);
    if (packet.readUInt16LE(3) !== packet.length - 5) throw new Malformed();
    const handle = header & 0x0fff;
    const boundary = (header >> 12) & 0b11;
    const key = `${direction}:${handle}`;
    let partial = this.partials.get(key);
    if (boundary === PB_CONTINUATION) {
      if (!partial) throw new Malformed();
    } else {
      // A new start while a frame is unfinished: the unfinished one is lost.
      if (partial) this.counts.malformed += 1;
      partial = { chunks: [], have: 0 };
      this.partials.set(key, partial);
    }
    partial.chunks.push(packet.subarray(5));
    partial.have += packet.length - 5;
    if (partial.have < 4) return [];
    const frame = partial.chunks.length === 1 ? partial.chunks[0] : Buffer.concat(partial.chunks);
    if (!frame) return [];
    partial.chunks = [frame];
    const length = frame.readUInt16LE(0);
    if (partial.have < 4 + length) return [];
    this.partials.delete(key);
    if (partial.have > 4 + length) throw new Malformed();
    const payload = frame.subarray(4);
    switch (frame.readUInt16LE(2)) {
      case L2CAP_CID.att:
        return this.readAtt(direction, handle, payload);
      case L2CAP_CID.smp:
        need(payload, 1);
        if (payload[0] !== SMP_CODE.pairingFailed) return [];
        // Pairing Failed: Code, Reason (Vol 3, Part H, 3.5.5).
        need(payload, 2);
        return this.securityFailed(handle, 'pairing', payload[1] ?? 0, direction === 'received');
      default:
        return [];
    }
  }

  private readAtt(direction: Direction, handle: number, pdu: Buffer): Report[] {
    need(pdu, 1);
    const opcode = pdu[0] ?? 0;
    const link = this.links.get(handle);
    if (direction === 'sent') {
      if (ATT_REQUESTS.has(opcode)) {
        if (link) link.inFlight = opcode;
        else this.counts.unknownLink += 1;
      }
      return [];
    }
    if (!ATT_RESPONSES.has(opcode)) return [];
    if (!link) {
      this.counts.unknownLink += 1;
      return [];
    }
    const inFlight = link.inFlight;
    link.inFlight = undefined;
    if (opcode !== ATT_OP.errorRsp) return [];
    // Error Response: opcode, Request_Opcode_In_Error, Attribute_Handle_In_Error, Error_Code
    // (Vol 3, Part F, 3.4.1.1).
    if (pdu.length !== 5) throw new Malformed();
    const request = pdu[1] ?? 0;
    if (request !== inFlight) this.counts.unmatchedError += 1;
    return [
      {
        event: 'attError',
        payload: {
          peripheralId: link.peripheralId,
          address: link.address,
          connectionHandle: handle,
          request,
          attHandle: pdu.readUInt16LE(2),
          code: pdu[4] ?? 0,
          encrypted: link.encrypted,
        },
      },
    ];
  }

  private securityFailed(
    handle: number,
    stage: SecurityFailure['stage'],
    code: number,
    byBoard = false,
  ): Report[] {
    const link = this.links.get(handle);
    if (!link) {
      this.counts.unknownLink += 1;
      return [];
    }
    return [
      {
        event: 'securityFailed',
        payload: {
          peripheralId: link.peripheralId,
          connectionHandle: handle,
          stage,
          code,
          byBoard,
        },
      },
    ];
  }
}
