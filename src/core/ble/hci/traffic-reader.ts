// The HCI tap's reading of the traffic (tap.ts): it follows each link from its Connection
// Complete (address, timing, PHY, encryption), reassembles L2CAP frames, and turns what noble
// does not report into reports: the ATT request a board refused and with which code, a pairing
// or encryption that failed, advertising reports as received, link changes. It never alters a
// packet; one it cannot read is counted and passed on.
import { ATT_OP, L2CAP_CID } from '../att/codes';
import type { Direction } from './btsnoop';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, LE_SUBEVENT, SMP_CODE } from './codes';
import { phyOfCode } from '../link-parameters';
import { addressOfBytes } from './own-address';
import type { LinkCause, LinkState, Report, SecurityFailure, TapCounts } from './tap-reports';

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

/** Commands answered by Command Status whose failure ends a link procedure, and its cause. */
const STATUS_CAUSES: ReadonlyMap<number, LinkCause> = new Map([
  [HCI_CMD.leConnectionUpdate, 'connectionParameters'],
  [HCI_CMD.leSetPhy, 'phy'],
]);

/** The same for commands answered by Command Complete (LE Set Data Length, 7.8.33). */
const COMPLETE_CAUSES: ReadonlyMap<number, LinkCause> = new Map([
  [HCI_CMD.leSetDataLength, 'dataLength'],
]);
class Malformed extends Error {}

/** Throws Malformed unless the packet holds `needed` bytes. */
function need(packet: Uint8Array, needed: number): void {
  if (packet.length < needed) throw new Malformed();
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
        peripheralId: addressOfBytes(p.subarray(at + 2, at + 8)).replace(/:/g, ''),
        data: Uint8Array.from(p.subarray(at + 9, at + 9 + length)),
      },
    });
    at += 10 + length;
  }
  return reports;
}

function snapshot(link: Link): LinkState {
  const { intervalMs, latency, supervisionTimeoutMs, txPhy, rxPhy, dataLength, encrypted, rssi } =
    link;
  return { intervalMs, latency, supervisionTimeoutMs, txPhy, rxPhy, dataLength, encrypted, rssi };
}

function changed(link: Link, cause: LinkCause, status: number): Report {
  return {
    event: 'linkChanged',
    payload: { peripheralId: link.peripheralId, cause, status, link: snapshot(link) },
  };
}

export class TrafficReader {
  readonly counts: TapCounts = { malformed: 0, unknownLink: 0, unmatchedError: 0 };
  private readonly links = new Map<number, Link>();
  /** L2CAP PDUs being reassembled, per direction and connection handle. */
  private readonly partials = new Map<string, Partial>();
  /** Connection handles of LE Start Encryption commands awaiting their Command Status. */
  private readonly startingEncryption: number[] = [];
  /** Connection handles of link procedures awaiting their Command Status, per opcode. */
  private readonly awaitingStatus = new Map<number, number[]>();

  /** The link to a board as the controller last described it, while it is up. */
  linkState(peripheralId: string): LinkState | undefined {
    const link = this.linkTo(peripheralId);
    return link && snapshot(link);
  }

  /** The connection handle of the board's link, while it is up. */
  handleOf(peripheralId: string): number | undefined {
    for (const [handle, link] of this.links) if (link.peripheralId === peripheralId) return handle;
    return undefined;
  }

  /** Every link's connection handle. */
  handles(): number[] {
    return [...this.links.keys()];
  }

  /** What `packet` tells; a packet it cannot read is counted, never thrown on. */
  read(direction: Direction, packet: Buffer): Report[] {
    try {
      return this.readPacket(direction, packet);
    } catch (err) {
      if (!(err instanceof Malformed) && !(err instanceof RangeError)) throw err;
      this.counts.malformed += 1;
      return [];
    }
  }

  private readPacket(direction: Direction, packet: Buffer): Report[] {
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
    if (STATUS_CAUSES.has(op) || COMPLETE_CAUSES.has(op)) {
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
        const op = p.readUInt16LE(1);
        const cause = COMPLETE_CAUSES.get(op);
        if (cause) {
          // An unknown command is answered by its status alone, without the handle.
          need(p, 4);
          const link = this.links.get(this.awaitingStatus.get(op)?.shift() ?? -1);
          return link && p[3] !== 0 ? [changed(link, cause, p[3] ?? 0)] : [];
        }
        if (op !== HCI_CMD.readRssi) return [];
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
        if (p[0] === LE_SUBEVENT.dataLengthChange) return this.dataLengthChanged(p);
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
    const address = addressOfBytes(p.subarray(6, 12));
    this.forget(handle);
    this.links.set(handle, {
      address,
      peripheralId: address.replace(/:/g, ''),
      encrypted: false,
      inFlight: undefined,
      intervalMs: p.readUInt16LE(timing) * 1.25,
      latency: p.readUInt16LE(timing + 2),
      supervisionTimeoutMs: p.readUInt16LE(timing + 4) * 10,
      // Every LE link starts on the 1M PHY (Vol 6, Part B, 5.1.10), with 27-octet PDUs (4.5.10).
      txPhy: '1M',
      rxPhy: '1M',
      dataLength: 27,
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

  /**
   * LE Data Length Change (7.7.65.7): Subevent_Code, Connection_Handle, Max_TX_Octets,
   * Max_TX_Time, Max_RX_Octets, Max_RX_Time. The link's data length is what the central sends.
   */
  private dataLengthChanged(p: Buffer): Report[] {
    need(p, 11);
    const link = this.links.get(p.readUInt16LE(1) & 0x0fff);
    if (!link) return [];
    link.dataLength = p.readUInt16LE(3);
    return [changed(link, 'dataLength', 0)];
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
