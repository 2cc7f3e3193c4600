// The Security Manager's toolbox on the sample data of the Core Specification (Vol 3, Part H,
// Appendix D). The spec writes values most significant octet first; the functions take them in
// PDU order, so each sample is reversed on the way in and out.
import { describe, expect, it } from 'vitest';
import {
  addressWithType,
  aesCmac,
  ah,
  ecdhKeyPair,
  f4,
  f5,
  f6,
  g2,
  resolvesPrivateAddress,
  sameValue,
} from '../../../../src/core/ble/security-manager/crypto';

const spec = (text: string) =>
  Uint8Array.from(Buffer.from(text.replace(/ /g, ''), 'hex')).reverse();
const msb = (text: string) => Uint8Array.from(Buffer.from(text.replace(/ /g, ''), 'hex'));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

// P-256 data set 1 (Vol 2, Part G, 7.1.2; private key A is Vol 3, Part H, 2.3.5.6.1's debug key):
// both key pairs and the DHKey they agree on.
const PRIVATE_A = msb('3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd');
const PRIVATE_B = msb('55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd');
const PUBLIC_A_X = spec('20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6');
const PUBLIC_A_Y = spec('dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b');
const PUBLIC_B_X = spec('1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190');
const PUBLIC_B_Y = spec('4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a');
const DH_KEY = spec('ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698');

// The inputs D.2–D.5 share.
const U = PUBLIC_A_X;
const V = spec('55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd');
const N1 = spec('d5cb8454 d177733e ffffb2ec 712baeab');
const N2 = spec('a6e8e7cc 25a75f6e 216583f7 ff3dc4cf');
const A1 = spec('00 561237 37bfce');
const A2 = spec('00 a71370 2dcfc1');

describe('AES-CMAC (D.1, the RFC 4493 examples the spec repeats)', () => {
  const key = msb('2b7e1516 28aed2a6 abf71588 09cf4f3c');
  it.each([
    ['an empty message', '', 'bb1d6929 e9593728 7fa37d12 9b756746'],
    ['one block', '6bc1bee2 2e409f96 e93d7e11 7393172a', '070a16b4 6b4d4144 f79bdd9d d04a287c'],
    [
      '40 octets',
      '6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 30c81c46 a35ce411',
      'dfa66747 de9ae630 30ca3261 1497c827',
    ],
    [
      'four blocks',
      '6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710',
      '51f0bebf 7e3b9d92 fc497417 79363cfe',
    ],
  ])('of %s', (_name, message, mac) => {
    expect(hex(aesCmac(key, msb(message)))).toBe(hex(msb(mac)));
  });
});

describe('P-256 (data set 1)', () => {
  it('a private key gives its public key, and the two sides agree on the DHKey', () => {
    const a = ecdhKeyPair(PRIVATE_A);
    const b = ecdhKeyPair(PRIVATE_B);
    expect(hex(a.publicKey)).toBe(hex(Uint8Array.of(...PUBLIC_A_X, ...PUBLIC_A_Y)));
    expect(hex(b.publicKey)).toBe(hex(Uint8Array.of(...PUBLIC_B_X, ...PUBLIC_B_Y)));
    expect(hex(a.dhKey(b.publicKey)!)).toBe(hex(DH_KEY));
    expect(hex(b.dhKey(a.publicKey)!)).toBe(hex(DH_KEY));
  });

  it('gives no DHKey for a point off the curve', () => {
    const offCurve = Uint8Array.of(...PUBLIC_B_X, ...PUBLIC_B_Y);
    offCurve[32] = offCurve[32]! ^ 0x01;
    expect(ecdhKeyPair(PRIVATE_A).dhKey(offCurve)).toBeUndefined();
  });

  it('fresh key pairs differ and still agree', () => {
    const a = ecdhKeyPair();
    const b = ecdhKeyPair();
    expect(hex(a.publicKey)).not.toBe(hex(b.publicKey));
    expect(hex(a.dhKey(b.publicKey)!)).toBe(hex(b.dhKey(a.publicKey)!));
  });
});

describe('LE Secure Connections functions', () => {
  it('f4 gives the sample confirm value (D.2)', () => {
    expect(hex(f4(U, V, N1, 0))).toBe(hex(spec('f2c916f1 07a9bd1c f1eda1be a974872d')));
  });

  it('f5 gives the sample MacKey and LTK (D.3)', () => {
    const { macKey, ltk } = f5(DH_KEY, N1, N2, A1, A2);
    expect(hex(macKey)).toBe(hex(spec('2965f176 a1084a02 fd3f6a20 ce636e20')));
    expect(hex(ltk)).toBe(hex(spec('69867911 69d7cd23 980522b5 94750a38')));
  });

  it('f6 gives the sample check value (D.4)', () => {
    const macKey = spec('2965f176 a1084a02 fd3f6a20 ce636e20');
    const r = spec('12a3343b b453bb54 08da42d2 0c2d0fc8');
    expect(hex(f6(macKey, N1, N2, r, spec('010102'), A1, A2))).toBe(
      hex(spec('e3c47398 9cd0e8c5 d26c0b09 da958f61')),
    );
  });

  it('g2 gives the sample value, six digits of it (D.5)', () => {
    expect(g2(U, V, N1, N2)).toBe(0x2f9ed5ba % 1_000_000);
  });

  it('A1 and A2 put the address type above the address', () => {
    expect(hex(addressWithType(spec('561237 37bfce'), false))).toBe(hex(A1));
    expect(hex(addressWithType(spec('c1a2a3a4a5a6'), true))).toBe(hex(spec('01 c1a2a3a4a5a6')));
  });

  it('names a value of the wrong length', () => {
    expect(() => f4(U.subarray(1), V, N1, 0)).toThrow('U: must be 32 bytes, got 31');
    expect(() => f5(DH_KEY, N1, N2, A1.subarray(1), A2)).toThrow('A1: must be 7 bytes, got 6');
  });
});

describe('random address hash (D.7)', () => {
  it('ah gives the sample hash', () => {
    expect(hex(ah(spec('ec0234a3 57c8ad05 341010a6 0a397d9b'), spec('708194')))).toBe(
      hex(spec('0dfbaa')),
    );
  });
});

describe('sameValue', () => {
  it('tells equal values from ones that differ in a bit or a length', () => {
    const a = spec('2965f176 a1084a02 fd3f6a20 ce636e20');
    expect(sameValue(a, Uint8Array.from(a))).toBe(true);
    const b = Uint8Array.from(a);
    b[15] = b[15]! ^ 0x80;
    expect(sameValue(a, b)).toBe(false);
    expect(sameValue(a, a.subarray(1))).toBe(false);
  });
});

describe('resolvable private addresses', () => {
  const irk = spec('ec0234a3 57c8ad05 341010a6 0a397d9b');
  it('resolves the address made of the sample prand and its hash (D.7)', () => {
    expect(resolvesPrivateAddress(irk, '70:81:94:0d:fb:aa')).toBe(true);
  });
  it('does not resolve another hash, another IRK, or an address that is not resolvable', () => {
    expect(resolvesPrivateAddress(irk, '70:81:94:0d:fb:ab')).toBe(false);
    expect(resolvesPrivateAddress(new Uint8Array(16), '70:81:94:0d:fb:aa')).toBe(false);
    // Static random (top bits 11) with the same lower 46 bits.
    expect(resolvesPrivateAddress(irk, 'f0:81:94:0d:fb:aa')).toBe(false);
  });
});
