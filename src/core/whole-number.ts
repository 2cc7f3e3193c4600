// The one reading of a whole number typed as text (forms, CLI options). `Number()` would take
// "1e+23", "0x10" or "1.0" and round 9007199254740993 to …992; here a number is plain digits
// with an optional sign, exact or refused, so what is sent is what was typed.
import { z } from 'zod';
import { rangeRule } from './bounds';

export type ParsedWholeNumber = { ok: true; value: number } | { ok: false; message: string };

export interface WholeNumberRule {
  min?: number;
  max?: number;
  /** Named in the messages: "must be a whole number of dBm". */
  unit?: string;
}

const PLAIN = /^([-+\u2212]?)(\d+)$/;
const DECIMAL = /^[-+\u2212]?(\d+\.\d*|\.\d+)$/;
const EXPONENT = /^[-+\u2212]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function parseWholeNumber(text: string, rule: WholeNumberRule = {}): ParsedWholeNumber {
  const trimmed = text.trim();
  const kind = rule.unit ? `a whole number of ${rule.unit}` : 'a whole number';
  if (trimmed === '') return { ok: false, message: 'is required' };
  if (EXPONENT.test(trimmed))
    return { ok: false, message: `must be ${kind} written in digits, without an exponent` };
  if (DECIMAL.test(trimmed)) return { ok: false, message: `must be ${kind}` };
  const match = PLAIN.exec(trimmed);
  if (!match)
    return {
      ok: false,
      message:
        rule.min !== undefined && rule.max !== undefined
          ? `must be a whole number ${rangeRule(rule.min, rule.max, rule.unit).replace('must be ', '')}`
          : `must be ${kind}`,
    };
  const [, sign, digits] = match as unknown as [string, string, string];
  const magnitude = BigInt(digits);
  if (magnitude > MAX_SAFE)
    return {
      ok: false,
      message: `must be ${kind} between −${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
    };
  // `-0` is zero: a minus sign must not reach the API as a distinct value.
  const value = sign === '-' || sign === '\u2212' ? -Number(magnitude) || 0 : Number(magnitude);
  const min = rule.min ?? -Number.MAX_SAFE_INTEGER;
  const max = rule.max ?? Number.MAX_SAFE_INTEGER;
  if (value < min || value > max) return { ok: false, message: rangeRule(min, max, rule.unit) };
  return { ok: true, value };
}

/** A zod schema for a whole number typed as text (a CLI option, a query string). */
export function wholeNumberText(rule: WholeNumberRule = {}) {
  return z.string().transform((text, ctx) => {
    const parsed = parseWholeNumber(text, rule);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  });
}
