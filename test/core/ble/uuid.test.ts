// UUIDs in every form people type them, and the forms DeviceBench writes.
import { describe, expect, it } from 'vitest';
import {
  formatUuid,
  fullUuid,
  normalizeUuid,
  sameUuid,
  uuidProblem,
} from '../../../src/core/ble/port';

const DASHED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const COMPACT = 'a3c800037f2e4b619c0d5e1f2a3b4c5d';

describe('UUID input', () => {
  it.each([
    [DASHED, COMPACT],
    [COMPACT, COMPACT],
    [DASHED.toUpperCase(), COMPACT],
    [`{${DASHED}}`, COMPACT],
    [`{${COMPACT.toUpperCase()}}`, COMPACT],
    [`  ${DASHED}\n`, COMPACT],
    ['180F', '180f'],
    ['0x180f', '180f'],
    ['0x0000180F', '0000180f'],
  ])('accepts %j', (text, normal) => {
    expect(normalizeUuid(text)).toBe(normal);
    expect(uuidProblem(text)).toBeUndefined();
  });

  it.each([
    ['', 'type 4 or 8 hex digits'],
    ['18f', 'type 4 or 8 hex digits'],
    ['180g', 'type 4 or 8 hex digits'],
    [COMPACT.slice(0, 31), 'type 4 or 8 hex digits'],
    ['a3c8-0003-7f2e-4b61-9c0d-5e1f2a3b4c5d', 'a dashed UUID is 8-4-4-4-12 hex digits'],
    [`${DASHED}0`, 'a dashed UUID is 8-4-4-4-12'],
    [`{${DASHED}`, 'is not a UUID'],
    ['0x12345', 'is not a UUID'],
  ])('refuses %j, saying why', (text, message) => {
    expect(uuidProblem(text)).toContain(message);
    expect(() => normalizeUuid(text)).toThrow(message);
  });
});

describe('UUID output', () => {
  it('shows 128-bit UUIDs dashed and lower case, short ones short', () => {
    expect(formatUuid(COMPACT.toUpperCase())).toBe(DASHED);
    expect(formatUuid('0x180F')).toBe('180f');
  });

  it('writes the full 128-bit form the platform wants, expanding short UUIDs', () => {
    expect(fullUuid(`{${COMPACT}}`)).toBe(DASHED);
    expect(fullUuid('2A19')).toBe('00002a19-0000-1000-8000-00805f9b34fb');
    expect(sameUuid('2a19', fullUuid('2a19'))).toBe(true);
  });
});
