// A board's advertisement as it goes on the air: AD structures (Core Specification Supplement,
// Part A, 1) packed into the 31 bytes of ADV_IND and the 31 of SCAN_RSP, as firmware has to.
// Service UUIDs lead the advertising packet (a scan filter needs them there); the name, TX power
// and manufacturer data follow in the scan response; what does not fit is cut, as on a board.
import { AD_TYPE as AD } from '../advertising/ad-structures';

/** LE General Discoverable, BR/EDR not supported. */
const FLAGS_GENERAL_DISCOVERABLE = 0x06;
const MAX_PAYLOAD = 31;

export interface AdvertisedFields {
  localName?: string;
  /** Lowercase hex without dashes, 4 or 32 characters. */
  serviceUuids: string[];
  manufacturerData?: Uint8Array;
  txPowerLevel?: number;
}

export interface AdvertisingPayloads {
  adv: Buffer;
  scanResponse: Buffer;
}

function structure(type: number, data: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([data.length + 1, type]), data]);
}

/** A UUID's bytes as they travel: little-endian, the reverse of how the string reads. */
function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid, 'hex').reverse();
}

class Packet {
  private readonly parts: Buffer[] = [];
  private used = 0;

  get free(): number {
    return MAX_PAYLOAD - this.used;
  }

  add(part: Buffer): boolean {
    if (part.length > this.free) return false;
    this.parts.push(part);
    this.used += part.length;
    return true;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Puts as many UUIDs of one size as fit into `packet`; returns the ones left over. */
function addUuids(packet: Packet, uuids: string[], complete: number, incomplete: number): string[] {
  if (!uuids.length) return [];
  const size = uuids[0]!.length / 2;
  const fit = Math.max(0, Math.min(uuids.length, Math.floor((packet.free - 2) / size)));
  if (fit === 0) return uuids;
  const type = fit === uuids.length ? complete : incomplete;
  packet.add(structure(type, Buffer.concat(uuids.slice(0, fit).map(uuidBytes))));
  return uuids.slice(fit);
}

export function encodeAdvertisement(
  fields: AdvertisedFields,
  connectable: boolean,
): AdvertisingPayloads {
  const adv = new Packet();
  const rsp = new Packet();
  if (connectable) adv.add(structure(AD.flags, Uint8Array.of(FLAGS_GENERAL_DISCOVERABLE)));
  const short = fields.serviceUuids.filter((u) => u.length === 4);
  const long = fields.serviceUuids.filter((u) => u.length === 32);
  const shortLeft = addUuids(adv, short, AD.complete16, AD.incomplete16);
  const longLeft = addUuids(adv, long, AD.complete128, AD.incomplete128);
  addUuids(rsp, shortLeft, AD.incomplete16, AD.incomplete16);
  addUuids(rsp, longLeft, AD.incomplete128, AD.incomplete128);
  if (fields.txPowerLevel !== undefined) {
    const tx = structure(AD.txPower, Uint8Array.of(fields.txPowerLevel & 0xff));
    if (!rsp.add(tx)) adv.add(tx);
  }
  if (fields.manufacturerData) {
    const m = structure(AD.manufacturer, fields.manufacturerData);
    if (!adv.add(m)) rsp.add(m);
  }
  if (fields.localName) {
    const name = Buffer.from(fields.localName, 'utf8');
    const target = rsp.free >= adv.free ? rsp : adv;
    if (name.length + 2 <= target.free) target.add(structure(AD.completeName, name));
    else if (target.free > 2)
      target.add(structure(AD.shortenedName, truncateUtf8(name, target.free - 2)));
  }
  return { adv: adv.bytes(), scanResponse: rsp.bytes() };
}

/** Cuts UTF-8 bytes at a character boundary. */
function truncateUtf8(bytes: Buffer, max: number): Buffer {
  let end = Math.min(max, bytes.length);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}
