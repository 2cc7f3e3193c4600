// Whether a packet from the controller is whole enough for noble's hci.js to read. noble reads
// each event it knows at fixed offsets without looking at the length byte (a Number Of Completed
// Packets that names more handles than it carries reads past its end and throws), so on a noisy
// stream a packet whose own lengths do not agree must never reach it (docs/decisions.md, "H4
// transports"). The offsets are those of the events in Bluetooth Core v5.3, Vol 4, Part E, 7.7.
import { HCI_CMD, HCI_EVENT, HCI_PACKET, LE_SUBEVENT } from './codes';

/** LE Extended Advertising Report (7.7.65.13), which noble reads when the controller has it. */
const LE_EXTENDED_ADVERTISING_REPORT = 0x0d;

/** Return parameters noble reads of a Command Complete (after Status), per command it sends. */
const RETURN_BYTES: ReadonlyMap<number, number> = new Map([
  // HCI_Version, HCI_Revision, LMP_Version, Company_Identifier, LMP_Subversion (7.4.1).
  [HCI_CMD.readLocalVersion, 8],
  // Supported_Commands (7.4.2): noble reads octet 37.
  [HCI_CMD.readSupportedCommands, 38],
  // BD_ADDR (7.4.6).
  [HCI_CMD.readBdAddr, 6],
  // Connection_Handle, RSSI (7.5.4).
  [HCI_CMD.readRssi, 3],
  // ACL_Data_Packet_Length (2), Synchronous_Data_Packet_Length (1), Total_Num_ACL_Data_Packets (7.4.5).
  [HCI_CMD.readBufferSize, 5],
]);

/** Return parameters noble reads only when Status is success. */
const RETURN_BYTES_ON_SUCCESS: ReadonlyMap<number, number> = new Map([
  // LE_Supported_Host, Unused (7.3.78).
  [HCI_CMD.readLeHostSupported, 2],
  // LE_ACL_Data_Packet_Length, Total_Num_LE_ACL_Data_Packets (7.8.2).
  [HCI_CMD.leReadBufferSize, 3],
]);

/** Why a Command Complete's parameters (`p`: after the length byte) are short, if they are. */
function commandCompleteFault(p: Buffer): string | undefined {
  // Num_HCI_Command_Packets, Command_Opcode; opcode 0 (no command) carries nothing more.
  if (p.length < 3) return 'a Command Complete shorter than its opcode';
  const op = p.readUInt16LE(1);
  if (op === 0) return undefined;
  if (p.length < 4) return `a Command Complete for 0x${hex(op, 4)} without its status`;
  const needed = RETURN_BYTES.get(op) ?? (p[3] === 0 ? RETURN_BYTES_ON_SUCCESS.get(op) : 0) ?? 0;
  return p.length - 4 < needed
    ? `a Command Complete for 0x${hex(op, 4)} with ${p.length - 4} of its ${needed} return bytes`
    : undefined;
}

/**
 * Reports one after another, each a fixed part, a data length at `lengthAt` and that much data
 * (`fixed` counts every byte but the data): they must fill the parameters exactly.
 */
function reportsFault(
  p: Buffer,
  fixed: number,
  lengthAt: number,
  what: string,
): string | undefined {
  const count = p[1] ?? 0;
  if (count === 0) return `${what} with no reports`;
  let at = 2;
  for (let i = 0; i < count; i += 1) {
    if (at + lengthAt >= p.length) return `${what} shorter than its ${count} reports`;
    at += fixed + p[at + lengthAt]!;
  }
  return at === p.length ? undefined : `${what} whose reports do not fill its length`;
}

/**
 * The events an LE controller sends a host, with their parameter length where it is fixed
 * (7.7): any other code in an event header is noise whose length byte would swallow what follows.
 */
const LE_HOST_EVENTS: ReadonlyMap<number, number | undefined> = new Map([
  [HCI_EVENT.disconnectionComplete, 4],
  [HCI_EVENT.encryptionChange, 4],
  // Read Remote Version Information Complete (7.7.12).
  [0x0c, 8],
  [HCI_EVENT.commandComplete, undefined],
  [HCI_EVENT.commandStatus, 4],
  [HCI_EVENT.hardwareError, 1],
  [HCI_EVENT.numberOfCompletedPackets, undefined],
  // Data Buffer Overflow (7.7.26).
  [0x1a, 1],
  [HCI_EVENT.encryptionKeyRefreshComplete, 3],
  [HCI_EVENT.leMeta, undefined],
  // Authenticated Payload Timeout Expired (7.7.75), Encryption Change v2 (7.7.8).
  [0x57, 2],
  [0x59, 5],
  // Vendor-specific: anything.
  [0xff, undefined],
]);

/** Exact parameter lengths of the LE subevents noble (or the H4 socket) reads (7.7.65). */
const LE_SUBEVENT_LENGTHS: ReadonlyMap<number, number> = new Map([
  [LE_SUBEVENT.connectionComplete, 19],
  [LE_SUBEVENT.connectionUpdateComplete, 10],
  [LE_SUBEVENT.enhancedConnectionComplete, 31],
  // Read by the tap and the H4 socket (7.7.65.12).
  [LE_SUBEVENT.phyUpdateComplete, 6],
]);

function leMetaFault(p: Buffer): string | undefined {
  // noble reads the subevent code and the byte after it (a status or a report count) of every one.
  if (p.length < 2) return 'an LE Meta event shorter than its subevent';
  const sub = p[0]!;
  const exact = LE_SUBEVENT_LENGTHS.get(sub);
  if (exact !== undefined)
    return p.length === exact
      ? undefined
      : `an LE subevent 0x${hex(sub, 2)} of ${p.length} bytes (it has ${exact})`;
  // Event_Type, Address_Type, Address, Data_Length, Data, RSSI (7.7.65.2).
  if (sub === LE_SUBEVENT.advertisingReport)
    return reportsFault(p, 10, 8, 'an LE Advertising Report');
  // Event_Type (2), Address_Type, Address, PHYs, SID, Tx_Power, RSSI, interval (2), direct
  // address type and address, Data_Length, Data (7.7.65.13).
  if (sub === LE_EXTENDED_ADVERTISING_REPORT)
    return reportsFault(p, 24, 23, 'an LE Extended Advertising Report');
  return undefined;
}

/** An event's header: its code is one LE controllers send, its length the code's own. */
function eventHeaderFault(header: Buffer): string | undefined {
  const code = header[1]!;
  if (!LE_HOST_EVENTS.has(code))
    return `an event 0x${hex(code, 2)}, which LE controllers do not send`;
  const exact = LE_HOST_EVENTS.get(code);
  return exact !== undefined && header[2] !== exact
    ? `an event 0x${hex(code, 2)} of ${header[2]} parameter bytes (it has ${exact})`
    : undefined;
}

function eventFault(packet: Buffer): string | undefined {
  if (packet.length < 3) return 'an event shorter than its header';
  if (packet[2] !== packet.length - 3)
    return `an event whose length byte says ${packet[2]} but carries ${packet.length - 3}`;
  const headerFault = eventHeaderFault(packet);
  if (headerFault) return headerFault;
  const code = packet[1]!;
  const p = packet.subarray(3);
  switch (code) {
    case HCI_EVENT.commandComplete:
      return commandCompleteFault(p);
    // Num_Handles, then a Connection_Handle and a count per handle (7.7.19).
    case HCI_EVENT.numberOfCompletedPackets:
      return p.length >= 1 && p.length === 1 + 4 * p[0]!
        ? undefined
        : `a Number Of Completed Packets of ${p.length} bytes for ${p[0] ?? 0} handles`;
    case HCI_EVENT.leMeta:
      return leMetaFault(p);
    default:
      return undefined;
  }
}

/** ACL Packet_Boundary_Flag values from the controller (Vol 4, Part E, 5.4.2). */
const PB_CONTINUATION = 0b01;
const PB_START = 0b10;

/** An ACL header's flags: no broadcast, and a start or a continuation. */
function aclHeaderFault(packet: Buffer): string | undefined {
  const header = packet.readUInt16LE(1);
  const boundary = (header >> 12) & 0b11;
  if (header >> 14 !== 0) return 'an ACL packet with a broadcast flag (LE has none)';
  if (boundary !== PB_CONTINUATION && boundary !== PB_START)
    return `an ACL packet with boundary flag ${boundary} from a controller`;
  return undefined;
}

function aclFault(packet: Buffer): string | undefined {
  if (packet.length < 5) return 'an ACL packet shorter than its header';
  const length = packet.readUInt16LE(3);
  if (length !== packet.length - 5)
    return `an ACL packet whose length says ${length} but carries ${packet.length - 5}`;
  const headerFault = aclHeaderFault(packet);
  if (headerFault) return headerFault;
  if (((packet.readUInt16LE(1) >> 12) & 0b11) === PB_CONTINUATION) return undefined;
  // A first fragment starts with the L2CAP header: length, channel (Vol 3, Part A, 3.1).
  if (length < 4) return 'an ACL start fragment shorter than its L2CAP header';
  const l2capLength = packet.readUInt16LE(5);
  return l2capLength < length - 4
    ? `an ACL start fragment of ${length - 4} bytes for an L2CAP frame of ${l2capLength}`
    : undefined;
}

/**
 * Why the header of an event or ACL packet from the controller (H4 type byte first: 3 bytes of
 * an event, 5 of ACL data) starts no packet a controller sends, before its body is waited for.
 */
export function controllerHeaderFault(header: Buffer): string | undefined {
  if (header[0] === HCI_PACKET.event) return eventHeaderFault(header);
  if (header[0] === HCI_PACKET.acl) return aclHeaderFault(header);
  return undefined;
}

/**
 * Why an event or ACL packet from the controller (H4 type byte first) cannot be what it says it
 * is, in words, or undefined when its lengths agree with each other and with what noble reads.
 */
export function controllerPacketFault(packet: Buffer): string | undefined {
  if (packet[0] === HCI_PACKET.event) return eventFault(packet);
  if (packet[0] === HCI_PACKET.acl) return aclFault(packet);
  return `a packet of type 0x${hex(packet[0] ?? 0, 2)} a host does not take`;
}

/**
 * A Command Complete for no command (opcode 0): a controller's way of saying how many commands
 * it takes. It is whole, but noble reads a status it does not carry, so it stays here.
 */
export function isNoCommandComplete(packet: Buffer): boolean {
  return (
    packet[0] === HCI_PACKET.event &&
    packet[1] === HCI_EVENT.commandComplete &&
    packet.length >= 6 &&
    packet.readUInt16LE(4) === 0
  );
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}
