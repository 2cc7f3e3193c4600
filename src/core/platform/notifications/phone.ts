// Phone numbers as notification messages take them (docs/platform-api.md#notifications): normalized
// to E.164, then hashed with SHA-256 to lowercase hex. Browser-safe (WebCrypto), so the app's core
// and any UI hash the same way.
import {
  isSupportedCountry,
  ParseError,
  parsePhoneNumberWithError,
  type CountryCode,
} from 'libphonenumber-js';

export class PhoneNumberError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PhoneNumberError';
  }
}

const PARSE_PROBLEMS: Record<string, string> = {
  INVALID_COUNTRY:
    'has no country: start it with + and the country code (e.g. +66 81 234 5678), or choose its country',
  NOT_A_NUMBER: 'is not a phone number',
  TOO_SHORT: 'is too short to be a phone number',
  TOO_LONG: 'is too long to be a phone number',
  INVALID_LENGTH: 'does not have the length of a phone number',
};

export interface NormalizedPhone {
  /** `+` and digits, e.g. `+818000001234`. */
  e164: string;
  /** ISO country the number belongs to, when the number says. */
  country?: string;
}

/**
 * The E.164 form of a number written any usual way (`080-0000-1234` with country JP,
 * `+66 81 234 5678`). Throws PhoneNumberError saying why a number cannot be normalized.
 */
export function normalizePhoneNumber(input: string, defaultCountry?: string): NormalizedPhone {
  const text = input.trim();
  if (!text) throw new PhoneNumberError('is required');
  if (defaultCountry !== undefined && !isSupportedCountry(defaultCountry))
    throw new PhoneNumberError(`country ${defaultCountry} is not a known ISO country code`);
  let parsed;
  try {
    parsed = parsePhoneNumberWithError(text, defaultCountry as CountryCode | undefined);
  } catch (err) {
    if (err instanceof ParseError)
      throw new PhoneNumberError(PARSE_PROBLEMS[err.message] ?? `cannot be read (${err.message})`);
    throw err;
  }
  if (!parsed.isValid())
    throw new PhoneNumberError(
      `${parsed.number} is not a valid phone number${parsed.country ? ` in ${parsed.country}` : ''}`,
    );
  return { e164: parsed.number, country: parsed.country };
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** What a send call's `to` holds: SHA-256 of the E.164 number, lowercase hex. */
export async function hashPhoneNumber(
  input: string,
  defaultCountry?: string,
): Promise<NormalizedPhone & { hash: string }> {
  const normalized = normalizePhoneNumber(input, defaultCountry);
  return { ...normalized, hash: await sha256Hex(normalized.e164) };
}
