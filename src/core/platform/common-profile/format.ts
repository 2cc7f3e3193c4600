// The formatOptions rules of `$commonProfile.get` (docs/platform-api.md#common-profile): emoji
// removed from names, phone numbers of 12 or more digits and postal codes with non-digits emptied
// with an error. Each option defaults to true. Browser-safe.
import type { CommonProfile, CommonProfileError, CommonProfileKey, FormatOptions } from './schema';

/** Pictographs with what builds emoji sequences: joiners, variation selectors, skin tones, keycaps, flags. */
const EMOJI =
  /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\u200d|\ufe0f|\u20e3/gu;
/** Japanese numbers have 10 or 11 digits; the platform's cut-off for the rest is 12. */
const NON_JP_TEL_DIGITS = 12;

export interface Formatted<V> {
  value: V;
  error?: CommonProfileError;
}

function stripEmojis(text: string): string {
  return text.replace(EMOJI, '');
}

export function formatValue<K extends CommonProfileKey>(
  key: K,
  value: NonNullable<CommonProfile[K]>,
  options: FormatOptions = {},
): Formatted<NonNullable<CommonProfile[K]>> {
  type V = NonNullable<CommonProfile[K]>;
  if ((key === 'givenName' || key === 'familyName') && typeof value === 'string') {
    const names: 'givenName' | 'familyName' = key;
    const exclude = options[names]?.excludeEmojis ?? true;
    return { value: (exclude ? stripEmojis(value) : value) as V };
  }
  if (key === 'tel' && typeof value === 'string' && (options.tel?.excludeNonJp ?? true)) {
    const digits = value.replace(/\D/g, '').length;
    if (digits >= NON_JP_TEL_DIGITS)
      return {
        value: '' as V,
        error: {
          code: 'NON_JP_PHONE_NUMBER',
          message: `The phone number has ${digits} digits; numbers of ${NON_JP_TEL_DIGITS} or more are not Japanese and are excluded (excludeNonJp).`,
        },
      };
  }
  if (
    key === 'postalCode' &&
    typeof value === 'string' &&
    (options.postalCode?.digitsOnly ?? true) &&
    /\D/.test(value)
  )
    return {
      value: '' as V,
      error: {
        code: 'NON_DIGIT_POSTAL_CODE',
        message: 'The postal code contains characters other than digits (digitsOnly).',
      },
    };
  return { value };
}
