// The trace folder: batched writes, rotation by size with a file cap, the listing, and one
// btsnoop file cut from every file for a time window.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBtsnoop, parseBtsnoop } from '../../../../src/core/ble/hci/btsnoop';
import {
  extractTrace,
  listTraces,
  TraceError,
  TraceWriter,
} from '../../../../src/core/ble/hci/trace-store';

const tempDir = () => mkdtempSync(join(tmpdir(), 'traces-'));
const T0 = Date.UTC(2026, 10, 23, 22, 0, 0);

/** A clock the test moves: `now()` answers `at`. */
function manualClock(start = T0) {
  const clock = { at: start, now: () => clock.at };
  return clock;
}

/** An LE Advertising Report event of `size` bytes whose last byte is `n`. */
function packet(n: number, size = 40): Buffer {
  const p = Buffer.alloc(size);
  p[0] = 0x04;
  p[1] = 0x3e;
  p[2] = size - 3;
  p[3] = 0x02;
  p[size - 1] = n & 0xff;
  return p;
}

const files = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.btsnoop'))
    .sort();
const read = (dir: string, file: string) => parseBtsnoop(readFileSync(join(dir, file)));

describe('TraceWriter', () => {
  it('batches records and writes them on the flush timer and on close', async () => {
    const dir = tempDir();
    const clock = manualClock();
    const writer = new TraceWriter(dir, { now: clock.now, flushIntervalMs: 20 });
    writer.record('received', packet(1));
    clock.at += 1.5;
    writer.record('sent', Buffer.from([0x01, 0x03, 0x0c, 0x00]));
    expect(files(dir)).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(files(dir)).toEqual([`hci-2026-11-23T22-00-00-000Z-${process.pid}.btsnoop`]);
    const [file] = files(dir);
    expect(
      read(dir, file as string).records.map((r) => [r.timestampUs, r.direction, r.flags]),
    ).toEqual([
      [T0 * 1000, 'received', 3],
      [T0 * 1000 + 1500, 'sent', 2],
    ]);
    writer.record('received', packet(2));
    writer.close();
    expect(read(dir, file as string).records).toHaveLength(3);
    writer.record('received', packet(3));
    expect(read(dir, file as string).records).toHaveLength(3);
  });

  it('rotates by size, keeps the newest maxFiles files, and loses no record between files', () => {
    const dir = tempDir();
    const clock = manualClock();
    const writer = new TraceWriter(dir, { now: clock.now, maxFileBytes: 4096, maxFiles: 3 });
    // 1,000-byte packets: 4 records (16 + 4 × 1,024 bytes) would pass 4,096, so 3 per file.
    for (let n = 0; n < 12; n += 1) {
      writer.record('received', packet(n, 1000));
      clock.at += 10;
    }
    writer.close();
    const kept = files(dir);
    expect(kept).toHaveLength(3);
    const seen = kept.flatMap((f) => {
      expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(4096);
      const { records, trailingBytes } = read(dir, f);
      expect(trailingBytes).toBe(0);
      expect(records).toHaveLength(3);
      return records.map((r) => r.data[999]);
    });
    // The first file (records 0–2) was deleted when the fourth started.
    expect(seen).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('names a bad option', () => {
    expect(() => new TraceWriter(tempDir(), { maxFileBytes: 100 })).toThrow(
      new TraceError('maxFileBytes', 'must be at least 4096 bytes'),
    );
    expect(() => new TraceWriter(tempDir(), { maxFiles: 0 })).toThrow(/^maxFiles: /);
  });

  it('counts records lost to a failed write as drops in the next records', () => {
    const dir = join(tempDir(), 'traces');
    const errors: string[] = [];
    const writer = new TraceWriter(dir, { onError: (e) => errors.push(e.message) });
    rmSync(dir, { recursive: true });
    writer.record('received', packet(1));
    writer.record('received', packet(2));
    writer.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/ENOENT/);
    expect(writer.dropped).toBe(2);
    execFileSync('mkdir', ['-p', dir]);
    writer.record('received', packet(3));
    writer.close();
    const [file] = files(dir);
    expect(read(dir, file as string).records.map((r) => [r.data[39], r.drops])).toEqual([[3, 2]]);
  });

  it('writes what it batched when its process dies of an uncaught exception', () => {
    const dir = tempDir();
    const script = `
      import { TraceWriter } from ${JSON.stringify(resolve('src/core/ble/hci/trace-store.ts'))};
      const writer = new TraceWriter(${JSON.stringify(dir)}, { flushIntervalMs: 60000 });
      writer.record('received', Buffer.from([0x04, 0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]));
      setTimeout(() => { throw new Error('crash'); }, 0);
    `;
    const entry = join(dir, 'crash.mts');
    writeFileSync(entry, script);
    expect(() =>
      execFileSync(process.execPath, ['--import', 'tsx', entry], { stdio: 'pipe' }),
    ).toThrow(/crash/);
    const [file] = files(dir);
    expect(
      read(dir, file as string).records.map((r) => Buffer.from(r.data).toString('hex')),
    ).toEqual(['040e0401030c00']);
  });
});

describe('listTraces and extractTrace', () => {
  /** Two sessions in one folder: the first rotated into two files, the second overlapping it. */
  function twoSessions(dir: string) {
    const a = manualClock(T0);
    const first = new TraceWriter(dir, { now: a.now, maxFileBytes: 4096 });
    for (let n = 0; n < 6; n += 1) {
      first.record('received', packet(n, 1000));
      a.at += 1000;
    }
    first.close();
    const b = manualClock(T0 + 2500);
    const second = new TraceWriter(dir, { now: b.now });
    for (let n = 100; n < 103; n += 1) {
      second.record('sent', packet(n));
      b.at += 1000;
    }
    second.close();
  }

  it('lists each file with its first and last record', () => {
    const dir = tempDir();
    twoSessions(dir);
    writeFileSync(join(dir, 'hci-foreign.btsnoop'), 'not a trace');
    const list = listTraces(dir);
    expect(list.map(({ first, last, records }) => [first, last, records])).toEqual([
      [T0, T0 + 2000, 3],
      [T0 + 2500, T0 + 4500, 3],
      [T0 + 3000, T0 + 5000, 3],
      [null, null, 0],
    ]);
    expect(list[0]?.bytes).toBe(16 + 3 * 1024);
    expect(list[3]?.error).toMatch(/^header/);
    expect(listTraces(join(dir, 'missing'))).toEqual([]);
  });

  it('cuts one time-ordered file from every file in the window, both ends included', () => {
    const dir = tempDir();
    twoSessions(dir);
    const { records, trailingBytes } = parseBtsnoop(
      extractTrace(dir, { from: T0 + 1000, to: T0 + 4000 }).file,
    );
    expect(trailingBytes).toBe(0);
    expect(
      records.map((r) => [r.timestampUs / 1000 - T0, r.direction, r.data[r.data.length - 1]]),
    ).toEqual([
      [1000, 'received', 1],
      [2000, 'received', 2],
      [2500, 'sent', 100],
      [3000, 'received', 3],
      [3500, 'sent', 101],
      [4000, 'received', 4],
    ]);
  });

  it('gives a file with the header only for a window without traffic', () => {
    const dir = tempDir();
    twoSessions(dir);
    const empty = extractTrace(dir, { from: T0 - 10_000, to: T0 - 1 });
    expect(empty).toMatchObject({ packets: 0, redacted: 0, keysInClear: 0 });
    expect(empty.file.length).toBe(16);
    expect(parseBtsnoop(empty.file).records).toEqual([]);
    expect(extractTrace(join(dir, 'none'), { from: 0, to: 1 }).file.length).toBe(16);
  });

  it('names the bad field of a window', () => {
    const dir = tempDir();
    expect(() => extractTrace(dir, { from: 10, to: 5 })).toThrow(
      new TraceError('to', 'must not be before from'),
    );
    expect(() => extractTrace(dir, { from: -1, to: 5 })).toThrow(/^from: /);
    expect(() => extractTrace(dir, { from: Number.NaN, to: 5 })).toThrow(/^from: /);
  });
});

describe('link keys in the trace folder', () => {
  const LTK = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
  /** LE Enable Encryption for handle 0x0040 with Rand, EDIV and the LTK. */
  const enableEncryption = Buffer.concat([
    Buffer.from('011920' + '1c' + '4000' + '1122334455667788' + '3412', 'hex'),
    LTK,
  ]);
  /** A board's SMP Encryption Information, in one ACL packet. */
  const encryptionInformation = Buffer.concat([
    Buffer.from('024020150011000600' + '06', 'hex'),
    LTK,
  ]);
  const holds = (file: Buffer) => file.includes(LTK);

  function session(dir: string, keepKeys?: boolean) {
    const clock = manualClock();
    const writer = new TraceWriter(dir, { now: clock.now, keepKeys });
    writer.record('sent', enableEncryption);
    clock.at += 1;
    writer.record('received', encryptionInformation);
    clock.at += 1;
    writer.record('received', packet(1));
    writer.close();
    return files(dir).map((f) => join(dir, f));
  }

  it('writes the keys redacted, each packet followed by a note, in a file only its owner reads', () => {
    const dir = tempDir();
    const [file] = session(dir);
    const bytes = readFileSync(file!);
    expect(holds(bytes)).toBe(false);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const records = parseBtsnoop(bytes).records.map((r) => Buffer.from(r.data));
    // Each packet keeps its length; a note follows each one redacted.
    expect([records[0], records[2], records[4]].map((r) => r!.length)).toEqual([32, 26, 40]);
    expect(records.length).toBe(5);
    expect(records[0]!.subarray(0, 16)).toEqual(enableEncryption.subarray(0, 16));
    expect(records[0]!.subarray(16).toString('latin1')).toBe('REDACTEDREDACTED');
    expect(records[1]!.subarray(3).toString('latin1')).toMatch(
      /^DeviceBench key redacted: the LTK in LE Enable Encryption, the packet before this one/,
    );
    expect(records[3]!.subarray(3).toString('latin1')).toContain(
      'LTK in SMP Encryption Information',
    );
    // The packets handed to the writer are untouched: they go on to noble and the controller.
    expect(enableEncryption.subarray(16)).toEqual(LTK);
    // A window of it: the notes counted, nothing left to redact.
    const window = extractTrace(dir, { from: T0, to: T0 + 10 });
    expect(window).toMatchObject({ packets: 5, redacted: 2, keysInClear: 0 });
    expect(holds(window.file)).toBe(false);
    expect(extractTrace(dir, { from: T0, to: T0 + 10 }, { keepKeys: true })).toMatchObject({
      redacted: 2,
      keysInClear: 0,
    });
  });

  it('keeps them when the user chose to, and cuts a window with them only on the same choice', () => {
    const dir = tempDir();
    const [file] = session(dir, true);
    expect(holds(readFileSync(file!))).toBe(true);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const kept = extractTrace(dir, { from: T0, to: T0 + 10 }, { keepKeys: true });
    expect(kept).toMatchObject({ packets: 3, redacted: 0, keysInClear: 2 });
    expect(holds(kept.file)).toBe(true);
    const redacted = extractTrace(dir, { from: T0, to: T0 + 10 });
    expect(redacted).toMatchObject({ packets: 5, redacted: 2, keysInClear: 0 });
    expect(holds(redacted.file)).toBe(false);
    expect(parseBtsnoop(redacted.file).records.map((r) => r.timestampUs / 1000 - T0)).toEqual([
      0, 0, 1, 1, 2,
    ]);
  });

  it('changes its choice while it runs', () => {
    const dir = tempDir();
    const writer = new TraceWriter(dir, { keepKeys: true });
    writer.record('sent', enableEncryption);
    writer.keepKeys = false;
    writer.record('received', encryptionInformation);
    writer.close();
    const records = parseBtsnoop(readFileSync(join(dir, files(dir)[0]!))).records;
    expect(records.map((r) => Buffer.from(r.data).includes(LTK))).toEqual([true, false, false]);
  });

  it('redacts, once, the files an older version left readable with keys in clear, and no other', () => {
    const dir = tempDir();
    const old = join(dir, 'hci-2026-01-01T00-00-00-000Z-1.btsnoop');
    const oldFile = encodeBtsnoop([
      { timestampUs: T0 * 1000, flags: 2, drops: 0, data: enableEncryption },
      { timestampUs: T0 * 1000 + 5, flags: 1, drops: 0, data: encryptionInformation },
    ]);
    const [kept] = session(dir, true);
    writeFileSync(old, oldFile, { mode: 0o644 });
    writeFileSync(join(dir, 'hci-foreign.btsnoop'), 'not a trace', { mode: 0o644 });

    new TraceWriter(dir).close();
    expect(statSync(old).mode & 0o777).toBe(0o600);
    expect(holds(readFileSync(old))).toBe(false);
    expect(parseBtsnoop(readFileSync(old)).records.map((r) => r.data.length)).toEqual([
      32,
      expect.any(Number),
      26,
      expect.any(Number),
    ]);
    // The file kept with its keys by choice is as it was; the foreign one is only made private.
    expect(holds(readFileSync(kept!))).toBe(true);
    expect(statSync(join(dir, 'hci-foreign.btsnoop')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'hci-foreign.btsnoop'), 'utf8')).toBe('not a trace');
  });
});
