// The HCI tap: sits between noble's hci-socket host stack and the socket below it (the native
// HCI socket on hardware, the virtual controller in the simulated bench). It forwards every
// call and packet unchanged, records each packet to a sink (the btsnoop trace), and reads the
// traffic to tell the adapter what noble does not: which ATT request the board refused and
// with which code, and when pairing or encryption failed. Reports are emitted before the
// packet reaches noble, so the adapter knows first.
import { EventEmitter } from 'node:events';
import { ATT_OP, L2CAP_CID } from '../att/codes';
import type { Direction } from './btsnoop';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, LE_SUBEVENT, SMP_CODE } from './codes';
import type { HciDevice, HciSocket } from './socket';

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
}

export interface TapEvents {
  data: [packet: Buffer];
  error: [err: Error];
  attError: [report: AttErrorReport];
  securityFailed: [failure: SecurityFailure];
  advertisingReport: [report: AdvertisingReport];
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

interface Link {
  address: string;
  peripheralId: string;
  encrypted: boolean;
  inFlight: number | undefined;
}

interface Partial {
  chunks: Buffer[];
  have: number;
}

type Report =
  | { event: 'attError'; payload: AttErrorReport }
  | { event: 'securityFailed'; payload: SecurityFailure }
  | { event: 'advertisingReport'; payload: AdvertisingReport };

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

export class HciTap extends EventEmitter<TapEvents> implements HciSocket {
  readonly counts: TapCounts = { malformed: 0, unknownLink: 0, unmatchedError: 0 };
  private readonly links = new Map<number, Link>();
  /** L2CAP PDUs being reassembled, per direction and connection handle. */
  private readonly partials = new Map<string, Partial>();
  /** Connection handles of LE Start Encryption commands awaiting their Command Status. */
  private readonly startingEncryption: number[] = [];

  constructor(
    private readonly inner: HciSocket,
    private readonly sink?: TraceSink,
  ) {
    super();
    inner.on('data', (packet) => {
      this.observe('received', packet);
      this.emit('data', packet);
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
    if (packet.readUInt16LE(1) === HCI_CMD.leStartEncryption) {
      need(packet, 6);
      this.startingEncryption.push(packet.readUInt16LE(4) & 0x0fff);
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
        if (link) link.encrypted = p[3] !== 0;
        return [];
      }
      case HCI_EVENT.encryptionKeyRefreshComplete: {
        // Status, Connection_Handle (7.7.39).
        need(p, 3);
        const status = p[0] ?? 0;
        return status === 0
          ? []
          : this.securityFailed(p.readUInt16LE(1) & 0x0fff, 'encryption', status);
      }
      case HCI_EVENT.commandStatus: {
        // Status, Num_HCI_Command_Packets, Command_Opcode (7.7.15).
        need(p, 4);
        if (p.readUInt16LE(2) !== HCI_CMD.leStartEncryption) return [];
        const handle = this.startingEncryption.shift();
        const status = p[0] ?? 0;
        return status === 0 || handle === undefined
          ? []
          : this.securityFailed(handle, 'encryption', status);
      }
      case HCI_EVENT.leMeta:
        need(p, 1);
        if (
          p[0] === LE_SUBEVENT.connectionComplete ||
          p[0] === LE_SUBEVENT.enhancedConnectionComplete
        )
          this.connected(p);
        if (p[0] === LE_SUBEVENT.advertisingReport) return advertisingReports(p);
        return [];
      default:
        return [];
    }
  }

  /**
   * LE Connection Complete (7.7.65.1) and LE Enhanced Connection Complete (7.7.65.10) share
   * their first fields: Subevent_Code, Status, Connection_Handle, Role, Peer_Address_Type,
   * Peer_Address.
   */
  private connected(p: Buffer): void {
    need(p, 12);
    if (p[1] !== 0) return;
    const handle = p.readUInt16LE(2) & 0x0fff;
    const address = formatAddress(p.subarray(6, 12));
    this.forget(handle);
    this.links.set(handle, {
      address,
      peripheralId: address.replace(/:/g, ''),
      encrypted: false,
      inFlight: undefined,
    });
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
        return this.securityFailed(handle, 'pairing', payload[1] ?? 0);
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

  private securityFailed(handle: number, stage: SecurityFailure['stage'], code: number): Report[] {
    const link = this.links.get(handle);
    if (!link) {
      this.counts.unknownLink += 1;
      return [];
    }
    return [
      {
        event: 'securityFailed',
        payload: { peripheralId: link.peripheralId, connectionHandle: handle, stage, code },
      },
    ];
  }
}
