// The Security Manager's cryptographic toolbox (Bluetooth Core Specification v5.3, Vol 3,
// Part H, 2.2): LE legacy pairing (e, c1, s1), LE Secure Connections (AES-CMAC, P-256 ECDH, f4,
// f5, f6, g2) and the private address hash ah. Shared by the station's SMP initiator and the
// simulated boards' responder. Every value here is in PDU order, least significant octet first,
// as SMP carries it; the spec writes the same values most significant octet first, so AES sees
// each block reversed.
import { createCipheriv, createECDH, timingSafeEqual } from 'node:crypto';

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

/** AES-128 of one block, key and block most significant octet first (as the cipher sees them). */
function aes(keyMsb: Uint8Array, blockMsb: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-128-ecb', keyMsb, null);
  cipher.setAutoPadding(false);
  return Uint8Array.from(Buffer.concat([cipher.update(blockMsb), cipher.final()]));
}

/** A Bluetooth address ("aa:bb:cc:dd:ee:ff") as SMP carries it: six octets, LSB first. */
export function addressBytes(address: string): Uint8Array {
  return Uint8Array.from(address.split(':').map((octet) => parseInt(octet, 16))).reverse();
}

/** Constant-time comparison of two confirm or check values. */
export function sameValue(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The security function e: AES-128 of one block (Vol 3, Part H, 2.2.1). */
export function e(key: Uint8Array, plaintext: Uint8Array): Uint8Array {
  requireLength('key', key, 16);
  requireLength('plaintext', plaintext, 16);
  return reversed(aes(reversed(key), reversed(plaintext)));
}

/** The random address hash function ah (Vol 3, Part H, 2.2.2): the hash half of an RPA. */
export function ah(irk: Uint8Array, prand: Uint8Array): Uint8Array {
  requireLength('prand', prand, 3);
  // r' = padding || r, so in PDU order r's three octets come first.
  const block = new Uint8Array(16);
  block.set(prand);
  return e(irk, block).subarray(0, 3);
}

/**
 * Whether a resolvable private address was made from this IRK (Vol 6, Part B, 1.3.2.3): its
 * top two bits are 01 and its lower 24 bits are ah(IRK, prand) of its upper 24.
 */
export function resolvesPrivateAddress(irk: Uint8Array, address: string): boolean {
  const bytes = addressBytes(address);
  if (bytes.length !== 6 || (bytes[5]! & 0xc0) !== 0x40) return false;
  return sameValue(ah(irk, bytes.subarray(3, 6)), bytes.subarray(0, 3));
}

/** The inputs of the confirm value function c1, named as in Vol 3, Part H, 2.2.3. */
export interface C1Input {
  /** The temporary key: all zeros for Just Works, the passkey for Passkey Entry. */
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

/** The subkey doubling of AES-CMAC: shift left one bit, fold in Rb on a carry. */
function double(block: Uint8Array): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = ((block[i]! << 1) | ((block[i + 1] ?? 0) >> 7)) & 0xff;
  if ((block[0]! & 0x80) !== 0) out[15] = out[15]! ^ 0x87;
  return out;
}

/**
 * AES-CMAC with a 128-bit key (Vol 3, Part H, 2.2.5), key and message most significant octet
 * first: node:crypto has AES but no CMAC, so the mode is built on one-block AES here.
 */
export function aesCmac(keyMsb: Uint8Array, messageMsb: Uint8Array): Uint8Array {
  requireLength('key', keyMsb, 16);
  const k1 = double(aes(keyMsb, new Uint8Array(16)));
  const k2 = double(k1);
  const blocks = Math.max(1, Math.ceil(messageMsb.length / 16));
  const complete = messageMsb.length > 0 && messageMsb.length % 16 === 0;
  const last = new Uint8Array(16);
  last.set(messageMsb.subarray((blocks - 1) * 16));
  if (!complete) last[messageMsb.length - (blocks - 1) * 16] = 0x80;
  let x: Uint8Array = new Uint8Array(16);
  for (let i = 0; i < blocks - 1; i++)
    x = aes(keyMsb, xor(x, messageMsb.subarray(i * 16, i * 16 + 16)));
  return aes(keyMsb, xor(xor(x, last), complete ? k1 : k2));
}

/** AES-CMAC on PDU-order values: the message is the parts concatenated most significant first. */
function cmac(key: Uint8Array, ...partsMsbFirst: Uint8Array[]): Uint8Array {
  const message = Uint8Array.from(partsMsbFirst.flatMap((part) => [...reversed(part)]));
  return reversed(aesCmac(reversed(key), message));
}

/** The confirm value function f4 of LE Secure Connections (Vol 3, Part H, 2.2.6). */
export function f4(u: Uint8Array, v: Uint8Array, x: Uint8Array, z: number): Uint8Array {
  requireLength('U', u, 32);
  requireLength('V', v, 32);
  return cmac(x, u, v, Uint8Array.of(z));
}

/** SALT and keyID of f5 (Vol 3, Part H, 2.2.7), in PDU order. */
const F5_SALT = reversed(Buffer.from('6c888391aaf5a53860370bdb5a6083be', 'hex'));
const F5_KEY_ID = reversed(Buffer.from('62746c65', 'hex'));
const F5_LENGTH = Uint8Array.of(0x00, 0x01);

/**
 * An address as f5 and f6 take it (A1, A2): 56 bits, the address type in the most significant
 * octet (Vol 3, Part H, 2.2.7): in PDU order the six address octets, then the type.
 */
export function addressWithType(address: Uint8Array, random: boolean): Uint8Array {
  requireLength('address', address, 6);
  return Uint8Array.of(...address, random ? 1 : 0);
}

/** The key generation function f5: MacKey and LTK from the DHKey (Vol 3, Part H, 2.2.7). */
export function f5(
  w: Uint8Array,
  n1: Uint8Array,
  n2: Uint8Array,
  a1: Uint8Array,
  a2: Uint8Array,
): { macKey: Uint8Array; ltk: Uint8Array } {
  requireLength('W', w, 32);
  requireLength('A1', a1, 7);
  requireLength('A2', a2, 7);
  const t = cmac(F5_SALT, w);
  const derive = (counter: number) =>
    cmac(t, Uint8Array.of(counter), F5_KEY_ID, n1, n2, a1, a2, F5_LENGTH);
  return { macKey: derive(0), ltk: derive(1) };
}

/** The check value function f6, the DHKey Check (Vol 3, Part H, 2.2.8). */
export function f6(
  w: Uint8Array,
  n1: Uint8Array,
  n2: Uint8Array,
  r: Uint8Array,
  ioCap: Uint8Array,
  a1: Uint8Array,
  a2: Uint8Array,
): Uint8Array {
  requireLength('R', r, 16);
  requireLength('IOcap', ioCap, 3);
  return cmac(w, n1, n2, r, ioCap, a1, a2);
}

/** The numeric comparison value g2: the six digits both sides show (Vol 3, Part H, 2.2.9). */
export function g2(u: Uint8Array, v: Uint8Array, x: Uint8Array, y: Uint8Array): number {
  requireLength('U', u, 32);
  requireLength('V', v, 32);
  const mac = cmac(x, u, v, y);
  return Buffer.from(mac).readUInt32LE(0) % 1_000_000;
}

/** A P-256 key pair for one pairing (Vol 3, Part H, 2.3.5.6.1), public key in PDU order. */
export interface EcdhKeyPair {
  /** X then Y, 32 octets each, least significant first (the Pairing Public Key PDU's body). */
  publicKey: Uint8Array;
  /** The DHKey with a peer's public key, or undefined when that key is not on the curve. */
  dhKey(peerPublicKey: Uint8Array): Uint8Array | undefined;
}

/** A fresh P-256 key pair, or the one of a given private key (most significant first). */
export function ecdhKeyPair(privateKeyMsb?: Uint8Array): EcdhKeyPair {
  const ecdh = createECDH('prime256v1');
  if (privateKeyMsb) ecdh.setPrivateKey(privateKeyMsb);
  else ecdh.generateKeys();
  const uncompressed = ecdh.getPublicKey();
  const publicKey = Uint8Array.of(
    ...reversed(uncompressed.subarray(1, 33)),
    ...reversed(uncompressed.subarray(33, 65)),
  );
  return {
    publicKey,
    dhKey(peer) {
      requireLength('public key', peer, 64);
      const point = Uint8Array.of(
        0x04,
        ...reversed(peer.subarray(0, 32)),
        ...reversed(peer.subarray(32)),
      );
      try {
        return reversed(ecdh.computeSecret(point));
      } catch {
        // node:crypto refuses a point off the curve: the invalid-curve attack the spec warns of.
        return undefined;
      }
    },
  };
}

/** A passkey as the TK / r value: a 128-bit number, least significant octet first. */
export function passkeyValue(passkey: number): Uint8Array {
  const value = new Uint8Array(16);
  new DataView(value.buffer).setUint32(0, passkey, true);
  return value;
}

/** A key cut to `keySize` octets, the rest zero (Vol 3, Part H, 2.3.4). */
export function masked(key: Uint8Array, keySize: number): Uint8Array {
  return key.map((byte, i) => (i < keySize ? byte : 0));
}

/** "aa:bb:…" from an address's octets, least significant first. */
export function addressText(bytes: Uint8Array): string {
  return Array.from(bytes)
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}
