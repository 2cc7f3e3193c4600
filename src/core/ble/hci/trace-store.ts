// The BLE process's HCI traffic on disk: btsnoop files in one folder, rotated by size, written
// in batches so a flood of advertising reports costs little, and read back as one file for a
// time window. Link keys are redacted on the way in and on the way out unless the user chose to
// keep them (key-redaction.ts); the files are the user's alone (0600). Folder, rotation, window
// and key choices: docs/decisions/ble-and-hci.md ("HCI traces", "Keys in traces").
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  btsnoopFlags,
  btsnoopHeader,
  btsnoopRecordBytes,
  BTSNOOP_HEADER_BYTES,
  encodeBtsnoop,
  parseBtsnoop,
  writeBtsnoopRecord,
  type BtsnoopRecord,
  type Direction,
} from './btsnoop';
import { holdsKeys, isRedactionNote, KeyFinder, redact, redactionNote } from './key-redaction';
import { traceWindowSchema, type TraceWindow } from './trace-window';

const TRACE_DEFAULTS = {
  /** A file is closed and the next one started once it would pass this size. */
  maxFileBytes: 8 * 1024 * 1024,
  /** Files kept in the folder, the oldest deleted first: 64 MiB of traffic by default. */
  maxFiles: 8,
  /** Batched records reach the file at least this often: what a crash can lose at most. */
  flushIntervalMs: 250,
} as const;

/** Records wait here between flushes; a full buffer is flushed at once. */
const BATCH_BYTES = 256 * 1024;

const TRACE_FILE = /^hci-.+\.btsnoop$/;

const writerOptionsSchema = z.object({
  maxFileBytes: z
    .number()
    .int()
    .min(4096, 'must be at least 4096 bytes')
    .default(TRACE_DEFAULTS.maxFileBytes),
  maxFiles: z.number().int().min(1, 'must be at least 1').default(TRACE_DEFAULTS.maxFiles),
  flushIntervalMs: z
    .number()
    .int()
    .min(1, 'must be at least 1 ms')
    .max(60_000)
    .default(TRACE_DEFAULTS.flushIntervalMs),
});

export interface TraceWriterOptions {
  /** Wall-clock milliseconds since the Unix epoch, fractions allowed. */
  now?: () => number;
  maxFileBytes?: number;
  maxFiles?: number;
  flushIntervalMs?: number;
  /** A write that failed; its records are counted as drops in the records after it. */
  onError?: (err: Error) => void;
  /** Write link keys as they are, for Wireshark; default false: redacted (`keepKeys`). */
  keepKeys?: boolean;
}

/** The mode of every trace file: link keys may be in it, by choice (docs/decisions). */
const TRACE_FILE_MODE = 0o600;

export class TraceError extends Error {
  override name = 'TraceError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

function firstIssue(error: z.ZodError): TraceError {
  const issue = error.issues[0];
  return new TraceError(issue?.path.join('.') || 'options', issue?.message ?? 'is invalid');
}

/**
 * The wall clock at process start plus the monotonic time since: microsecond resolution, and
 * records stay in order even if the system clock is set back during a session.
 */
const processClock = (): number => performance.timeOrigin + performance.now();

/** `hci-2026-11-23T22-28-07-123Z-4242.btsnoop`: sorts by start time, safe on every filesystem. */
function traceFileName(atMs: number, pid: number): string {
  const stamp = new Date(Math.floor(atMs)).toISOString().replace(/[:.]/g, '-');
  return `hci-${stamp}-${pid}.btsnoop`;
}

/**
 * Trace files an older DeviceBench left readable by others, with the link keys in clear: each is
 * rewritten with its keys redacted (a note after each) as 0600, once, so an upgrade leaves no
 * key on disk until rotation would have deleted it. A writer's own files are 0600 from the
 * start, so files kept with keys by choice are never touched; one that cannot be read as a
 * trace is only made 0600.
 */
function redactOlderTraces(dir: string): void {
  for (const name of readdirSync(dir).filter((f) => TRACE_FILE.test(f))) {
    const file = join(dir, name);
    try {
      if ((statSync(file).mode & 0o077) === 0) continue;
      let records: BtsnoopRecord[] | undefined;
      try {
        records = parseBtsnoop(readFileSync(file)).records;
      } catch {
        chmodSync(file, TRACE_FILE_MODE);
        continue;
      }
      const counts = { redacted: 0, keysInClear: 0 };
      const redacted = encodeBtsnoop(windowOfFile(records, () => true, false, counts));
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, redacted, { mode: TRACE_FILE_MODE });
      renameSync(temp, file);
    } catch {
      // Deleted by another writer's rotation meanwhile: nothing left to redact.
    }
  }
}

export class TraceWriter {
  private readonly now: () => number;
  private readonly options: z.infer<typeof writerOptionsSchema>;
  private readonly onError: (err: Error) => void;
  private readonly timer: NodeJS.Timeout;
  private readonly flushOnExit = () => this.flush();
  private batch = Buffer.allocUnsafe(BATCH_BYTES);
  private batchUsed = 0;
  private batchRecords = 0;
  private fd: number | undefined;
  private file: string | undefined;
  /** Bytes of the current file, written and batched; 0 before its first record. */
  private fileBytes = 0;
  private fileStart = 0;
  private drops = 0;
  private closed = false;
  private readonly keys = new KeyFinder();
  /**
   * Whether packets are written with their link keys (the user's choice, which can change while
   * the writer runs); otherwise each key is overwritten and a note follows its packet.
   */
  keepKeys: boolean;

  constructor(
    readonly dir: string,
    opts: TraceWriterOptions = {},
  ) {
    const parsed = writerOptionsSchema.safeParse({
      maxFileBytes: opts.maxFileBytes,
      maxFiles: opts.maxFiles,
      flushIntervalMs: opts.flushIntervalMs,
    });
    if (!parsed.success) throw firstIssue(parsed.error);
    this.options = parsed.data;
    this.now = opts.now ?? processClock;
    this.onError = opts.onError ?? (() => undefined);
    this.keepKeys = opts.keepKeys ?? false;
    mkdirSync(dir, { recursive: true });
    redactOlderTraces(dir);
    this.timer = setInterval(() => this.flush(), this.options.flushIntervalMs);
    this.timer.unref();
    // A crash that still runs 'exit' (an uncaught exception, process.exit) loses nothing.
    process.on('exit', this.flushOnExit);
  }

  /** The file records go to now; undefined before the first flush and after close. */
  get currentFile(): string | undefined {
    return this.file;
  }

  /** Records lost to failed writes so far. */
  get dropped(): number {
    return this.drops;
  }

  /** Never throws: a trace that cannot be written must not stop the radio (see `onError`). */
  record(direction: Direction, packet: Uint8Array): void {
    // A packet of a socket still closing after the session ended has no file to go to.
    if (this.closed) return;
    const keys = this.keepKeys ? undefined : this.keys.find(direction, packet);
    const note = keys && redactionNote(keys);
    const size = btsnoopRecordBytes(packet) + (note ? btsnoopRecordBytes(note) : 0);
    const at = this.now();
    if (this.fileBytes === 0) this.startFile(at);
    else if (
      this.fileBytes + size > this.options.maxFileBytes &&
      this.fileBytes > BTSNOOP_HEADER_BYTES
    ) {
      this.flush();
      this.closeFile();
      this.startFile(at);
    }
    if (this.batchUsed + size > this.batch.length) {
      this.flush();
      if (size > this.batch.length) this.batch = Buffer.allocUnsafe(size);
    }
    this.append(at, direction, packet);
    // The packet's copy in the batch loses its keys; the packet itself goes on to noble intact.
    if (keys && note) {
      redact(this.batch.subarray(this.batchUsed - packet.length, this.batchUsed), keys);
      this.append(at, 'received', note);
    }
    this.fileBytes += size;
  }

  private append(at: number, direction: Direction, packet: Uint8Array): void {
    this.batchUsed = writeBtsnoopRecord(this.batch, this.batchUsed, {
      timestampUs: at * 1000,
      flags: btsnoopFlags(direction, packet),
      drops: this.drops,
      data: packet,
    });
    this.batchRecords += 1;
  }

  /** Writes the batched records now; the timer and close call it. */
  flush(): void {
    if (this.batchUsed === 0) return;
    try {
      this.fd ??= this.openFile();
      writeSync(this.fd, this.batch, 0, this.batchUsed);
    } catch (err) {
      this.drops += this.batchRecords;
      this.closeFile();
      this.fileBytes = 0;
      this.onError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.batchUsed = 0;
      this.batchRecords = 0;
    }
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.timer);
    process.off('exit', this.flushOnExit);
    this.closeFile();
  }

  /** The next file begins with a record at `at`: its name tells when. */
  private startFile(at: number): void {
    this.fileBytes = BTSNOOP_HEADER_BYTES;
    this.fileStart = at;
  }

  private openFile(): number {
    let at = this.fileStart;
    for (;;) {
      const file = join(this.dir, traceFileName(at, process.pid));
      try {
        const fd = openSync(file, 'wx', TRACE_FILE_MODE);
        writeSync(fd, btsnoopHeader());
        this.file = file;
        this.prune();
        return fd;
      } catch (err) {
        // Two files started in the same millisecond (a tiny maxFileBytes): the next name.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        at += 1;
      }
    }
  }

  private closeFile(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Already unusable: the next flush opens a new file.
      }
    }
    this.fd = undefined;
    this.file = undefined;
  }

  /** Keeps the newest `maxFiles` trace files of the folder, this writer's current one included. */
  private prune(): void {
    const files = readdirSync(this.dir)
      .filter((f) => TRACE_FILE.test(f))
      .sort();
    const excess = files.length - this.options.maxFiles;
    for (const name of files.slice(0, Math.max(0, excess))) {
      const file = join(this.dir, name);
      if (file === this.file) continue;
      try {
        unlinkSync(file);
      } catch {
        // Deleted by another writer meanwhile.
      }
    }
  }
}

export interface TraceFileInfo {
  file: string;
  bytes: number;
  records: number;
  /** Epoch ms of the first and last record; null for a file without records. */
  first: number | null;
  last: number | null;
  /** Why the file could not be read; it is left out of extracts. */
  error?: string;
}

interface ReadTrace {
  info: TraceFileInfo;
  records: BtsnoopRecord[];
}

function readTraces(dir: string): ReadTrace[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => TRACE_FILE.test(f));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const traces: ReadTrace[] = [];
  for (const file of names.sort()) {
    let buf: Buffer;
    try {
      buf = readFileSync(join(dir, file));
    } catch {
      continue; // Rotated away between the listing and the read.
    }
    try {
      const { records } = parseBtsnoop(buf);
      traces.push({
        info: {
          file,
          bytes: buf.length,
          records: records.length,
          first: records.length ? (records[0]?.timestampUs ?? 0) / 1000 : null,
          last: records.length ? (records[records.length - 1]?.timestampUs ?? 0) / 1000 : null,
        },
        records,
      });
    } catch (err) {
      traces.push({
        info: {
          file,
          bytes: buf.length,
          records: 0,
          first: null,
          last: null,
          error: (err as Error).message,
        },
        records: [],
      });
    }
  }
  return traces;
}

/** The trace files of a folder, oldest first. */
export function listTraces(dir: string): TraceFileInfo[] {
  return readTraces(dir).map((t) => t.info);
}

/** A window's records as one btsnoop file, and what became of the link keys in it. */
export interface ExtractedTrace {
  file: Buffer;
  /** Records in the file, the redaction notes included. */
  packets: number;
  /** Keys redacted: now, or when the trace was recorded (each one's note is in the file). */
  redacted: number;
  /** Keys in the file in clear: only when they were kept at recording and at extraction. */
  keysInClear: number;
}

/**
 * The records of one file in the window, with the link keys taken out as the writer takes them
 * out (each key's packet followed by its note) or, with `keepKeys`, as they are; counts both
 * kinds. Keys are looked for in the file's whole order: an SMP PDU may start before the window.
 */
function windowOfFile(
  records: BtsnoopRecord[],
  inWindow: (record: BtsnoopRecord) => boolean,
  keepKeys: boolean,
  counts: { redacted: number; keysInClear: number },
): BtsnoopRecord[] {
  const keys = new KeyFinder();
  const out: BtsnoopRecord[] = [];
  for (const record of records) {
    const found = keys.find(record.direction, record.data);
    if (!inWindow(record)) continue;
    if (isRedactionNote(record.data)) counts.redacted += 1;
    if (!found || !holdsKeys(record.data, found)) {
      out.push(record);
    } else if (keepKeys) {
      counts.keysInClear += 1;
      out.push(record);
    } else {
      const data = Uint8Array.from(record.data);
      redact(data, found);
      const note = redactionNote(found);
      out.push({ ...record, data }, noteRecord(record, note));
      counts.redacted += 1;
    }
  }
  return out;
}

/** A redaction note as the record after `after`, as the writer records it. */
function noteRecord(after: BtsnoopRecord, note: Buffer): BtsnoopRecord {
  return {
    timestampUs: after.timestampUs,
    direction: 'received',
    flags: btsnoopFlags('received', note),
    originalLength: note.length,
    drops: after.drops,
    data: note,
  };
}

/**
 * One btsnoop file holding every record of every trace file from `from` to `to` (epoch ms, both
 * inclusive), in time order, with their link keys redacted unless `keepKeys` (a trace recorded
 * with them redacted has none to keep). A window with no traffic gives a file with the header
 * only.
 */
export function extractTrace(
  dir: string,
  window: TraceWindow,
  options: { keepKeys?: boolean } = {},
): ExtractedTrace {
  const parsed = traceWindowSchema.safeParse(window);
  if (!parsed.success) throw firstIssue(parsed.error);
  const fromUs = parsed.data.from * 1000;
  // The whole last millisecond: records carry microseconds.
  const toUs = parsed.data.to * 1000 + 999;
  const counts = { redacted: 0, keysInClear: 0 };
  const picked = readTraces(dir)
    .filter(
      ({ info }) =>
        info.first !== null &&
        info.last !== null &&
        info.last * 1000 >= fromUs &&
        info.first * 1000 <= toUs,
    )
    .flatMap(({ records }) =>
      windowOfFile(
        records,
        (r) => r.timestampUs >= fromUs && r.timestampUs <= toUs,
        options.keepKeys ?? false,
        counts,
      ),
    );
  // Array sort is stable: records of one instant keep their file order.
  picked.sort((a, b) => a.timestampUs - b.timestampUs);
  return { file: encodeBtsnoop(picked), packets: picked.length, ...counts };
}
