// One MCUmgr message as it travels: the 8-byte Simple Management Protocol header and its CBOR
// body (docs/mcumgr/protocol.md). Not the Bluetooth Security Manager, whose sim side is
// `sim/smp-responder.ts`: every name here says "mcumgr" or "frame".
import { decode, encode } from 'cborg';

const MCUMGR_HEADER_LENGTH = 8;

/** The header's OP field: a request reads or writes, and each has its response. */
export const MCUMGR_OP = { read: 0, readResponse: 1, write: 2, writeResponse: 3 } as const;

type McumgrOp = (typeof MCUMGR_OP)[keyof typeof MCUMGR_OP];

/** The header's Ver field: 0 is the original protocol, 1 is version 2 (group errors). */
export type McumgrVersion = 0 | 1;

export interface McumgrHeader {
  op: McumgrOp;
  version: McumgrVersion;
  flags: number;
  /** Length of the CBOR body after the header. */
  length: number;
  group: number;
  sequence: number;
  command: number;
}

/** A CBOR map as MCUmgr bodies are: text keys, values of any CBOR type (bytes as Uint8Array). */
export type McumgrBody = Record<string, unknown>;

export interface McumgrFrame {
  header: McumgrHeader;
  body: McumgrBody;
}

/** A frame that cannot be read; says which part is wrong. */
export class McumgrFrameError extends Error {
  override name = 'McumgrFrameError';
}

/** Res (3 bits, 0) | Ver (2 bits) | OP (3 bits), then big-endian fields. */
export function encodeHeader(header: McumgrHeader): Uint8Array {
  const bytes = new Uint8Array(MCUMGR_HEADER_LENGTH);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, ((header.version & 0b11) << 3) | (header.op & 0b111));
  view.setUint8(1, header.flags);
  view.setUint16(2, header.length);
  view.setUint16(4, header.group);
  view.setUint8(6, header.sequence);
  view.setUint8(7, header.command);
  return bytes;
}

export function decodeHeader(bytes: Uint8Array): McumgrHeader {
  if (bytes.length < MCUMGR_HEADER_LENGTH)
    throw new McumgrFrameError(
      `MCUmgr header is ${MCUMGR_HEADER_LENGTH} bytes, got ${bytes.length}`,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, MCUMGR_HEADER_LENGTH);
  const first = view.getUint8(0);
  return {
    op: (first & 0b111) as McumgrOp,
    version: ((first >> 3) & 0b11) as McumgrVersion,
    flags: view.getUint8(1),
    length: view.getUint16(2),
    group: view.getUint16(4),
    sequence: view.getUint8(6),
    command: view.getUint8(7),
  };
}

export function encodeFrame(header: Omit<McumgrHeader, 'length'>, body: McumgrBody): Uint8Array {
  const payload = encode(body);
  const frame = new Uint8Array(MCUMGR_HEADER_LENGTH + payload.length);
  frame.set(encodeHeader({ ...header, length: payload.length }));
  frame.set(payload, MCUMGR_HEADER_LENGTH);
  return frame;
}

/** A whole frame: exactly the header's length of CBOR after it, and that CBOR a map. */
export function decodeFrame(bytes: Uint8Array): McumgrFrame {
  const header = decodeHeader(bytes);
  const rest = bytes.length - MCUMGR_HEADER_LENGTH;
  if (rest !== header.length)
    throw new McumgrFrameError(
      `MCUmgr header says ${header.length} bytes of data, the frame carries ${rest}`,
    );
  if (header.length === 0) return { header, body: {} };
  let body: unknown;
  try {
    body = decode(bytes.subarray(MCUMGR_HEADER_LENGTH));
  } catch (error) {
    throw new McumgrFrameError(`MCUmgr data is not CBOR: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    body instanceof Uint8Array
  )
    throw new McumgrFrameError('MCUmgr data must be a CBOR map');
  return { header, body: body as McumgrBody };
}

/**
 * Splits a byte stream of notifications into frames: the BLE transport adds no framing of its
 * own, so a frame ends where its header's length says (docs/mcumgr/protocol.md).
 */
export class McumgrReassembler {
  private pending = new Uint8Array(0);

  /** Adds one notification's bytes; returns every frame now complete, in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    const joined = new Uint8Array(this.pending.length + chunk.length);
    joined.set(this.pending);
    joined.set(chunk, this.pending.length);
    const frames: Uint8Array[] = [];
    let at = 0;
    while (joined.length - at >= MCUMGR_HEADER_LENGTH) {
      const length = decodeHeader(joined.subarray(at)).length + MCUMGR_HEADER_LENGTH;
      if (joined.length - at < length) break;
      frames.push(joined.slice(at, at + length));
      at += length;
    }
    this.pending = joined.slice(at);
    return frames;
  }

  /** Drops a partial frame (the link went down, or a request was given up). */
  reset(): void {
    this.pending = new Uint8Array(0);
  }
}
