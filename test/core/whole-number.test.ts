// The whole-number reader in every accepted and refused form: exact or refused, never rounded.
import { describe, expect, it } from 'vitest';
import { parseWholeNumber } from '../../src/core/whole-number';

describe('parseWholeNumber', () => {
  it.each([
    ['12', 12],
    [' 12 ', 12],
    ['+12', 12],
    ['-70', -70],
    ['\u221270', -70],
    ['007', 7],
    ['0', 0],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', -Number.MAX_SAFE_INTEGER],
  ])('accepts %j as %d', (text, value) => {
    expect(parseWholeNumber(text)).toEqual({ ok: true, value });
  });

  it('reads -0 as zero, never as a negative zero', () => {
    const parsed = parseWholeNumber('-0');
    expect(parsed.ok && Object.is(parsed.value, 0)).toBe(true);
  });

  it.each([
    ['', 'is required'],
    ['   ', 'is required'],
    ['1e+23', 'must be a whole number written in digits, without an exponent'],
    ['1E3', 'must be a whole number written in digits, without an exponent'],
    ['2.5e-1', 'must be a whole number written in digits, without an exponent'],
    ['1.5', 'must be a whole number'],
    ['1.0', 'must be a whole number'],
    ['.5', 'must be a whole number'],
    ['0x10', 'must be a whole number'],
    ['12 ms', 'must be a whole number'],
    ['1 000', 'must be a whole number'],
    ['--1', 'must be a whole number'],
    ['Infinity', 'must be a whole number'],
    ['NaN', 'must be a whole number'],
  ])('refuses %j: %s', (text, message) => {
    expect(parseWholeNumber(text)).toEqual({ ok: false, message });
  });

  it.each([
    '9007199254740992',
    '9007199254740993',
    '-9007199254740993',
    '100000000000000000000000',
  ])('refuses %s, past the exact integers, rather than round it', (text) => {
    expect(parseWholeNumber(text)).toEqual({
      ok: false,
      message: 'must be a whole number between −9007199254740991 and 9007199254740991',
    });
  });

  it('checks the bounds and says them with the unit', () => {
    const rssi = { min: -127, max: 0, unit: 'dBm' };
    expect(parseWholeNumber('20', rssi)).toEqual({
      ok: false,
      message: 'must be between −127 and 0 dBm',
    });
    expect(parseWholeNumber('-128', rssi)).toEqual({
      ok: false,
      message: 'must be between −127 and 0 dBm',
    });
    expect(parseWholeNumber('-127', rssi)).toEqual({ ok: true, value: -127 });
    expect(parseWholeNumber('0', rssi)).toEqual({ ok: true, value: 0 });
    expect(parseWholeNumber('-7.5', rssi)).toEqual({
      ok: false,
      message: 'must be a whole number of dBm',
    });
    expect(parseWholeNumber('abc', rssi)).toEqual({
      ok: false,
      message: 'must be a whole number between −127 and 0 dBm',
    });
  });
});
