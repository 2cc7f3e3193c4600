// PSDI allocation per product: a prefixed sequence, random strings, or a list from CSV. An
// allocator only picks; the audit store takes the pick atomically (and asks again when another
// station took it first), so a PSDI is never handed to two live boards.
import { randomInt } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { AllocationContext, PsdiAllocator } from './store';
import { psdiStrategySchema, type PsdiStrategy } from './psdi-strategy';

/** A PSDI or a strategy that cannot work; `field` names the offending input when there is one. */
export class PsdiError extends Error {
  override name = 'PsdiError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();

function psdiBytes(psdi: string): number {
  return encoder.encode(psdi).length;
}

/**
 * The rules every PSDI meets before it is reserved: not empty, no surrounding spaces or control
 * characters (a board compares bytes), at most `maxBytes` in UTF-8 (the profile's limit).
 */
export function checkPsdi(psdi: string, maxBytes: number): void {
  if (psdi.length === 0) throw new PsdiError('PSDI is empty');
  if (psdi.trim() !== psdi) throw new PsdiError(`PSDI "${psdi}" starts or ends with a space`);
  if (/\p{Cc}/u.test(psdi)) throw new PsdiError(`PSDI "${psdi}" contains a control character`);
  const bytes = psdiBytes(psdi);
  if (bytes > maxBytes)
    throw new PsdiError(
      `PSDI "${psdi}" is ${bytes} bytes in UTF-8; the profile allows at most ${maxBytes}`,
    );
}

/** Validates the strategy now (bad fields, PSDIs that could never fit) and returns its allocator. */
export function createPsdiAllocator(strategy: PsdiStrategy, maxBytes: number): PsdiAllocator {
  const parsed = psdiStrategySchema.safeParse(strategy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || undefined;
    throw new PsdiError(`${field ?? 'strategy'}: ${issue?.message ?? 'is invalid'}`, field);
  }
  const s = parsed.data;
  const allocator =
    s.kind === 'sequence'
      ? sequenceAllocator(s.prefix, s.start, s.width, maxBytes)
      : s.kind === 'random'
        ? randomAllocator(s.prefix, s.alphabet, s.length, maxBytes)
        : listAllocator(s.values, maxBytes);
  return { ...allocator, recipe: { strategy: s, maxBytes } };
}

function sequenceAllocator(
  prefix: string,
  start: number,
  width: number,
  maxBytes: number,
): PsdiAllocator {
  const format = (n: number) => prefix + String(n).padStart(width, '0');
  const first = format(start);
  if (psdiBytes(first) > maxBytes)
    throw new PsdiError(
      `the first PSDI "${first}" is ${psdiBytes(first)} bytes; the profile allows at most ${maxBytes}`,
      'prefix',
    );
  if (prefix.trim() !== prefix || /\p{Cc}/u.test(prefix))
    throw new PsdiError('the prefix has surrounding spaces or control characters', 'prefix');
  // The counter is per prefix: changing the prefix starts a new series, going back resumes it.
  const key = `sequence:${prefix}`;
  return {
    async allocate(context: AllocationContext): Promise<string> {
      // A number given back to the pool (nothing reached the board, or an operator released
      // it) is handed out again first, lowest first.
      const back = (await context.returned())
        .filter((psdi) => {
          const digits = psdi.slice(prefix.length);
          return (
            psdi.startsWith(prefix) &&
            /^\d+$/.test(digits) &&
            Number(digits) >= start &&
            format(Number(digits)) === psdi
          );
        })
        .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))[0];
      if (back !== undefined) return back;
      // Otherwise a number is taken once, at any station, and numbers already in the log
      // (entered by hand, or a record that keeps its PSDI out of the pool) are skipped.
      let n = await context.takeNumber(key, start);
      while (await context.wasRecorded(format(n))) n = await context.takeNumber(key, start);
      const psdi = format(n);
      checkPsdi(psdi, maxBytes);
      return psdi;
    },
  };
}

function randomAllocator(
  prefix: string,
  alphabet: string,
  length: number,
  maxBytes: number,
): PsdiAllocator {
  const symbols = [...alphabet];
  if (new Set(symbols).size !== symbols.length)
    throw new PsdiError('the alphabet repeats a character', 'alphabet');
  if (symbols.some((c) => /\s|\p{Cc}/u.test(c)))
    throw new PsdiError('the alphabet contains a space or control character', 'alphabet');
  const widest = Math.max(...symbols.map(psdiBytes));
  if (prefix.trim() !== prefix || /\p{Cc}/u.test(prefix))
    throw new PsdiError('the prefix has surrounding spaces or control characters', 'prefix');
  const most = psdiBytes(prefix) + widest * length;
  if (most > maxBytes)
    throw new PsdiError(
      `the prefix and ${length} characters can take ${most} bytes; the profile allows at most ${maxBytes}`,
      'length',
    );
  return {
    async allocate(context: AllocationContext): Promise<string> {
      // A random PSDI is never reissued unless given back to the pool: the space is large, a
      // clash is a fluke.
      for (let tries = 0; tries < 100; tries++) {
        const psdi =
          prefix + Array.from({ length }, () => symbols[randomInt(symbols.length)]).join('');
        if (!(await context.wasRecorded(psdi))) return psdi;
      }
      throw new PsdiError(
        `100 random PSDIs of ${length} characters were all taken; use a longer length`,
        'length',
      );
    },
  };
}

function listAllocator(values: string[], maxBytes: number): PsdiAllocator {
  const seen = new Map<string, number>();
  values.forEach((psdi, i) => {
    try {
      checkPsdi(psdi, maxBytes);
    } catch (err) {
      throw new PsdiError(`values[${i}]: ${(err as Error).message}`, `values.${i}`);
    }
    const earlier = seen.get(psdi);
    if (earlier !== undefined)
      throw new PsdiError(`values[${i}]: "${psdi}" repeats values[${earlier}]`, `values.${i}`);
    seen.set(psdi, i);
  });
  return {
    async allocate(context: AllocationContext): Promise<string> {
      // A list is finite and curated: an entry whose record let it go (released, or failed
      // before the board could take it) is handed out again.
      const free = await context.firstFree(values);
      if (free === undefined)
        throw new PsdiError(`all ${values.length} PSDIs in the list are taken`, 'values');
      return free;
    },
  };
}

export interface PsdiCsvProblem {
  /** 1-based line in the file where the row starts. */
  line: number;
  message: string;
}

export interface PsdiCsv {
  /** The usable PSDIs, in file order. */
  values: string[];
  /** Rows left out, each with its line: blank, duplicate, too long, malformed. */
  problems: PsdiCsvProblem[];
}

export interface PsdiCsvOptions {
  /** Take this column (the first row is then a header); otherwise the first column. */
  column?: string;
  /** Whether the first row is a header; defaults to true when `column` is given. */
  header?: boolean;
  /** The profile's limit; longer PSDIs are reported, not returned. */
  maxBytes: number;
}

/**
 * First cells that name a column rather than a board: a file starting with one has a header row
 * it did not declare (docs/decisions.md, "CSV PSDI lists").
 */
const HEADER_LIKE =
  /^(psdis?|product[ _-]?specific[ _-]?device[ _-]?ids?|device[ _-]?ids?|ids?|serials?|serial[ _-]?(numbers?|no\.?)|values?|names?)$/i;

/**
 * Reads a PSDI list. Problems with single rows are reported with their line and the row is
 * left out; a file that cannot be read as CSV at all, or lacks the column, throws. Without a
 * header, a first row that is not a valid PSDI or reads like a column name throws too: taken as
 * a PSDI it would be written to a board.
 */
export function parsePsdiCsv(text: string, options: PsdiCsvOptions): PsdiCsv {
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    // csv-parse's types do not model `info: true`, which wraps each row with its line count.
    rows = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: false,
      relax_column_count: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    throw new PsdiError(`the file is not valid CSV: ${(err as Error).message}`, 'csv');
  }
  const header = options.header ?? options.column !== undefined;
  let columnIndex = 0;
  let previousEnd = 0;
  const withLines = rows.map((row) => {
    const line = previousEnd + 1;
    previousEnd = row.info.lines;
    return { cells: row.record, line };
  });
  if (header) {
    const head = withLines.shift();
    if (options.column !== undefined) {
      const names = (head?.cells ?? []).map((c) => c.trim());
      columnIndex = names.findIndex(
        (n) => n.toLowerCase() === options.column?.trim().toLowerCase(),
      );
      if (columnIndex < 0)
        throw new PsdiError(
          `no column "${options.column}" in the header (columns: ${names.filter(Boolean).join(', ') || 'none'})`,
          'column',
        );
    }
  }
  const first = withLines[0];
  if (!header && first) {
    const cell = (first.cells[0] ?? '').trim();
    let reason = HEADER_LIKE.test(cell) ? 'reads like a column name' : '';
    try {
      checkPsdi(cell, options.maxBytes);
    } catch (err) {
      reason = (err as Error).message;
    }
    if (reason)
      throw new PsdiError(
        `line ${first.line} (${JSON.stringify(cell)}) ${reason.startsWith('PSDI') ? `is not a valid PSDI (${reason})` : reason}: a list starts with its first PSDI; say the file has a header row, or remove the row`,
        'header',
      );
  }
  const values: string[] = [];
  const problems: PsdiCsvProblem[] = [];
  const firstLine = new Map<string, number>();
  for (const { cells, line } of withLines) {
    const psdi = (cells[columnIndex] ?? '').trim();
    if (!psdi) {
      problems.push({ line, message: 'blank PSDI' });
      continue;
    }
    const earlier = firstLine.get(psdi);
    if (earlier !== undefined) {
      problems.push({ line, message: `"${psdi}" repeats line ${earlier}` });
      continue;
    }
    try {
      checkPsdi(psdi, options.maxBytes);
    } catch (err) {
      problems.push({ line, message: (err as Error).message });
      continue;
    }
    firstLine.set(psdi, line);
    values.push(psdi);
  }
  return { values, problems };
}
