// How a characteristic's value reads as a number or text: the integer and float layouts firmware
// uses, UTF-8, or plain hex. A numeric value may be scaled by a power of ten and carry a unit, as
// the SIG's Characteristic Presentation Format descriptor does (Vol 3, Part G, 3.3.3.5); see
// docs/decisions.md "Names and value formats". Pure and browser-safe: core and renderer share it.
import { z } from 'zod';

/** The integer and float layouts: what a number can be read from or written as. */
export const NUMERIC_VALUE_TYPES = [
  'uint8',
  'uint16le',
  'uint16be',
  'uint32le',
  'uint32be',
  'int8',
  'int16le',
  'int16be',
  'int32le',
  'int32be',
  'float32le',
  'float32be',
] as const;

export const VALUE_TYPES = ['hex', 'utf8', ...NUMERIC_VALUE_TYPES] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export const VALUE_TYPE_LABELS: Record<ValueType, string> = {
  hex: 'Hex',
  utf8: 'UTF-8',
  uint8: 'uint8',
  uint16le: 'uint16 LE',
  uint16be: 'uint16 BE',
  uint32le: 'uint32 LE',
  uint32be: 'uint32 BE',
  int8: 'int8',
  int16le: 'int16 LE',
  int16be: 'int16 BE',
  int32le: 'int32 LE',
  int32be: 'int32 BE',
  float32le: 'float32 LE',
  float32be: 'float32 BE',
};

interface NumericLayout {
  bytes: 1 | 2 | 4;
  read: (view: DataView) => number;
}

/** The DataView setter and endianness of each numeric type, for `encodeNumber`. */
const WRITERS: Partial<Record<ValueType, (view: DataView, value: number) => void>> = {
  uint8: (v, n) => v.setUint8(0, n),
  uint16le: (v, n) => v.setUint16(0, n, true),
  uint16be: (v, n) => v.setUint16(0, n, false),
  uint32le: (v, n) => v.setUint32(0, n, true),
  uint32be: (v, n) => v.setUint32(0, n, false),
  int8: (v, n) => v.setInt8(0, n),
  int16le: (v, n) => v.setInt16(0, n, true),
  int16be: (v, n) => v.setInt16(0, n, false),
  int32le: (v, n) => v.setInt32(0, n, true),
  int32be: (v, n) => v.setInt32(0, n, false),
  float32le: (v, n) => v.setFloat32(0, n, true),
  float32be: (v, n) => v.setFloat32(0, n, false),
};

const LAYOUTS: Partial<Record<ValueType, NumericLayout>> = {
  uint8: { bytes: 1, read: (v) => v.getUint8(0) },
  uint16le: { bytes: 2, read: (v) => v.getUint16(0, true) },
  uint16be: { bytes: 2, read: (v) => v.getUint16(0, false) },
  uint32le: { bytes: 4, read: (v) => v.getUint32(0, true) },
  uint32be: { bytes: 4, read: (v) => v.getUint32(0, false) },
  int8: { bytes: 1, read: (v) => v.getInt8(0) },
  int16le: { bytes: 2, read: (v) => v.getInt16(0, true) },
  int16be: { bytes: 2, read: (v) => v.getInt16(0, false) },
  int32le: { bytes: 4, read: (v) => v.getInt32(0, true) },
  int32be: { bytes: 4, read: (v) => v.getInt32(0, false) },
  float32le: { bytes: 4, read: (v) => v.getFloat32(0, true) },
  float32be: { bytes: 4, read: (v) => v.getFloat32(0, false) },
};

/** The presentation format's exponent is a signed byte; ±9 covers nano to giga, all a bench shows. */
const MAX_EXPONENT = 9;

export const valueFormatSchema = z.object({
  type: z.enum(VALUE_TYPES, {
    error: `type must be one of ${VALUE_TYPES.join(', ')}`,
  }),
  /** The value shown is the raw number × 10^exponent (e.g. -2 for hundredths). Numeric types only. */
  exponent: z
    .number()
    .int('exponent must be a whole number')
    .min(-MAX_EXPONENT, `exponent must be at least -${MAX_EXPONENT}`)
    .max(MAX_EXPONENT, `exponent must be at most ${MAX_EXPONENT}`)
    .default(0),
  unit: z.string().trim().max(12, 'unit must be at most 12 characters').default(''),
});
export type ValueFormat = z.output<typeof valueFormatSchema>;

export function isNumeric(type: ValueType): boolean {
  return LAYOUTS[type] !== undefined;
}

/** The bytes a numeric type holds `value` in (the raw number, before any exponent). */
export function encodeNumber(type: ValueType, value: number): Uint8Array {
  const layout = LAYOUTS[type];
  const write = WRITERS[type];
  if (!layout || !write) throw new Error(`${VALUE_TYPE_LABELS[type]} is not a numeric format`);
  const out = new Uint8Array(layout.bytes);
  write(new DataView(out.buffer), value);
  return out;
}

export type DecodedValue =
  { ok: true; text: string; number?: number } | { ok: false; message: string };

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** Digits after the point an exponent of -n asks for; a float keeps what it has. */
function shown(value: number, exponent: number, type: ValueType): string {
  if (type.startsWith('float')) return String(exponent === 0 ? value : value * 10 ** exponent);
  if (exponent >= 0) return String(value * 10 ** exponent);
  return (value / 10 ** -exponent).toFixed(-exponent);
}

export function decodeValue(bytes: Uint8Array, format: ValueFormat): DecodedValue {
  const label = VALUE_TYPE_LABELS[format.type];
  if (format.type === 'hex') return { ok: true, text: bytes.length ? hex(bytes) : '(empty)' };
  if (format.type === 'utf8') {
    try {
      return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      return { ok: false, message: `${hex(bytes)} is not UTF-8 text` };
    }
  }
  const layout = LAYOUTS[format.type];
  if (!layout) return { ok: false, message: `${label} is not a known format` };
  if (bytes.length !== layout.bytes)
    return {
      ok: false,
      message: `${label} needs ${layout.bytes} byte${layout.bytes === 1 ? '' : 's'}, got ${bytes.length}`,
    };
  const raw = layout.read(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const number = format.exponent === 0 ? raw : raw * 10 ** format.exponent;
  const text = shown(raw, format.exponent, format.type);
  return { ok: true, text: format.unit ? `${text} ${format.unit}` : text, number };
}
