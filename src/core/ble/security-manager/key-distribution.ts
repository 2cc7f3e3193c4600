// The keys each side hands out once the link is encrypted (Bluetooth Core Specification v5.3,
// Vol 3, Part H, 3.6): the board's first — its LTK with EDIV and Rand under legacy, its IRK and
// identity address, its CSRK — then the station's identity, its IRK and identity address, as a
// phone hands out its own (docs/decisions/ble-and-hci.md, "The station's identity in pairing").
import { SMP_CODE } from '../hci/codes';
import { addressBytes, addressText } from './crypto';

/** Key distribution bits of the Pairing Request and Response (3.6.1). */
export const KEY_ENC = 0x01;
export const KEY_ID = 0x02;
export const KEY_SIGN = 0x04;

/** The key distribution PDUs by their specification names (3.6.2–3.6.6), for words. */
export const KEY_PDU_NAMES: Partial<Record<number, string>> = {
  [SMP_CODE.encryptionInformation]: 'Encryption Information',
  [SMP_CODE.centralIdentification]: 'Central Identification',
  [SMP_CODE.identityInformation]: 'Identity Information',
  [SMP_CODE.identityAddressInformation]: 'Identity Address Information',
  [SMP_CODE.signingInformation]: 'Signing Information',
};

/** An identity address: public, or static random. */
interface IdentityAddress {
  address: string;
  type: 'public' | 'random';
}

/** The keys a bond keeps: the board's LTK (with EDIV/Rand for legacy), IRK, identity, CSRK. */
export interface BondKeys {
  ltk: Uint8Array;
  ediv: number;
  rand: Uint8Array;
  irk?: Uint8Array;
  identityAddress?: IdentityAddress;
  csrk?: Uint8Array;
}

/** What the station hands out as its identity: its IRK (as SMP carries it) and its address. */
export interface StationIdentityKeys {
  irk: Uint8Array;
  identityAddress: IdentityAddress;
}

/** The board's keys, in the order it sends them (3.6.1), from the PDUs `next` gives. */
export async function receiveBoardKeys(
  agreed: number,
  next: (code: number) => Promise<Uint8Array>,
): Promise<BondKeys> {
  const keys: BondKeys = { ltk: new Uint8Array(16), ediv: 0, rand: new Uint8Array(8) };
  if (agreed & KEY_ENC) {
    keys.ltk = (await next(SMP_CODE.encryptionInformation)).slice(1);
    const ident = await next(SMP_CODE.centralIdentification);
    keys.ediv = ident[1]! | (ident[2]! << 8);
    keys.rand = ident.slice(3);
  }
  if (agreed & KEY_ID) {
    keys.irk = (await next(SMP_CODE.identityInformation)).slice(1);
    const identity = await next(SMP_CODE.identityAddressInformation);
    keys.identityAddress = {
      type: identity[1] === 1 ? 'random' : 'public',
      address: addressText(identity.subarray(2)),
    };
  }
  if (agreed & KEY_SIGN) keys.csrk = (await next(SMP_CODE.signingInformation)).slice(1);
  return keys;
}

/** Identity Information and Identity Address Information (3.6.4–3.6.5) for the station. */
export function stationIdentityPdus({ irk, identityAddress }: StationIdentityKeys): Uint8Array[] {
  return [
    Uint8Array.of(SMP_CODE.identityInformation, ...irk),
    Uint8Array.of(
      SMP_CODE.identityAddressInformation,
      identityAddress.type === 'random' ? 1 : 0,
      ...addressBytes(identityAddress.address),
    ),
  ];
}
