// The btsnoop file format, version 1, datalink 1002 (HCI UART, H4): every packet keeps its H4
// type byte, so Wireshark decodes the file as it is. Layout and choices: docs/decisions.md
// ("HCI traces").
import { HCI_PACKET } from './codes';

/** The 16-byte file header: `btsnoop\0`, version 1, datalink 1002 (big-endian). */
const BTSNOOP_MAGIC = Buffer.from('btsnoop\0', 'latin1');
const BTSNOOP_VERSION = 1;
const BTSNOOP_DATALINK_H4 = 1002;
export const BTSNOOP_HEADER_BYTES = 16;
/** Original length, included length, flags, cumulative drops (u32 each), timestamp (i64). */
const BTSNOOP_RECORD_HEADER_BYTES = 24;

/** Microseconds from 0000-01-01 (the format's epoch) to 1970-01-01. */
export const BTSNOOP_EPOCH_OFFSET_US = 0x00dcddb30f2f8000n;

/** Record flag bits. */
const BTSNOOP_FLAG = {
  /** Set: controller → host. Clear: host → controller. */
  received: 0x01,
  /** Set: an HCI command or event. Clear: data (ACL, SCO, ISO). */
  commandOrEvent: 0x02,
} as const;

export type Direction = 'sent' | 'received';

export interface BtsnoopRecord {
  /** Microseconds since the Unix epoch. */
  timestampUs: number;
  direction: Direction;
  flags: number;
  /** The packet's length before any truncation; equal to `data.length` in files we write. */
  originalLength: number;
  drops: number;
  /** The H4 packet, type byte first. */
  data: Uint8Array;
}

export class BtsnoopError extends Error {
  override name = 'BtsnoopError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

export function btsnoopHeader(): Buffer {
  const header = Buffer.alloc(BTSNOOP_HEADER_BYTES);
  BTSNOOP_MAGIC.copy(header, 0);
  header.writeUInt32BE(BTSNOOP_VERSION, 8);
  header.writeUInt32BE(BTSNOOP_DATALINK_H4, 12);
  return header;
}

/** The flags for an H4 packet: direction, and whether its type byte says command or event. */
export function btsnoopFlags(direction: Direction, packet: Uint8Array): number {
  const type = packet[0];
  const control = type === HCI_PACKET.command || type === HCI_PACKET.event;
  return (
    (direction === 'received' ? BTSNOOP_FLAG.received : 0) |
    (control ? BTSNOOP_FLAG.commandOrEvent : 0)
  );
}

/** Bytes one record of this packet takes in a file. */
export function btsnoopRecordBytes(packet: Uint8Array): number {
  return BTSNOOP_RECORD_HEADER_BYTES + packet.length;
}

/** The fields a record is written from; `originalLength` defaults to the data's length. */
export interface BtsnoopRecordFields {
  timestampUs: number;
  flags: number;
  drops: number;
  originalLength?: number;
  data: Uint8Array;
}

/** Writes one record into `target` at `offset`; answers the offset after it. */
export function writeBtsnoopRecord(
  target: Buffer,
  offset: number,
  record: BtsnoopRecordFields,
): number {
  const { data } = record;
  target.writeUInt32BE(record.originalLength ?? data.length, offset);
  target.writeUInt32BE(data.length, offset + 4);
  target.writeUInt32BE(record.flags, offset + 8);
  target.writeUInt32BE(record.drops >>> 0, offset + 12);
  target.writeBigInt64BE(
    BigInt(Math.round(record.timestampUs)) + BTSNOOP_EPOCH_OFFSET_US,
    offset + 16,
  );
  target.set(data, offset + BTSNOOP_RECORD_HEADER_BYTES);
  return offset + BTSNOOP_RECORD_HEADER_BYTES + data.length;
}

/** A whole file: the header, then the records in the order given. */
export function encodeBtsnoop(records: readonly BtsnoopRecordFields[]): Buffer {
  const size = records.reduce((n, r) => n + btsnoopRecordBytes(r.data), BTSNOOP_HEADER_BYTES);
  const out = Buffer.allocUnsafe(size);
  btsnoopHeader().copy(out, 0);
  let offset = BTSNOOP_HEADER_BYTES;
  for (const r of records) offset = writeBtsnoopRecord(out, offset, r);
  return out;
}

export interface ParsedBtsnoop {
  records: BtsnoopRecord[];
  /** Bytes after the last whole record: a record cut short when the writer's process died. */
  trailingBytes: number;
}

/** Checks the 16-byte header; throws a BtsnoopError naming the bad field. */
function checkBtsnoopHeader(file: Uint8Array): void {
  if (file.length < BTSNOOP_HEADER_BYTES)
    throw new BtsnoopError(
      'header',
      `needs ${BTSNOOP_HEADER_BYTES} bytes, the file has ${file.length}`,
    );
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (!buf.subarray(0, 8).equals(BTSNOOP_MAGIC))
    throw new BtsnoopError('header.magic', 'is not "btsnoop\\0": not a btsnoop file');
  const version = buf.readUInt32BE(8);
  if (version !== BTSNOOP_VERSION)
    throw new BtsnoopError('header.version', `is ${version}, only version 1 is read`);
  const datalink = buf.readUInt32BE(12);
  if (datalink !== BTSNOOP_DATALINK_H4)
    throw new BtsnoopError('header.datalink', `is ${datalink}, only 1002 (H4) is read`);
}

/**
 * Every whole record of a file. A record whose included length runs past the end of the file
 * is the cut-short tail of a crashed writer: it and what follows are `trailingBytes`.
 */
export function parseBtsnoop(file: Uint8Array): ParsedBtsnoop {
  checkBtsnoopHeader(file);
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const records: BtsnoopRecord[] = [];
  let offset = BTSNOOP_HEADER_BYTES;
  while (offset + BTSNOOP_RECORD_HEADER_BYTES <= buf.length) {
    const included = buf.readUInt32BE(offset + 4);
    const end = offset + BTSNOOP_RECORD_HEADER_BYTES + included;
    if (end > buf.length) break;
    const flags = buf.readUInt32BE(offset + 8);
    records.push({
      originalLength: buf.readUInt32BE(offset),
      flags,
      direction: flags & BTSNOOP_FLAG.received ? 'received' : 'sent',
      drops: buf.readUInt32BE(offset + 12),
      timestampUs: Number(buf.readBigInt64BE(offset + 16) - BTSNOOP_EPOCH_OFFSET_US),
      data: buf.subarray(offset + BTSNOOP_RECORD_HEADER_BYTES, end),
    });
    offset = end;
  }
  return { records, trailingBytes: buf.length - offset };
}
