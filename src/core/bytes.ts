// Bytes as engineers write them: hex, UTF-8 text or base64, always with the format said
// explicitly, so "0x01" typed as base64 is refused rather than read as d3 1d 35. Shared by core
// and renderer: browser-safe (Uint8Array, TextEncoder/TextDecoder; no Node Buffer).

export const BYTE_FORMATS = ['hex', 'utf8', 'base64'] as const;
export type ByteFormat = (typeof BYTE_FORMATS)[number];

export const BYTE_FORMAT_LABELS: Record<ByteFormat, string> = {
  hex: 'Hex',
  utf8: 'UTF-8',
  base64: 'Base64',
};

export type ParsedBytes = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

const HEX_SEPARATORS = /[\s:,-]+/;
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The text read in `format`; a refusal says in plain words what is wrong and what to type. */
export function parseBytes(text: string, format: ByteFormat): ParsedBytes {
  if (format === 'utf8') return { ok: true, bytes: new TextEncoder().encode(text) };
  if (format === 'hex') return parseHex(text);
  return parseBase64(text);
}

/** Hex digits, each byte two of them; `0x` before any group, spaces, colons, commas or dashes between. */
function parseHex(text: string): ParsedBytes {
  const groups = text.trim() === '' ? [] : text.trim().split(HEX_SEPARATORS);
  let digits = '';
  for (const group of groups) {
    const bare = group.replace(/^0x/i, '');
    if (!/^[0-9a-fA-F]+$/.test(bare)) {
      const bad = /[^0-9a-fA-F]/.exec(bare)?.[0];
      return {
        ok: false,
        message:
          bad === undefined
            ? `"${group}" has no hex digits after 0x`
            : `"${bad}" is not a hex digit: hex uses 0-9 and a-f, e.g. "0a 1b"`,
      };
    }
    if (bare.length % 2 !== 0)
      return {
        ok: false,
        message: `"${group}" is not whole bytes: each byte takes two hex digits, e.g. "0${bare.slice(-1)}"`,
      };
    digits += bare;
  }
  return { ok: true, bytes: hexToBytes(digits) };
}

/**
 * Standard base64 (RFC 4648 §4 alphabet); spaces and line breaks are ignored, padding may be
 * left off. Anything that would decode differently from what was meant is refused: a `0x`
 * prefix, characters outside the alphabet, a length no encoder produces, stray bits.
 */
export function parseBase64(text: string): ParsedBytes {
  const compact = text.replace(/\s+/g, '');
  if (/^0x[0-9a-f]*$/i.test(compact))
    return {
      ok: false,
      message: `"${compact}" looks like hex, not base64: choose Hex as the format, or type base64 such as "AQ=="`,
    };
  const body = compact.replace(/={1,2}$/, '');
  const bad = [...body].find((c) => !BASE64_ALPHABET.includes(c));
  if (bad !== undefined)
    return {
      ok: false,
      message: `"${bad}" is not a base64 character: base64 uses A-Z, a-z, 0-9, + and /, with = at the end`,
    };
  if (body.length % 4 === 1 || (compact.length !== body.length && compact.length % 4 !== 0))
    return {
      ok: false,
      message: `"${compact}" is not a whole base64 value: its length (${compact.length}) is not one an encoder writes`,
    };
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4));
  let bits = 0;
  let count = 0;
  let at = 0;
  for (const c of body) {
    bits = (bits << 6) | BASE64_ALPHABET.indexOf(c);
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes[at++] = (bits >> count) & 0xff;
    }
  }
  if ((bits & ((1 << count) - 1)) !== 0)
    return {
      ok: false,
      message: `"${compact}" is not a whole base64 value: its last character carries bits past the end`,
    };
  return { ok: true, bytes };
}

/** Contract hex (even count of lowercase digits, nothing else) to bytes. */
export function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Lowercase hex, with `separator` between bytes ("" for the contract's compact form). */
export function bytesToHex(bytes: Uint8Array, separator = ''): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(separator);
}

export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = [18, 12, 6, 0].map((shift) => BASE64_ALPHABET[(n >> shift) & 63]);
    const kept = Math.min(4, bytes.length - i + 1);
    out += chars.slice(0, kept).join('') + '='.repeat(4 - kept);
  }
  return out;
}

/** The bytes as text when they are valid UTF-8 without control characters, else undefined. */
export function bytesAsText(bytes: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    // Control characters other than tab and newlines mean these bytes are not text.
    // eslint-disable-next-line no-control-regex
    return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The bytes written in `format`, as a field shows them; undefined when they are not UTF-8 text. */
export function formatBytes(bytes: Uint8Array, format: ByteFormat): string | undefined {
  if (format === 'hex') return bytesToHex(bytes, ' ');
  if (format === 'base64') return bytesToBase64(bytes);
  return bytesAsText(bytes);
}
