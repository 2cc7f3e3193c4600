// Records keyed by a user's text (a product ID, a names scope, a form field): null-prototype
// objects, so `__proto__`, `constructor` or `toString` are keys like any other instead of
// reaching Object.prototype (docs/decisions.md, "Emulator fidelity and hardening, second pass").
import { z } from 'zod';

/** A null-prototype record holding `entries`' own enumerable keys, `__proto__` included. */
export function keyedRecord<T>(entries: Readonly<Record<string, T>> = {}): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  for (const key of Object.keys(entries)) record[key] = entries[key] as T;
  return record;
}

/**
 * A JSON object of `value`s read into a null-prototype record. zod's own `z.record` drops a
 * `__proto__` key, so a store saved under that key would be lost on the next read.
 */
export function keyedRecordSchema<S extends z.ZodType>(value: S) {
  return z.unknown().transform((input, ctx) => {
    const record = keyedRecord<z.output<S>>();
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      ctx.addIssue({ code: 'custom', message: 'must be an object' });
      return record;
    }
    for (const key of Object.keys(input)) {
      const parsed = value.safeParse((input as Record<string, unknown>)[key]);
      if (parsed.success) record[key] = parsed.data;
      else
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message, path: [key, ...issue.path] });
    }
    return record;
  });
}
