// The keys a simulated board's pairing ends with (Bluetooth Core Specification v5.3, Vol 3,
// Part H, 2.3.4 and 3.6): the key cut to the negotiated size, and the PDUs the board hands out
// once the link is encrypted, with the bond it keeps.
import { SMP_CODE } from '../hci/codes';
import { addressBytes, addressText } from '../security-manager/crypto';
import type { BoardBond, BoardIdentity } from './smp-responder-options';

/** Pairing Request/Response key distribution bits (Vol 3, Part H, 3.6.1). */
export const KEY_DIST_ENC_KEY = 0x01;
export const KEY_DIST_ID_KEY = 0x02;

/** What a key is: ATT's permissions look at it. */
export type KeyStrength = Pick<BoardBond, 'authenticated' | 'sc' | 'keySize'>;

/** What both sides agreed on that decides the keys handed out. */
interface Agreed {
  /** The responder key distribution both sides agreed on. */
  responderKeys: number;
  /** Both sides asked to bond. */
  bonding: boolean;
  strength: KeyStrength;
}

/** A key cut to the negotiated size: the most significant octets beyond it are zero (Vol 3, Part H, 2.3.4). */
export function masked(key: Uint8Array, keySize: number): Uint8Array {
  return key.map((byte, i) => (i < keySize ? byte : 0));
}

/** A passkey (or zero, Just Works) as TK / r: a 128-bit number, least significant octet first. */
export function passkeyValue(passkey: number): Uint8Array {
  const value = new Uint8Array(16);
  new DataView(value.buffer).setUint32(0, passkey, true);
  return value;
}

/**
 * LE legacy: Encryption Information (LTK) and Central Identification (EDIV, Rand), Vol 3,
 * Part H, 3.6.2–3.6.3, then the identity keys; the bond only when both sides bond.
 */
export function legacyKeys(
  agreed: Agreed,
  identity: BoardIdentity | undefined,
  random: (bytes: number) => Uint8Array,
): { keys: Uint8Array[]; bond?: BoardBond } {
  const identityPdus = identityKeys(agreed.responderKeys, identity);
  if ((agreed.responderKeys & KEY_DIST_ENC_KEY) === 0) return { keys: identityPdus };
  const ltk = masked(random(16), agreed.strength.keySize);
  const ediv = random(2);
  const rand = random(8);
  return {
    keys: [
      Uint8Array.of(SMP_CODE.encryptionInformation, ...ltk),
      Uint8Array.of(SMP_CODE.centralIdentification, ...ediv, ...rand),
      ...identityPdus,
    ],
    bond: agreed.bonding
      ? { ltk, ediv: ediv[0]! | (ediv[1]! << 8), rand, ...agreed.strength }
      : undefined,
  };
}

/** Identity Information (IRK) and Identity Address Information, Vol 3, Part H, 3.6.4–3.6.5. */
export function identityKeys(
  responderKeys: number,
  identity: BoardIdentity | undefined,
): Uint8Array[] {
  if (!identity || (responderKeys & KEY_DIST_ID_KEY) === 0) return [];
  return [
    Uint8Array.of(SMP_CODE.identityInformation, ...identity.irk),
    Uint8Array.of(
      SMP_CODE.identityAddressInformation,
      identity.type === 'random' ? 1 : 0,
      ...addressBytes(identity.address),
    ),
  ];
}

/**
 * The central's identity keys, taken after the board's own (Vol 3, Part H, 3.6.1): its IRK in
 * Identity Information, then its identity address. Returns what is known after `pdu`, or
 * undefined for a PDU out of order or of the wrong length.
 */
export function centralIdentityKey(
  known: { irk?: Uint8Array },
  pdu: Uint8Array,
): { irk: Uint8Array; identity?: BoardIdentity } | undefined {
  if (pdu[0] === SMP_CODE.identityInformation)
    return known.irk || pdu.length !== 17 ? undefined : { irk: pdu.slice(1) };
  if (!known.irk || pdu.length !== 8) return undefined;
  const type = pdu[1] === 1 ? 'random' : 'public';
  return {
    irk: known.irk,
    identity: { irk: known.irk, type, address: addressText(pdu.subarray(2)) },
  };
}
