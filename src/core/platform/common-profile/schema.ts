// Common profile (docs/platform-api.md#common-profile): the scopes the rules name, their camel-case
// keys, and the shapes `$commonProfile.get` answers with. Browser-safe.

export const COMMON_PROFILE_SCOPES = [
  'given-name',
  'family-name',
  'tel',
  'postal-code',
  'bday-year',
  'bday-month',
  'bday-day',
] as const;
export type CommonProfileScope = (typeof COMMON_PROFILE_SCOPES)[number];

/** The key of a scope in `data`, `error` and `formatOptions`: `given-name` → `givenName`. */
export function scopeKey(scope: CommonProfileScope): CommonProfileKey {
  return scope.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as CommonProfileKey;
}

export function isCommonProfileScope(value: string): value is CommonProfileScope {
  return (COMMON_PROFILE_SCOPES as readonly string[]).includes(value);
}

export interface CommonProfile {
  givenName: string | null;
  familyName: string | null;
  tel: string | null;
  postalCode: string | null;
  bdayYear: number | null;
  bdayMonth: number | null;
  bdayDay: number | null;
}
export type CommonProfileKey = keyof CommonProfile;

/** Why a value came back empty or null; the platform does not show its fields. */
export interface CommonProfileError {
  code: 'NON_JP_PHONE_NUMBER' | 'NON_DIGIT_POSTAL_CODE' | 'RETRIEVAL_FAILED';
  message: string;
}

export interface FormatOptions {
  givenName?: { excludeEmojis?: boolean };
  familyName?: { excludeEmojis?: boolean };
  tel?: { excludeNonJp?: boolean };
  postalCode?: { digitsOnly?: boolean };
}

export interface CommonProfileResult {
  /** Undefined: not requested or withheld. Null: no value set, or retrieval failed. */
  data: Partial<CommonProfile>;
  error: Partial<Record<CommonProfileKey, CommonProfileError>>;
}
