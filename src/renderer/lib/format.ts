// Small display helpers shared by pages.
import type { EnvironmentView } from '../../core/app/contract';
import { formatUuid, uuidProblem } from '../../core/ble/port';
import { maskedHint } from '../../core/platform/secret-mask';

export type SecretView = EnvironmentView['channelAccessToken'];

/** A stored secret as the app reveals it: only whether it is set and a short hint. */
export function maskedSecret(secret: SecretView): string {
  if (!secret.set) return 'not set';
  return maskedHint(secret.hint);
}

export function formatTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

export function formatClockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour12: false });
}

export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  const parts: string[] = [];
  let rest = Math.abs(ms);
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}ms`);
  return (ms < 0 ? '-' : '+') + parts.join(' ');
}

/**
 * A UUID in the one form the screen shows (dashed, lower case; 16-bit ones short); text that is
 * no UUID is shown as it came, so a bad value stays visible rather than hidden.
 */
export function shownUuid(uuid: string): string {
  return uuidProblem(uuid) === undefined ? formatUuid(uuid) : uuid;
}

/**
 * "a" or "an" before a number as it is read aloud: an 8, an 11, an 18, an 80 (eight…, eleven…,
 * eighteen…), a 2.
 */
export function articleFor(number: string): 'a' | 'an' {
  const whole = number.trim().replace(/^[+]/, '').split('.')[0] ?? '';
  if (whole.startsWith('8')) return 'an';
  // 11 and 18 are read "eleven" and "eighteen" when they lead a group of three digits.
  return whole.length % 3 === 2 && /^(11|18)/.test(whole) ? 'an' : 'a';
}
