// Bytes as the GATT explorer shows and takes them: the contract carries lowercase hex; people
// type hex, UTF-8 text or base64. A bad value is refused naming the field it was typed into.
import { AppError } from '../../../core/app/api';

export const ENCODINGS = ['hex', 'utf8', 'base64'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export const ENCODING_LABELS: Record<Encoding, string> = {
  hex: 'Hex',
  utf8: 'UTF-8',
  base64: 'Base64',
};

export function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export function bytesToHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Hex with a space between bytes, as people read it. */
export function spacedHex(hex: string): string {
  return hex.replace(/(..)(?=.)/g, '$1 ');
}

/** The bytes as text when they are valid UTF-8 without control characters, else undefined. */
export function hexAsText(hex: string): string | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(hexToBytes(hex));
    // Control characters other than tab and newlines mean these bytes are not text.
    // eslint-disable-next-line no-control-regex
    return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

export function hexAsBase64(hex: string): string {
  let binary = '';
  for (const byte of hexToBytes(hex)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function invalid(field: string, message: string): AppError {
  return new AppError({
    code: 'invalid_input',
    message: `${field} ${message}`,
    fields: [{ field, message }],
  });
}

/** The typed value as contract hex; throws an AppError naming `field` when it is not valid. */
export function toHex(value: string, encoding: Encoding, field: string): string {
  if (encoding === 'utf8') return bytesToHex(new TextEncoder().encode(value));
  if (encoding === 'hex') {
    const compact = value.replace(/^0x/i, '').replace(/[\s:,-]/g, '');
    if (!/^[0-9a-fA-F]*$/.test(compact))
      throw invalid(field, 'must be hex digits (0-9, a-f), e.g. "0a 1b"');
    if (compact.length % 2 !== 0)
      throw invalid(field, 'must be whole bytes: an even number of hex digits');
    return compact.toLowerCase();
  }
  const compact = value.replace(/\s/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw invalid(field, 'must be base64, e.g. "AQID"');
  try {
    const binary = atob(compact);
    return bytesToHex(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw invalid(field, 'must be base64, e.g. "AQID"');
  }
}
