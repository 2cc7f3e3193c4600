// The limits of the bench's inputs, one definition each, used by the platform's schemas
// and client, the listeners (emulator, webhook receiver), the app's contract, the simulated
// boards, the CLI and the forms (docs/decisions.md, "Validation that reads like a person").
import { z } from 'zod';

/**
 * Received signal strength as the bench can meet it. The HCI LE Advertising Report allows
 * −127…+20 dBm (Bluetooth Core Specification Vol 4, Part E, §7.7.65.2), but a received signal
 * above 0 dBm (one milliwatt at the antenna) does not happen on a bench, so a filter or a
 * simulated board asking for one is a typing mistake.
 */
export const RSSI_MIN_DBM = -127;
export const RSSI_MAX_DBM = 0;

/**
 * Largest request body the platform takes (docs/platform-api.md: over 2 MB is a 413): the
 * platform client refuses to send more, the emulator and the webhook receiver to take more.
 */
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;

/** Longest SLEEP action: one hour (the platform leaves it open). */
const SLEEP_MILLIS_MAX = 3_600_000;
/** Longest wait before the client reconnects: one day (the platform leaves it open). */
const SUPPRESSION_INTERVAL_MAX = 86_400_000;

/** A minus sign as typography writes it, so "−127" reads as a number rather than a dash. */
function signed(n: number): string {
  return n < 0 ? `−${-n}` : String(n);
}

/** The rule a bounded whole number breaks, in words: "must be between −127 and 0 dBm". */
export function rangeRule(min: number, max: number, unit?: string): string {
  return `must be between ${signed(min)} and ${signed(max)}${unit ? ` ${unit}` : ''}`;
}

/**
 * A zod schema for a whole number within [min, max]. One refusal per value: out of range says
 * the range (1e+23 and integers past 2^53 included, as every bound here is exact), a fraction
 * within it says it must be whole.
 */
function wholeNumberIn(min: number, max: number, unit?: string) {
  const rule = rangeRule(min, max, unit);
  const whole = unit ? `must be a whole number of ${unit}` : 'must be a whole number';
  return z
    .number({ error: unit ? `must be a number of ${unit}` : 'must be a number' })
    .superRefine((n, ctx) => {
      if (n < min || n > max) ctx.addIssue({ code: 'custom', message: rule });
      else if (!Number.isInteger(n)) ctx.addIssue({ code: 'custom', message: whole });
    });
}

export const RSSI_RULE = rangeRule(RSSI_MIN_DBM, RSSI_MAX_DBM, 'dBm');
export const rssiSchema = wholeNumberIn(RSSI_MIN_DBM, RSSI_MAX_DBM, 'dBm');
export const sleepMillisSchema = wholeNumberIn(0, SLEEP_MILLIS_MAX, 'milliseconds');
export const suppressionIntervalSchema = wholeNumberIn(0, SUPPRESSION_INTERVAL_MAX, 'milliseconds');

/**
 * The longest ID an operation passes on (into a platform URL, a file, a log): far above any the
 * platform or this app issues, far below the 16 KB an HTTP request line or header may hold. The
 * seeds give no limit (docs/decisions.md, "Platform conventions").
 */
const MAX_ID_LENGTH = 256;
/** An ID an earlier answer gave: a product, a board, a connection, a run, a profile. */
export const requiredId = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

/** The longest file an operation takes as text: board files, profiles, CSV PSDI plans (2 MB). */
export const MAX_FILE_TEXT_LENGTH = 2_000_000;
export const fileTextField = z
  .string()
  .min(1, 'is empty')
  .max(MAX_FILE_TEXT_LENGTH, 'must be at most 2 MB');
