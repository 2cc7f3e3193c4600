// E.164 normalization and SHA-256 hashing of phone numbers, against known vectors.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hashPhoneNumber,
  normalizePhoneNumber,
  PhoneNumberError,
} from '../../../../src/core/platform/notifications/phone';

describe('normalizePhoneNumber', () => {
  it.each([
    ['+81 80-0000-1234', undefined, '+818000001234', 'JP'],
    ['080-0000-1234', 'JP', '+818000001234', 'JP'],
    ['(080) 0000 1234', 'JP', '+818000001234', 'JP'],
    ['081 234 5678', 'TH', '+66812345678', 'TH'],
    ['+66 81 234 5678', 'JP', '+66812345678', 'TH'],
    ['+1 (202) 555-0143', undefined, '+12025550143', 'US'],
  ])('%s (country %s) → %s', (input, country, e164, owner) => {
    expect(normalizePhoneNumber(input, country)).toEqual({ e164, country: owner });
  });

  it.each([
    ['', undefined, 'is required'],
    ['080-0000-1234', undefined, 'start it with + and the country code'],
    ['hello', 'JP', 'is not a phone number'],
    ['+81 1', undefined, 'too short'],
    ['+81 80 0000 1234 5678 9999', undefined, 'too long'],
    ['080-0000-1234', 'XX', 'not a known ISO country code'],
    ['+81 00-0000-0000', undefined, 'not a valid phone number'],
  ])('refuses %j (country %s): %s', (input, country, message) => {
    expect(() => normalizePhoneNumber(input, country)).toThrow(PhoneNumberError);
    expect(() => normalizePhoneNumber(input, country)).toThrow(message);
  });
});

describe('hashPhoneNumber', () => {
  it('hashes the E.164 form with SHA-256 as lowercase hex (the documented example)', async () => {
    const { e164, hash } = await hashPhoneNumber('080-0000-1234', 'JP');
    expect(e164).toBe('+818000001234');
    expect(hash).toBe('d41e0ad70dddfeb68f149ad6fc61574b9c5780ab7bcb2fba5517771ffbb2409c');
  });

  it('gives every way of writing a number the same hash, equal to node:crypto over E.164', async () => {
    const hashes = await Promise.all(
      ['+66812345678', '081 234 5678', '+66 (0)81-234-5678'].map(
        async (n) => (await hashPhoneNumber(n, 'TH')).hash,
      ),
    );
    expect(new Set(hashes).size).toBe(1);
    expect(hashes[0]).toBe(createHash('sha256').update('+66812345678').digest('hex'));
  });
});
