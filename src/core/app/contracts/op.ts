// The building block of every area's contract: an operation is a zod input and output schema,
// and `parseInput` is the one way any transport's input is checked against it.
import { z } from 'zod';
import { fieldErrors, fieldPath, type FieldError } from '../../platform/field-errors';
import { isWellFormedText, MALFORMED_TEXT } from '../../platform/url-text';

export function op<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

export type OperationSpec = ReturnType<typeof op>;

export const none = z.object({});

/** Keys that reach an object's prototype rather than its data. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The input as the operation's handler gets it. Properties the schema does not name are
 * stripped (zod's object default, as the platform ignores unknown properties); a prototype key
 * anywhere is refused with its path, so no handler, spread or merge ever meets one
 * (docs/decisions.md, "Hardening"), and so is text with a lone surrogate, before any of it
 * reaches a URL.
 */
export function parseInput(
  spec: OperationSpec,
  input: unknown,
): { ok: true; value: unknown } | { ok: false; fields: FieldError[] } {
  const refused = refusedPath(input);
  if (refused) return { ok: false, fields: [refused] };
  const parsed = spec.input.safeParse(input ?? {});
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, fields: fieldErrors(parsed.error) };
}

/**
 * The first prototype key, or text that is not well-formed UTF-16 (a lone surrogate, which no URL
 * or UTF-8 file can carry), in `value`, walked without recursion (any depth, cycles).
 */
function refusedPath(value: unknown): FieldError | undefined {
  const seen = new Set<object>();
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const current = next.value;
    if (typeof current === 'string' && !isWellFormedText(current))
      return { field: fieldPath(next.path) || '(input)', message: MALFORMED_TEXT };
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    for (const key of Object.keys(current)) {
      const path = [...next.path, Array.isArray(current) ? Number(key) : key];
      if (PROTOTYPE_KEYS.has(key)) return { field: fieldPath(path), message: 'is not allowed' };
      if (!isWellFormedText(key)) return { field: fieldPath(path), message: MALFORMED_TEXT };
      stack.push({ value: (current as Record<string, unknown>)[key], path });
    }
  }
  return undefined;
}
