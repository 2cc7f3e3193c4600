// Bytes as the GATT explorer shows and takes them: the contract carries lowercase hex; people
// type hex, UTF-8 text or base64 (src/core/bytes.ts reads them). A bad value is refused naming
// the field it was typed into.
import { AppError } from '../../../core/app/api';
import {
  bytesAsText,
  bytesToBase64,
  bytesToHex,
  hexToBytes,
  parseBytes,
  type ByteFormat,
} from '../../../core/bytes';

/** Hex with a space between bytes, as people read it. */
export function spacedHex(hex: string): string {
  return hex.replace(/(..)(?=.)/g, '$1 ');
}

export function hexAsText(hex: string): string | undefined {
  return bytesAsText(hexToBytes(hex));
}

export function hexAsBase64(hex: string): string {
  return bytesToBase64(hexToBytes(hex));
}

/** The typed value as contract hex; throws an AppError naming `field` when it is not valid. */
export function toHex(value: string, format: ByteFormat, field: string): string {
  const parsed = parseBytes(value, format);
  if (!parsed.ok)
    throw new AppError({
      code: 'invalid_input',
      message: `${field}: ${parsed.message}`,
      fields: [{ field, message: parsed.message }],
    });
  return bytesToHex(parsed.bytes);
}
