// Small settings files: validated with zod on read, written atomically (a temporary file of the
// write's own + rename) so a crash mid-write never leaves half a file. A file that fails
// validation is kept aside, not overwritten, so nothing the user saved is lost. A file several
// processes change (names, plans, adapter identities) is changed with `updateJsonFile`: read
// again under its lock and changed per entry, so no process drops another's
// (data-folder/shared-file.ts).
import { readFile, rename } from 'node:fs/promises';
import type { z } from 'zod';
import { SECRET_FILE_MODE, withFileLock, writeFileAtomic } from './data-folder/shared-file';

interface ReadOutcome<T> {
  value: T;
  /** Set when the file existed but was unreadable; it was moved to this path. */
  setAsideAs?: string;
}

export async function readJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  fallback: z.output<S>,
): Promise<ReadOutcome<z.output<S>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { value: fallback };
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const setAsideAs = `${file}.unreadable-${Date.now()}`;
  await rename(file, setAsideAs);
  return { value: fallback, setAsideAs };
}

export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  // 0600: settings name hosts, users and channels; none of them is anyone else's to read.
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n', SECRET_FILE_MODE);
}

/**
 * Reads `file` under its lock, lets `change` edit the entries it is about, and writes it back
 * before the lock is released; the file as written.
 */
export async function updateJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  fallback: () => z.output<S>,
  change: (value: z.output<S>) => void,
): Promise<z.output<S>> {
  return withFileLock(file, async () => {
    const { value } = await readJsonFile(file, schema, fallback());
    change(value);
    await writeJsonFile(file, value);
    return value;
  });
}
