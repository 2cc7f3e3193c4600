// Advertising and scan response data read as AD structures (Core Specification Supplement,
// Part A, 1; layout in Vol 3, Part C, 11): length, type, data, one after another. Every byte is
// accounted for: a structure that runs past the end, or a field too short for its type, is
// reported as such rather than dropped. Pure and browser-safe: core and renderer share it.
import { companyName } from '../names/sig';

/** AD types (Bluetooth SIG Assigned Numbers, 2.3 Common Data Types) the inspector decodes. */
export const AD_TYPE = {
  flags: 0x01,
  incomplete16: 0x02,
  complete16: 0x03,
  incomplete32: 0x04,
  complete32: 0x05,
  incomplete128: 0x06,
  complete128: 0x07,
  shortenedName: 0x08,
  completeName: 0x09,
  txPower: 0x0a,
  serviceData16: 0x16,
  serviceData32: 0x20,
  serviceData128: 0x21,
  manufacturer: 0xff,
} as const;

const AD_TYPE_NAMES: Record<number, string> = {
  [AD_TYPE.flags]: 'Flags',
  [AD_TYPE.incomplete16]: 'Incomplete list of 16-bit service UUIDs',
  [AD_TYPE.complete16]: 'Complete list of 16-bit service UUIDs',
  [AD_TYPE.incomplete32]: 'Incomplete list of 32-bit service UUIDs',
  [AD_TYPE.complete32]: 'Complete list of 32-bit service UUIDs',
  [AD_TYPE.incomplete128]: 'Incomplete list of 128-bit service UUIDs',
  [AD_TYPE.complete128]: 'Complete list of 128-bit service UUIDs',
  [AD_TYPE.shortenedName]: 'Shortened local name',
  [AD_TYPE.completeName]: 'Complete local name',
  [AD_TYPE.txPower]: 'TX power level',
  [AD_TYPE.serviceData16]: 'Service data, 16-bit UUID',
  [AD_TYPE.serviceData32]: 'Service data, 32-bit UUID',
  [AD_TYPE.serviceData128]: 'Service data, 128-bit UUID',
  [AD_TYPE.manufacturer]: 'Manufacturer specific data',
};

/** The Flags bits (Core Specification Supplement, Part A, 1.3.2). */
const FLAG_BITS = [
  'LE Limited Discoverable Mode',
  'LE General Discoverable Mode',
  'BR/EDR Not Supported',
  'Simultaneous LE and BR/EDR (Controller)',
  'Simultaneous LE and BR/EDR (Host)',
] as const;

export type AdField =
  | { kind: 'flags'; value: number; set: string[] }
  | { kind: 'serviceUuids'; bits: 16 | 32 | 128; complete: boolean; uuids: string[] }
  | { kind: 'localName'; complete: boolean; name: string }
  | { kind: 'txPower'; dbm: number }
  | { kind: 'serviceData'; uuid: string; data: string }
  | { kind: 'manufacturerData'; companyId: number; company?: string; data: string }
  | { kind: 'other' }
  | { kind: 'malformed'; message: string };

export interface AdStructure {
  /** Offset of the length byte in the payload. */
  offset: number;
  /** The whole structure's bytes (length, type, data) as lowercase hex. */
  hex: string;
  type: number;
  typeName: string;
  field: AdField;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A UUID as it reads, from the little-endian bytes that travel (Vol 3, Part C, 11). */
function uuidOf(bytes: Uint8Array): string {
  return toHex(Uint8Array.from(bytes).reverse());
}

function uuidList(data: Uint8Array, width: number): string[] | undefined {
  if (data.length % width !== 0) return undefined;
  const uuids: string[] = [];
  for (let i = 0; i < data.length; i += width) uuids.push(uuidOf(data.subarray(i, i + width)));
  return uuids;
}

const UUID_LISTS: Record<number, { bits: 16 | 32 | 128; complete: boolean }> = {
  [AD_TYPE.incomplete16]: { bits: 16, complete: false },
  [AD_TYPE.complete16]: { bits: 16, complete: true },
  [AD_TYPE.incomplete32]: { bits: 32, complete: false },
  [AD_TYPE.complete32]: { bits: 32, complete: true },
  [AD_TYPE.incomplete128]: { bits: 128, complete: false },
  [AD_TYPE.complete128]: { bits: 128, complete: true },
};

const SERVICE_DATA_WIDTH: Record<number, number> = {
  [AD_TYPE.serviceData16]: 2,
  [AD_TYPE.serviceData32]: 4,
  [AD_TYPE.serviceData128]: 16,
};

function field(type: number, data: Uint8Array): AdField {
  const list = UUID_LISTS[type];
  if (list) {
    const uuids = uuidList(data, list.bits / 8);
    return uuids
      ? { kind: 'serviceUuids', ...list, uuids }
      : {
          kind: 'malformed',
          message: `${data.length} bytes is not a whole number of ${list.bits}-bit UUIDs`,
        };
  }
  const width = SERVICE_DATA_WIDTH[type];
  if (width !== undefined) {
    if (data.length < width)
      return { kind: 'malformed', message: `needs ${width} bytes of UUID, got ${data.length}` };
    return {
      kind: 'serviceData',
      uuid: uuidOf(data.subarray(0, width)),
      data: toHex(data.subarray(width)),
    };
  }
  switch (type) {
    case AD_TYPE.flags: {
      if (data.length < 1) return { kind: 'malformed', message: 'needs 1 byte, got 0' };
      const value = data[0] ?? 0;
      return { kind: 'flags', value, set: FLAG_BITS.filter((_, bit) => value & (1 << bit)) };
    }
    case AD_TYPE.shortenedName:
    case AD_TYPE.completeName:
      return {
        kind: 'localName',
        complete: type === AD_TYPE.completeName,
        name: new TextDecoder().decode(data),
      };
    case AD_TYPE.txPower:
      if (data.length !== 1)
        return { kind: 'malformed', message: `needs 1 byte, got ${data.length}` };
      return { kind: 'txPower', dbm: new DataView(data.buffer, data.byteOffset).getInt8(0) };
    case AD_TYPE.manufacturer:
      return manufacturerData(data);
    default:
      return { kind: 'other' };
  }
}

/** Manufacturer specific data: a little-endian company identifier, then the company's bytes. */
export function manufacturerData(data: Uint8Array): AdField {
  if (data.length < 2)
    return {
      kind: 'malformed',
      message: `needs 2 bytes of company identifier, got ${data.length}`,
    };
  const companyId = (data[0] ?? 0) | ((data[1] ?? 0) << 8);
  return {
    kind: 'manufacturerData',
    companyId,
    company: companyName(companyId),
    data: toHex(data.subarray(2)),
  };
}

function typeName(type: number): string {
  return AD_TYPE_NAMES[type] ?? `AD type 0x${type.toString(16).padStart(2, '0')}`;
}

/** The payload's AD structures in order. A zero length byte ends the significant part (Vol 3, Part C, 11). */
export function parseAdStructures(payload: Uint8Array): AdStructure[] {
  const structures: AdStructure[] = [];
  let offset = 0;
  while (offset < payload.length) {
    const length = payload[offset] ?? 0;
    if (length === 0) break;
    const end = offset + 1 + length;
    const type = payload[offset + 1] ?? 0;
    if (end > payload.length) {
      structures.push({
        offset,
        hex: toHex(payload.subarray(offset)),
        type,
        typeName: typeName(type),
        field: {
          kind: 'malformed',
          message: `says ${length} bytes follow, but only ${payload.length - offset - 1} do`,
        },
      });
      break;
    }
    structures.push({
      offset,
      hex: toHex(payload.subarray(offset, end)),
      type,
      typeName: typeName(type),
      field: field(type, payload.subarray(offset + 2, end)),
    });
    offset = end;
  }
  return structures;
}
