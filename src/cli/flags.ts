// Flags are a boundary like any other: yargs parses them, zod checks them, and a bad value is
// reported as `--flag: what is wrong`, before anything is opened or written.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from './exit';

/**
 * A file the command writes (`--junit`, `--csv`, `--out`, `--json FILE`). Its folder must exist:
 * a typo in a path is refused before anything runs, never answered by creating folders
 * (docs/decisions.md, "Emulator fidelity and hardening, second pass").
 */
export const outputFileSchema = z
  .string()
  .min(1, 'needs a file name')
  .superRefine((path, ctx) => {
    const folder = dirname(resolve(path));
    const problem = folderProblem(folder);
    if (problem) ctx.addIssue({ code: 'custom', message: `cannot write ${path}: ${problem}` });
  });

/** Why `path` is not a folder one can write into, or undefined when it is one (or may be made). */
export function folderProblem(path: string, missingIsFine = false): string | undefined {
  try {
    if (!statSync(path).isDirectory()) return `${path} is a file, not a folder`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return missingIsFine ? undefined : `the folder ${path} does not exist (create it first)`;
    if (code === 'ENOTDIR') return `${path} is not a folder (a part of it is a file)`;
    return `${path} cannot be read (${code ?? 'error'})`;
  }
  return undefined;
}

/** `maxBoards` → `--max-boards`. */
function flagName(key: string): string {
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
