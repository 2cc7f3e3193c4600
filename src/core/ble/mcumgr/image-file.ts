// Reads an MCUboot image file (docs/mcumgr/image.md, "Image file"): the 32-byte header, the
// payload, the protected and unprotected TLV areas, and the SHA-256 the bootloader checks.
// A file that is not one is refused naming what is wrong, before any byte goes to a board.
import { createHash } from 'node:crypto';

export const MCUBOOT_IMAGE_MAGIC = 0x96f3b83d;
const HEADER_SIZE = 32;
const TLV_INFO_MAGIC = 0x6907;
const TLV_PROTECTED_INFO_MAGIC = 0x6908;
const TLV_INFO_SIZE = 4;
const TLV_HEADER_SIZE = 4;
const TLV_SHA256 = 0x10;
const SHA256_SIZE = 32;

interface ImageVersion {
  major: number;
  minor: number;
  revision: number;
  build: number;
}

interface ImageTlv {
  type: number;
  protected: boolean;
  value: Uint8Array;
}

export interface McubootImage {
  version: ImageVersion;
  /** "1.2.3", with ".build" when the build number is not 0, as MCUmgr's image list shows it. */
  versionText: string;
  loadAddress: number;
  headerSize: number;
  /** The payload's size (after the header, before the TLVs). */
  imageSize: number;
  flags: number;
  tlvs: ImageTlv[];
  /** The SHA-256 TLV: what the board lists as the slot's hash. */
  hash: Uint8Array;
  /** The whole file, as uploaded. */
  bytes: Uint8Array;
}

/** What is wrong with a file, for a board that answers each with its own result code. */
export type ImageProblem = 'not-an-image' | 'header' | 'truncated' | 'tlv' | 'no-hash' | 'corrupt';

/** The file is not an MCUboot image; the message says what is wrong and where. */
export class ImageFileError extends Error {
  override name = 'ImageFileError';
  constructor(
    readonly problem: ImageProblem,
    message: string,
  ) {
    super(message);
  }
}

function formatImageVersion(v: ImageVersion): string {
  const base = `${v.major}.${v.minor}.${v.revision}`;
  return v.build === 0 ? base : `${base}.${v.build}`;
}

const hex = (n: number, digits: number) => `0x${n.toString(16).padStart(digits, '0')}`;

export function readMcubootImage(bytes: Uint8Array): McubootImage {
  if (bytes.length < HEADER_SIZE)
    throw new ImageFileError(
      'not-an-image',
      `not an MCUboot image: ${bytes.length} bytes is shorter than the ${HEADER_SIZE}-byte header`,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== MCUBOOT_IMAGE_MAGIC)
    throw new ImageFileError(
      'not-an-image',
      `not an MCUboot image: header magic is ${hex(magic, 8)}, expected ${hex(MCUBOOT_IMAGE_MAGIC, 8)} (a plain .bin or .hex? upload the signed image, e.g. zephyr.signed.bin)`,
    );
  const loadAddress = view.getUint32(4, true);
  const headerSize = view.getUint16(8, true);
  const protectedTlvSize = view.getUint16(10, true);
  const imageSize = view.getUint32(12, true);
  const flags = view.getUint32(16, true);
  const version: ImageVersion = {
    major: view.getUint8(20),
    minor: view.getUint8(21),
    revision: view.getUint16(22, true),
    build: view.getUint32(24, true),
  };
  if (headerSize < HEADER_SIZE)
    throw new ImageFileError(
      'header',
      `MCUboot header size is ${headerSize}, less than the header's own ${HEADER_SIZE} bytes`,
    );
  const payloadEnd = headerSize + imageSize;
  if (payloadEnd > bytes.length)
    throw new ImageFileError(
      'truncated',
      `truncated MCUboot image: header and payload need ${payloadEnd} bytes, the file has ${bytes.length}`,
    );

  const tlvs: ImageTlv[] = [];
  let at = payloadEnd;
  if (protectedTlvSize > 0) {
    const end = readTlvArea(view, at, TLV_PROTECTED_INFO_MAGIC, true, tlvs);
    if (end - at !== protectedTlvSize)
      throw new ImageFileError(
        'header',
        `MCUboot header says the protected TLVs take ${protectedTlvSize} bytes, their area takes ${end - at}`,
      );
    at = end;
  }
  at = readTlvArea(view, at, TLV_INFO_MAGIC, false, tlvs);
  if (at !== bytes.length)
    throw new ImageFileError(
      'tlv',
      `MCUboot image has ${bytes.length - at} bytes after its TLV area (at offset ${at})`,
    );

  const hashes = tlvs.filter((t) => t.type === TLV_SHA256);
  if (hashes.length !== 1)
    throw new ImageFileError(
      'no-hash',
      hashes.length === 0
        ? 'MCUboot image has no SHA-256 TLV (type 0x10): the bootloader would refuse it'
        : `MCUboot image has ${hashes.length} SHA-256 TLVs; it must have one`,
    );
  const hash = hashes[0]!.value;
  if (hash.length !== SHA256_SIZE)
    throw new ImageFileError(
      'tlv',
      `MCUboot SHA-256 TLV is ${hash.length} bytes, expected ${SHA256_SIZE}`,
    );
  // The hash covers the header, the payload and the protected TLVs (docs/mcumgr/image.md).
  const computed = createHash('sha256')
    .update(bytes.subarray(0, payloadEnd + protectedTlvSize))
    .digest();
  if (!computed.equals(hash))
    throw new ImageFileError(
      'corrupt',
      `corrupt MCUboot image: its SHA-256 TLV says ${Buffer.from(hash).toString('hex')}, the contents hash to ${computed.toString('hex')}`,
    );

  return {
    version,
    versionText: formatImageVersion(version),
    loadAddress,
    headerSize,
    imageSize,
    flags,
    tlvs,
    hash,
    bytes,
  };
}

/** One TLV area: its info header (magic, total length including itself), then its entries. */
function readTlvArea(
  view: DataView,
  start: number,
  magic: number,
  isProtected: boolean,
  into: ImageTlv[],
): number {
  const area = isProtected ? 'protected TLV area' : 'TLV area';
  if (start + TLV_INFO_SIZE > view.byteLength)
    throw new ImageFileError(
      'truncated',
      `truncated MCUboot image: no ${area} after the payload (offset ${start})`,
    );
  const found = view.getUint16(start, true);
  if (found !== magic)
    throw new ImageFileError(
      'tlv',
      `MCUboot ${area} at offset ${start} has magic ${hex(found, 4)}, expected ${hex(magic, 4)}`,
    );
  const total = view.getUint16(start + 2, true);
  const end = start + total;
  if (total < TLV_INFO_SIZE || end > view.byteLength)
    throw new ImageFileError(
      'truncated',
      `truncated MCUboot image: the ${area} says ${total} bytes, ${view.byteLength - start} remain`,
    );
  let at = start + TLV_INFO_SIZE;
  while (at < end) {
    if (at + TLV_HEADER_SIZE > end)
      throw new ImageFileError(
        'tlv',
        `MCUboot ${area}: a TLV header at offset ${at} runs past its end`,
      );
    const type = view.getUint16(at, true);
    const length = view.getUint16(at + 2, true);
    const valueStart = at + TLV_HEADER_SIZE;
    if (valueStart + length > end)
      throw new ImageFileError(
        'tlv',
        `MCUboot ${area}: TLV ${hex(type, 2)} at offset ${at} says ${length} bytes, past the area's end`,
      );
    into.push({
      type,
      protected: isProtected,
      value: new Uint8Array(view.buffer, view.byteOffset + valueStart, length).slice(),
    });
    at = valueStart + length;
  }
  return end;
}
