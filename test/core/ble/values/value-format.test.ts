import { describe, expect, it } from 'vitest';
import {
  decodeValue,
  valueFormatSchema,
  VALUE_TYPES,
  type ValueType,
} from '../../../../src/core/ble/values/value-format';

const bytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
const as = (type: ValueType, hex: string, extra: { exponent?: number; unit?: string } = {}) =>
  decodeValue(bytes(hex), valueFormatSchema.parse({ type, ...extra }));

describe('decodeValue', () => {
  const cases: [ValueType, string, string][] = [
    ['uint8', 'ff', '255'],
    ['int8', 'ff', '-1'],
    ['uint16le', '3412', '4660'],
    ['uint16be', '1234', '4660'],
    ['int16le', 'feff', '-2'],
    ['int16be', 'fffe', '-2'],
    ['uint32le', '78563412', '305419896'],
    ['uint32be', 'ffffffff', '4294967295'],
    ['int32le', 'ffffffff', '-1'],
    ['int32be', '80000000', '-2147483648'],
    ['float32le', '0000c03f', '1.5'],
    ['float32be', '3fc00000', '1.5'],
    ['utf8', '4442205365', 'DB Se'],
    ['hex', '00ff10', '00 ff 10'],
  ];
  it.each(cases)('reads %s %s as %s', (type, hex, text) => {
    expect(as(type, hex)).toMatchObject({ ok: true, text });
  });

  it('has a case above for every type the picker offers', () => {
    expect(new Set(cases.map(([type]) => type))).toEqual(new Set(VALUE_TYPES));
  });

  it('reads the sensor board temperature fa08 as sint16 LE ÷ 100 in °C', () => {
    expect(as('int16le', 'fa08', { exponent: -2, unit: '°C' })).toEqual({
      ok: true,
      text: '22.98 °C',
      number: 22.98,
    });
  });

  it('scales up with a positive exponent', () => {
    expect(as('uint8', '05', { exponent: 3 })).toMatchObject({ text: '5000', number: 5000 });
  });

  it.each<[ValueType, string, string]>([
    ['uint32le', 'fa08', 'uint32 LE needs 4 bytes, got 2'],
    ['int16be', 'fa', 'int16 BE needs 2 bytes, got 1'],
    ['uint8', '', 'uint8 needs 1 byte, got 0'],
    ['float32be', '0102030405', 'float32 BE needs 4 bytes, got 5'],
    ['int16le', 'fa0801', 'int16 LE needs 2 bytes, got 3'],
  ])('refuses %s of %s: %s', (type, hex, message) => {
    expect(as(type, hex)).toEqual({ ok: false, message });
  });

  it('says when bytes are not UTF-8 rather than showing replacement characters', () => {
    expect(as('utf8', 'fffe')).toEqual({
      ok: false,
      message: 'ff fe is not UTF-8 text',
    });
  });

  it('shows empty hex as empty', () => {
    expect(as('hex', '')).toEqual({ ok: true, text: '(empty)' });
  });
});

describe('valueFormatSchema', () => {
  it('refuses an unknown type and an exponent out of range, naming the field', () => {
    const bad = valueFormatSchema.safeParse({ type: 'int64le', exponent: 12 });
    expect(bad.success).toBe(false);
    const messages = bad.error?.issues.map((i) => i.message) ?? [];
    expect(messages.some((m) => m.startsWith('type must be one of'))).toBe(true);
    expect(messages).toContain('exponent must be at most 9');
  });
});
