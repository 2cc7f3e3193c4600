// The data folder's shared files: the app and any number of `devicebench` runs open one data
// folder at once, so a file more than one process writes is changed under a lock on it, read
// again inside the lock and changed per entry (one board, one bond, one key), then written back
// through a temporary file of this write's own (pid and a random suffix), synced, and renamed
// into place. A fixed temporary name let two writers rename one file from under each other, and
// a whole-file rewrite let the last writer drop every entry another process had added
// (docs/decisions/security-and-hardening.md, "One data folder, several processes").
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import lockfile from 'proper-lockfile';

/** Files that hold a secret, or are encrypted with one, are the user's alone. */
export const SECRET_FILE_MODE = 0o600;

/**
 * A holder that died is taken over once its lock has not been refreshed for this long
 * (proper-lockfile refreshes a held lock's time every half of it).
 */
const STALE_MS = 10_000;
/** How long a writer waits for a live holder before it gives up saying so: past STALE_MS. */
const WAIT_MS = 15_000;
const RETRY_MS = 20;

/** The lock on a shared file could not be had; names the file and what to do. */
export class SharedFileLockError extends Error {
  override name = 'SharedFileLockError';
  constructor(file: string, cause: unknown) {
    super(
      `${file}: another DeviceBench process has held its lock (${file}.lock) for more than ${WAIT_MS / 1000} s; ` +
        `if no DeviceBench app or command is running on this data folder, remove ${file}.lock`,
      { cause },
    );
  }
}

const lockOptions = {
  stale: STALE_MS,
  // The file may not exist yet: lock its path, not what it resolves to.
  realpath: false,
  // A holder whose lock another process took over after STALE_MS still writes whole files
  // (rename); throwing here, proper-lockfile's default, would crash the run from a timer.
  onCompromised: () => undefined,
};

const busy = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ELOCKED';

/** Runs `body` holding the lock on `file`, for a change that must read and write it at once. */
export async function withFileLock<T>(file: string, body: () => Promise<T>): Promise<T> {
  await mkdir(dirname(file), { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(file, lockOptions);
      break;
    } catch (err) {
      if (!busy(err) || Date.now() > deadline) throw new SharedFileLockError(file, err);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS + Math.random() * RETRY_MS));
    }
  }
  try {
    return await body();
  } finally {
    await release().catch(() => undefined);
  }
}

/**
 * `withFileLock` for a writer that must not yield: the simulated board's flash and the bond
 * store write before they answer. It waits between tries without running the event loop, so a
 * file is locked either this way or the other in a process, never both.
 */
export function withFileLockSync<T>(file: string, body: () => T): T {
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  let release: () => void;
  for (;;) {
    try {
      release = lockfile.lockSync(file, lockOptions);
      break;
    } catch (err) {
      if (!busy(err) || Date.now() > deadline) throw new SharedFileLockError(file, err);
      Atomics.wait(SLEEPER, 0, 0, RETRY_MS + Math.random() * RETRY_MS);
    }
  }
  try {
    return body();
  } finally {
    try {
      release();
    } catch {
      // Taken over after STALE_MS (see onCompromised): the other holder releases it.
    }
  }
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** A temporary name no other write shares: beside `file`, so the rename stays on one disk. */
function temporaryName(file: string): string {
  return `${dirname(file)}/.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Writes `data` to `file` whole or not at all: a unique temporary file, synced, renamed. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, mode: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = temporaryName(file);
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** `writeFileAtomicSync` for writers that may yield. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  mode: number,
): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = temporaryName(file);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * What tells one version of a shared file from another, or undefined where there is none: every
 * write renames a new file into place, so another process's change shows as a new stamp.
 */
export function fileStamp(file: string): string | undefined {
  try {
    const { ino, size, mtimeMs } = statSync(file);
    return `${ino}:${size}:${mtimeMs}`;
  } catch {
    return undefined;
  }
}
