// The LE legacy pairing functions (Bluetooth Core Specification v5.3, Vol 3, Part H, 2.2.1,
// 2.2.3 and 2.2.4) for the simulated boards' SMP responder. Every value here is in PDU order,
// least significant octet first, as SMP carries it; the spec writes the same values most
// significant octet first, so AES-128 sees each block reversed.
import { createCipheriv } from 'node:crypto';

function reversed(bytes: Uint8Array): Uint8Array {
  return Uint8Array.from(bytes).reverse();
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.map((byte, i) => byte ^ (b[i] ?? 0));
}

function requireLength(name: string, value: Uint8Array, length: number): void {
  if (value.length !== length)
    throw new Error(`${name}: must be ${length} bytes, got ${value.length}`);
}

/** The security function e: AES-128 of one block (Vol 3, Part H, 2.2.1). */
export function e(key: Uint8Array, plaintext: Uint8Array): Uint8Array {
  requireLength('key', key, 16);
  requireLength('plaintext', plaintext, 16);
  const cipher = createCipheriv('aes-128-ecb', reversed(key), null);
  cipher.setAutoPadding(false);
  const block = Buffer.concat([cipher.update(reversed(plaintext)), cipher.final()]);
  return reversed(block);
}

/** The inputs of the confirm value function c1, named as in Vol 3, Part H, 2.2.3. */
export interface C1Input {
  /** The temporary key: all zeros for Just Works. */
  k: Uint8Array;
  /** The 128-bit random of the side whose confirm this is (Mrand or Srand). */
  r: Uint8Array;
  /** The Pairing Request PDU, code included (7 bytes). */
  preq: Uint8Array;
  /** The Pairing Response PDU, code included (7 bytes). */
  pres: Uint8Array;
  /** Initiator and responder address types: 0 public, 1 random. */
  iat: 0 | 1;
  rat: 0 | 1;
  /** Initiator and responder addresses (6 bytes each). */
  ia: Uint8Array;
  ra: Uint8Array;
}

/** The confirm value function c1 (Vol 3, Part H, 2.2.3). */
export function c1({ k, r, preq, pres, iat, rat, ia, ra }: C1Input): Uint8Array {
  requireLength('r', r, 16);
  requireLength('preq', preq, 7);
  requireLength('pres', pres, 7);
  requireLength('ia', ia, 6);
  requireLength('ra', ra, 6);
  // p1 = pres || preq || rat' || iat' and p2 = padding || ia || ra, most significant first.
  const p1 = Uint8Array.of(iat, rat, ...preq, ...pres);
  const p2 = Uint8Array.of(...ra, ...ia, 0, 0, 0, 0);
  return e(k, xor(e(k, xor(r, p1)), p2));
}

/** The key generation function s1, the STK of legacy pairing (Vol 3, Part H, 2.2.4). */
export function s1(k: Uint8Array, r1: Uint8Array, r2: Uint8Array): Uint8Array {
  requireLength('r1', r1, 16);
  requireLength('r2', r2, 16);
  // r' = r1' || r2' with r2' in the least significant half: in PDU order r2's half comes first.
  return e(k, Uint8Array.of(...r2.subarray(0, 8), ...r1.subarray(0, 8)));
}
