// Link keys out of the HCI traces: which bytes of a packet are a key, so the trace writer and
// the trace export can overwrite them with a marker of the same length (the packet still
// parses) and note in the trace that they did. Anything sent in clear over the air stays —
// EDIV and Rand, the pairing's confirm and random values, public keys — since hiding it hides
// nothing from a listener and Wireshark needs it (docs/decisions/ble-and-hci.md, "Keys in
// traces"). The checks cost a few byte compares per packet: traces are on the hot path.
import { L2CAP_CID } from '../att/codes';
import type { Direction } from './btsnoop';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, LE_SUBEVENT, SMP_CODE, traceNote } from './codes';

/** What stands where a key was: `REDACTED` over and over, so a hex view reads it. */
const MARKER = Buffer.from('REDACTED', 'latin1');

/** A key field: where it starts in the packet (H4 type byte at 0), its length, what it is. */
interface KeyField {
  at: number;
  length: number;
  key: string;
  /** The packet, as a reader of the trace finds it in Wireshark. */
  in: string;
}

/** H4 type, opcode (2), parameter length: a command's parameters start at 4 (Vol 4, Part E, 5.4.1). */
const COMMAND_PARAMS = 4;
/** H4 type, event code, parameter length (5.4.4). */
const EVENT_PARAMS = 3;

/** The keys of the commands a host sends (Vol 4, Part E, 7.8), by opcode. */
const COMMAND_KEYS: ReadonlyMap<number, readonly KeyField[]> = new Map([
  // Connection_Handle (2), Random_Number (8), Encrypted_Diversifier (2), Long_Term_Key (7.8.24).
  [
    HCI_CMD.leStartEncryption,
    [{ at: COMMAND_PARAMS + 12, length: 16, key: 'LTK', in: 'LE Enable Encryption' }],
  ],
  // Connection_Handle (2), Long_Term_Key (7.8.25).
  [
    HCI_CMD.leLongTermKeyRequestReply,
    [{ at: COMMAND_PARAMS + 2, length: 16, key: 'LTK', in: 'LE Long Term Key Request Reply' }],
  ],
  // Key, Plaintext_Data (7.8.22).
  [HCI_CMD.leEncrypt, [{ at: COMMAND_PARAMS, length: 16, key: 'key', in: 'LE Encrypt' }]],
  // Peer_Identity_Address_Type, Peer_Identity_Address (6), Peer_IRK, Local_IRK (7.8.38).
  [
    HCI_CMD.leAddDeviceToResolvingList,
    [
      {
        at: COMMAND_PARAMS + 7,
        length: 16,
        key: 'peer IRK',
        in: 'LE Add Device To Resolving List',
      },
      {
        at: COMMAND_PARAMS + 23,
        length: 16,
        key: 'local IRK',
        in: 'LE Add Device To Resolving List',
      },
    ],
  ],
]);

/** LE Encrypt's answer: Num_HCI_Command_Packets, Command_Opcode (2), Status, Encrypted_Data (7.8.22). */
const ENCRYPTED_DATA: readonly KeyField[] = [
  { at: EVENT_PARAMS + 4, length: 16, key: 'encrypted data', in: 'LE Encrypt Command Complete' },
];
/** LE Generate DHKey Complete: Subevent_Code, Status, DH_Key (32) (7.7.65.9). */
const DH_KEY: readonly KeyField[] = [
  { at: EVENT_PARAMS + 2, length: 32, key: 'DHKey', in: 'LE Generate DHKey Complete' },
];

/**
 * The SMP key distribution PDUs whose 16 bytes after the code are a key (Vol 3, Part H,
 * 3.6.2, 3.6.4, 3.6.6): Encryption Information (LTK), Identity Information (IRK), Signing
 * Information (CSRK). Central Identification (EDIV, Rand) is in clear on the air at every
 * encryption start (LL_ENC_REQ), and so in LE Enable Encryption: it stays.
 */
const SMP_KEYS: ReadonlyMap<number, { key: string; in: string }> = new Map([
  [SMP_CODE.encryptionInformation, { key: 'LTK', in: 'SMP Encryption Information' }],
  [SMP_CODE.identityInformation, { key: 'IRK', in: 'SMP Identity Information' }],
  [SMP_CODE.signingInformation, { key: 'CSRK', in: 'SMP Signing Information' }],
]);
/** ACL header: H4 type, Handle and flags (2), Data_Total_Length (2) (Vol 4, Part E, 5.4.2). */
const ACL_DATA = 5;
/** L2CAP basic header: Length (2), Channel ID (2) (Vol 3, Part A, 3.1); then the SMP code. */
const L2CAP_HEADER = 4;
/** Where an SMP key sits in its L2CAP frame: after the header and the code, 16 bytes. */
const SMP_KEY_START = L2CAP_HEADER + 1;
const SMP_KEY_END = SMP_KEY_START + 16;
const PB_CONTINUATION = 0b01;

// The numbers `find` compares every packet with, read once: an imported object's property on
// every packet costs more than all the compares together where modules are not bundled.
const ACL = HCI_PACKET.acl;
const COMMAND = HCI_PACKET.command;
const EVENT = HCI_PACKET.event;
const COMMAND_COMPLETE = HCI_EVENT.commandComplete;
const LE_META = HCI_EVENT.leMeta;
const DH_KEY_COMPLETE = LE_SUBEVENT.generateDhKeyComplete;
const LE_ENCRYPT = HCI_CMD.leEncrypt;
const SMP_CID = L2CAP_CID.smp;

/** What one packet carries: its key bytes (ranges of the packet) and the note the trace gets. */
export interface KeyFinding {
  /** Packet offsets, and how far into its key the first byte is (a later fragment's part). */
  ranges: readonly (readonly [start: number, end: number, intoKey: number])[];
  /** The keys, in words: `LTK in LE Enable Encryption`. */
  what: string;
}

/** An L2CAP frame on one direction and handle that started in an earlier ACL packet. */
interface OpenFrame {
  /** Its first bytes as they came: length, channel, SMP code. */
  head: Buffer;
  /** Bytes of the frame seen so far, header included. */
  seen: number;
}

/**
 * Finds the keys in a stream of H4 packets, one direction and link at a time: an SMP PDU the
 * link layer split over ACL fragments (a Zephyr board's relay does) is followed from its start
 * fragment into the continuations. One finder per trace file, fed in order.
 */
export class KeyFinder {
  private readonly open = new Map<number, OpenFrame>();

  /** The key bytes of `packet`, or undefined (the common case, answered in a few compares). */
  find(direction: Direction, packet: Uint8Array): KeyFinding | undefined {
    const type = packet[0];
    if (type === ACL) return this.acl(direction, packet);
    if (type === COMMAND) {
      const fields = COMMAND_KEYS.get((packet[1] ?? 0) | ((packet[2] ?? 0) << 8));
      return fields && fieldsIn(packet, fields);
    }
    if (type !== EVENT) return undefined;
    if (packet[1] === COMMAND_COMPLETE)
      return ((packet[4] ?? 0) | ((packet[5] ?? 0) << 8)) === LE_ENCRYPT
        ? fieldsIn(packet, ENCRYPTED_DATA)
        : undefined;
    if (packet[1] === LE_META && packet[3] === DH_KEY_COMPLETE) return fieldsIn(packet, DH_KEY);
    return undefined;
  }

  private acl(direction: Direction, packet: Uint8Array): KeyFinding | undefined {
    if (packet.length <= ACL_DATA) return undefined;
    const header = (packet[1] ?? 0) | ((packet[2] ?? 0) << 8);
    const stream = (direction === 'sent' ? 0x1000 : 0) | (header & 0x0fff);
    if (((header >> 12) & 0b11) === PB_CONTINUATION) {
      if (this.open.size === 0) return undefined;
      const frame = this.open.get(stream);
      return frame && this.follow(stream, frame, packet);
    }
    if (this.open.size !== 0) this.open.delete(stream);
    // The whole SMP header in this fragment: the common case needs no state.
    if (packet.length >= ACL_DATA + SMP_KEY_START) {
      const cid = (packet[ACL_DATA + 2] ?? 0) | ((packet[ACL_DATA + 3] ?? 0) << 8);
      if (cid !== SMP_CID || !SMP_KEYS.has(packet[ACL_DATA + L2CAP_HEADER] ?? 0)) return undefined;
    }
    return this.follow(stream, { head: Buffer.alloc(SMP_KEY_START), seen: 0 }, packet);
  }

  /** The key bytes of one fragment of a frame that may be an SMP key PDU. */
  private follow(stream: number, frame: OpenFrame, packet: Uint8Array): KeyFinding | undefined {
    const data = packet.length - ACL_DATA;
    for (let i = 0; frame.seen + i < SMP_KEY_START && i < data; i++)
      frame.head[frame.seen + i] = packet[ACL_DATA + i]!;
    const from = frame.seen;
    frame.seen += data;
    const headed = frame.seen >= L2CAP_HEADER;
    if (headed && frame.head.readUInt16LE(2) !== SMP_CID) {
      this.open.delete(stream);
      return undefined;
    }
    const total = headed ? frame.head.readUInt16LE(0) + L2CAP_HEADER : Infinity;
    if (frame.seen >= total) this.open.delete(stream);
    else this.open.set(stream, frame);
    const smp = frame.seen > L2CAP_HEADER ? SMP_KEYS.get(frame.head[L2CAP_HEADER]!) : undefined;
    if (smp === undefined) {
      if (frame.seen > L2CAP_HEADER) this.open.delete(stream);
      return undefined;
    }
    const start = Math.max(SMP_KEY_START, from);
    const end = Math.min(SMP_KEY_END, frame.seen, total);
    if (start >= end) return undefined;
    return {
      ranges: [[ACL_DATA + start - from, ACL_DATA + end - from, start - SMP_KEY_START]],
      what: `${smp.key} in ${smp.in}`,
    };
  }
}

/** The fields of a packet, as far as it carries them. */
function fieldsIn(packet: Uint8Array, fields: readonly KeyField[]): KeyFinding | undefined {
  const ranges: [number, number, number][] = [];
  const keys: string[] = [];
  for (const field of fields) {
    const end = Math.min(field.at + field.length, packet.length);
    if (field.at >= end) continue;
    ranges.push([field.at, end, 0]);
    keys.push(field.key);
  }
  return ranges.length === 0
    ? undefined
    : { ranges, what: `${keys.join(' and ')} in ${fields[0]!.in}` };
}

/** The marker's byte at `at` into a key. */
const markerAt = (at: number) => MARKER[at % MARKER.length]!;

/** Whether the bytes are the marker already: a packet a trace recorded redacted. */
function isMarked(packet: Uint8Array, [start, end, intoKey]: KeyFinding['ranges'][number]) {
  for (let i = start; i < end; i++) if (packet[i] !== markerAt(i - start + intoKey)) return false;
  return true;
}

/** Whether the finding's key bytes are still in clear in `packet` (not the marker). */
export function holdsKeys(packet: Uint8Array, finding: KeyFinding): boolean {
  return finding.ranges.some((range) => !isMarked(packet, range));
}

/** Overwrites the finding's key bytes in `packet` itself with the marker. */
export function redact(packet: Uint8Array, finding: KeyFinding): void {
  for (const [start, end, intoKey] of finding.ranges)
    for (let i = start; i < end; i++) packet[i] = markerAt(i - start + intoKey);
}

const NOTE_PREFIX = 'key redacted: ';

/** The trace's note after a redacted packet: what was there and how to keep it next time. */
export function redactionNote(finding: KeyFinding): Buffer {
  return traceNote(
    `${NOTE_PREFIX}the ${finding.what}, the packet before this one, reads "REDACTED"; ` +
      'keys stay in a trace only by choice (devicebench trace --keep-keys)',
  );
}

/** The parameters every redaction note starts with. */
const NOTE_HEAD = traceNote(NOTE_PREFIX).subarray(3);

/** Whether `packet` is a redaction note (`redactionNote`). */
export function isRedactionNote(packet: Uint8Array): boolean {
  if (packet[0] !== HCI_PACKET.event || packet[1] !== HCI_EVENT.vendorSpecific) return false;
  if (packet.length < 3 + NOTE_HEAD.length) return false;
  for (let i = 0; i < NOTE_HEAD.length; i++) if (packet[3 + i] !== NOTE_HEAD[i]) return false;
  return true;
}
