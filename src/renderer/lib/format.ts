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

const two = (n: number) => String(n).padStart(2, '0');

/**
 * A moment as this computer's local time, 24-hour, the one format across the app: "2026-12-02
 * 23:15:06"; the zone is said where it matters (`zoneOf`); the audit export keeps UTC
 * (docs/decisions/app-and-ui.md, "One time format").
 */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${formatClockTime(ms)}`;
}

/** The time of day of `formatTime`: "23:15:06", whatever the system's locale. */
export function formatClockTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** This computer's zone at `ms` as an offset: "UTC+09:00", "UTC-05:30", "UTC". */
export function zoneOf(ms = Date.now()): string {
  const offset = -new Date(ms).getTimezoneOffset();
  if (offset === 0) return 'UTC';
  const sign = offset > 0 ? '+' : '-';
  const minutes = Math.abs(offset);
  return `UTC${sign}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;
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
