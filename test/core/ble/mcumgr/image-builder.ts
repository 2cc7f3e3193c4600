// Builds MCUboot images byte by byte from the documented layout (docs/mcumgr/image.md), for
// the tests of the image reader, the simulated board and the CLI.
import { createHash } from 'node:crypto';

export interface BuildOptions {
  version?: [number, number, number, number];
  payload?: Uint8Array;
  headerSize?: number;
  /** Protected TLVs as [type, value]; empty: no protected area. */
  protectedTlvs?: [number, Uint8Array][];
  /** Extra unprotected TLVs after the SHA-256 one. */
  tlvs?: [number, Uint8Array][];
  /** Replaces the SHA-256 TLV's value (to build a corrupt image). */
  hash?: Uint8Array;
}

function tlvArea(magic: number, entries: [number, Uint8Array][]): Uint8Array {
  const total = 4 + entries.reduce((n, [, v]) => n + 4 + v.length, 0);
  const out = Buffer.alloc(total);
  out.writeUInt16LE(magic, 0);
  out.writeUInt16LE(total, 2);
  let at = 4;
  for (const [type, value] of entries) {
    out.writeUInt16LE(type, at);
    out.writeUInt16LE(value.length, at + 2);
    out.set(value, at + 4);
    at += 4 + value.length;
  }
  return out;
}

export function buildImage(options: BuildOptions = {}): Uint8Array {
  const [major, minor, revision, build] = options.version ?? [1, 2, 3, 0];
  const payload = options.payload ?? Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff);
  const headerSize = options.headerSize ?? 32;
  const prot = options.protectedTlvs?.length ? tlvArea(0x6908, options.protectedTlvs) : undefined;
  const header = Buffer.alloc(headerSize);
  header.writeUInt32LE(0x96f3b83d, 0);
  header.writeUInt32LE(0, 4);
  header.writeUInt16LE(headerSize, 8);
  header.writeUInt16LE(prot?.length ?? 0, 10);
  header.writeUInt32LE(payload.length, 12);
  header.writeUInt32LE(0, 16);
  header.writeUInt8(major, 20);
  header.writeUInt8(minor, 21);
  header.writeUInt16LE(revision, 22);
  header.writeUInt32LE(build, 24);
  const signed = Buffer.concat([header, payload, prot ?? Buffer.alloc(0)]);
  const hash = options.hash ?? createHash('sha256').update(signed).digest();
  return Buffer.concat([signed, tlvArea(0x6907, [[0x10, hash], ...(options.tlvs ?? [])])]);
}
