// Small settings files: validated with zod on read, written atomically (temp file + rename) so
// a crash mid-write never leaves half a file. A file that fails validation is kept aside, not
// overwritten, so nothing the user saved is lost.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';

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
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
  await rename(temp, file);
}
