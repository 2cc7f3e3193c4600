// The Bluetooth SIG's assigned names. Services, characteristics and descriptors come from the
// tables noble ships (it is a dependency; they are not copied here); company identifiers, which
// noble lacks, are kept beside this file with their origin, date and licence
// (company-identifiers.json, company-identifiers.LICENSE.txt).
import characteristics from '@abandonware/noble/lib/characteristics.json';
import descriptors from '@abandonware/noble/lib/descriptors.json';
import services from '@abandonware/noble/lib/services.json';
import companyIdentifiers from './company-identifiers.json';
import { expandUuid, normalizeUuid } from '../port';

type NameTable = Record<string, { name: string }>;

export type AttributeKind = 'service' | 'characteristic' | 'descriptor';

const TABLES: Record<AttributeKind, NameTable> = {
  service: services,
  characteristic: characteristics,
  descriptor: descriptors,
};

/** The Bluetooth Base UUID's tail (Vol 3, Part B, 2.5.1): a SIG-assigned 16-bit UUID inside it. */
const BASE_TAIL = '00001000800000805f9b34fb';

/** The 16-bit form of a UUID in the Bluetooth Base range, else undefined. */
function shortForm(uuid: string): string | undefined {
  let full: string;
  try {
    full = expandUuid(normalizeUuid(uuid));
  } catch {
    return undefined;
  }
  if (!full.startsWith('0000') || !full.endsWith(BASE_TAIL)) return undefined;
  return full.slice(4, 8);
}

/** The SIG's name for an attribute UUID (any form), looked up in the tables of `kinds`, in order. */
export function sigName(
  uuid: string,
  kinds: readonly AttributeKind[] = ['characteristic', 'service', 'descriptor'],
): string | undefined {
  const short = shortForm(uuid);
  if (short === undefined) return undefined;
  for (const kind of kinds) {
    const entry = TABLES[kind][short];
    if (entry) return entry.name;
  }
  return undefined;
}

const COMPANIES: Record<string, string> = companyIdentifiers.companies;

/** The company a manufacturer-data identifier was assigned to (Core Spec Supplement, Part A, 1.4). */
export function companyName(id: number): string | undefined {
  return COMPANIES[id.toString(16).padStart(4, '0')];
}
