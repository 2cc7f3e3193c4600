// The station's own address on the air: the one rule that makes noble's scans and connections
// use a static random identity, and how such an address is made. noble's hci.js writes
// own-address-type public into every LE Set Scan Parameters and LE Create Connection (and their
// extended forms); for a controller with no public address the tap rewrites that one field on
// the way out, so noble stays unpatched (docs/decisions.md, "One identity per dongle").
import { randomBytes } from 'node:crypto';
import { HCI_CMD, HCI_PACKET } from './codes';

/** Own_Address_Type values (Vol 4, Part E, 7.8.10). */
export const OWN_ADDRESS_TYPE = { public: 0x00, random: 0x01 } as const;

/**
 * Where each command that names the station's own address type carries it, counted in the
 * command's parameters: LE Set Scan Parameters (7.8.10), LE Create Connection (7.8.12), LE Set
 * Extended Scan Parameters (7.8.64), LE Extended Create Connection (7.8.66).
 */
const OWN_ADDRESS_TYPE_AT: ReadonlyMap<number, number> = new Map([
  [HCI_CMD.leSetScanParameters, 5],
  [HCI_CMD.leCreateConnection, 12],
  [HCI_CMD.leSetExtendedScanParameters, 0],
  [HCI_CMD.leExtendedCreateConnection, 1],
]);

/**
 * `packet` (an H4 command from the host) with its own-address-type set to `type`; any other
 * packet, or one too short to hold the field, unchanged.
 */
export function withOwnAddressType(packet: Buffer, type: 'public' | 'random'): Buffer {
  if (packet.length < 4 || packet[0] !== HCI_PACKET.command) return packet;
  const at = OWN_ADDRESS_TYPE_AT.get(packet.readUInt16LE(1));
  if (at === undefined || packet.length <= 4 + at) return packet;
  const rewritten = Buffer.from(packet);
  rewritten[4 + at] = OWN_ADDRESS_TYPE[type];
  return rewritten;
}

/** "aa:bb:…" (most significant octet first) from an HCI BD_ADDR (least significant first). */
export function addressOfBytes(bytes: Uint8Array): string {
  return Array.from(bytes)
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}

/** The HCI BD_ADDR (least significant octet first) of "aa:bb:…". */
export function bytesOfAddress(address: string): Buffer {
  return Buffer.from(address.split(':').reverse().join(''), 'hex');
}

/** A controller with no public address answers Read BD_ADDR with zeros. */
export const NO_ADDRESS = '00:00:00:00:00:00';

/**
 * A static device address (Vol 6, Part B, 1.3.2.1): the two most significant bits 11, and the
 * other 46 bits neither all zeros nor all ones.
 */
export function isStaticAddress(address: string): boolean {
  const bytes = bytesOfAddress(address);
  if (bytes.length !== 6 || ((bytes[5] ?? 0) & 0xc0) !== 0xc0) return false;
  const rest = [...bytes.subarray(0, 5), (bytes[5] ?? 0) & 0x3f];
  const ones = [...bytes.subarray(0, 5).map(() => 0xff), 0x3f];
  return rest.some((b) => b !== 0) && rest.some((b, i) => b !== ones[i]);
}

/** A new static device address from `random` (default: node's CSPRNG). */
export function generateStaticAddress(random: (size: number) => Uint8Array = randomBytes): string {
  for (;;) {
    const bytes = Buffer.from(random(6));
    bytes[5] = ((bytes[5] ?? 0) & 0x3f) | 0xc0;
    const address = addressOfBytes(bytes);
    if (isStaticAddress(address)) return address;
  }
}
