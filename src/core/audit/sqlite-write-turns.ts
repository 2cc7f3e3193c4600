// Turns at writing one SQLite file among the worker threads of one process (issue 46). Each
// store is its own worker thread with its own connection (sqlite-worker-store.ts); when several
// write the same file, SQLite's write lock keeps them apart, but a writer that finds it taken
// waits in SQLite's busy handler, which sleeps 1, 2, 5, 10 … 100 ms between tries whatever the
// holder does: four stores on one file reached a p99 of 80 ms where each commit takes about
// one. Here the threads of one process first take a turn on a word of shared memory, and the
// one leaving wakes the next at once (Atomics.notify), so SQLite's lock is free when they ask for
// it. SQLite's lock still arbitrates: other processes on the file, and a thread whose turn did
// not come within the busy timeout, fall back to it (docs/decisions/audit-log.md, "Four stores on
// one file").

/** The turn's word: 0 when free, else the owner's number (one per worker thread started). */
export interface WriteTurns {
  buffer: SharedArrayBuffer;
  owner: number;
}

/**
 * How long a writer waits for the file: SQLite's busy timeout (database.ts sets it from here),
 * and as long for a turn, past which the thread asks SQLite anyway. Here rather than in
 * database.ts, whose better-sqlite3 the main thread (sqlite-worker-store.ts) never loads.
 */
export const BUSY_TIMEOUT_MS = 5_000;

/** The shared word for a file, made on the caller's thread. */
export function newTurnsBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

/**
 * Frees the turn if `owner` held it: a worker thread that ended (crashed, or was terminated)
 * mid-write must not keep the others waiting.
 */
export function freeTurnOf({ buffer, owner }: WriteTurns): void {
  const word = new Int32Array(buffer);
  if (Atomics.compareExchange(word, 0, owner, 0) === owner) Atomics.notify(word, 0, 1);
}

/**
 * Runs `write` in this thread's turn. Blocks the thread while it waits (it is a worker that runs
 * one request at a time, holding no transaction while it waits); `write` must take SQLite's
 * write lock itself.
 */
export async function inTurn<T>(turns: WriteTurns | undefined, write: () => Promise<T> | T) {
  const held = turns !== undefined && take(turns);
  try {
    return await write();
  } finally {
    if (held) freeTurnOf(turns);
  }
}

/** Waits for the turn, up to BUSY_TIMEOUT_MS; false when it did not come. */
function take({ buffer, owner }: WriteTurns): boolean {
  const word = new Int32Array(buffer);
  const until = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    const holder = Atomics.compareExchange(word, 0, 0, owner);
    if (holder === 0) return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    Atomics.wait(word, 0, holder, left);
  }
}
