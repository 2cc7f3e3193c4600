// Flags are a boundary like any other: yargs parses them, zod checks them, and a bad value is
// reported as `--flag: what is wrong`, before anything is opened or written.
import type { z } from 'zod';
import { UsageError } from './exit';

/** `maxBoards` → `--max-boards`. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

export function parseFlags<S extends z.ZodType>(schema: S, argv: unknown): z.output<S> {
  const parsed = schema.safeParse(argv);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path[0];
  // yargs turns a number flag given words into NaN; say what was expected instead.
  const message =
    issue?.code === 'invalid_type' && issue.expected === 'number'
      ? 'must be a number'
      : (issue?.message ?? 'invalid');
  throw new UsageError(typeof key === 'string' ? flagName(key) : 'flags', message);
}
