// PSDI strategies as the workflow uses them: run by the audit store's reserve, so "never twice"
// is checked against real records.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkPsdi,
  createPsdiAllocator,
  parsePsdiCsv,
  PsdiError,
} from '../../../src/core/audit/psdi';
import { reserveInput, tempStore, type TempStore } from '../audit/fixture';

let t: TempStore;
beforeEach(async () => {
  t = await tempStore('sqlite', undefined);
});
afterEach(() => t.cleanup());

let board = 0;
const take = async (allocator: ReturnType<typeof createPsdiAllocator>) =>
  (await t.store.reserve(reserveInput(++board, allocator))).psdi;

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PsdiError);
    return (err as PsdiError).field;
  }
  throw new Error('expected a PsdiError');
}

describe('sequence', () => {
  it('counts up from start with the prefix and zero padding, and resumes after a restart', async () => {
    const seq = () =>
      createPsdiAllocator({ kind: 'sequence', prefix: 'DB-', start: 7, width: 4 }, 20);
    expect([await take(seq()), await take(seq()), await take(seq())]).toEqual([
      'DB-0007',
      'DB-0008',
      'DB-0009',
    ]);
    await t.reopen();
    expect(await take(seq())).toBe('DB-0010');
  });

  it('never repeats a number, even one released, and skips numbers recorded another way', async () => {
    const seq = createPsdiAllocator({ kind: 'sequence', prefix: 'S', width: 2 }, 20);
    const first = await t.store.reserve(reserveInput(++board, seq));
    await t.store.release(first.id, 'board lost');
    await t.store.reserve(reserveInput(++board, 'S02'));
    expect(await take(seq)).toBe('S03');
  });

  it('keeps one counter per prefix', async () => {
    expect(await take(createPsdiAllocator({ kind: 'sequence', prefix: 'A' }, 20))).toBe('A1');
    expect(await take(createPsdiAllocator({ kind: 'sequence', prefix: 'B' }, 20))).toBe('B1');
    expect(await take(createPsdiAllocator({ kind: 'sequence', prefix: 'A' }, 20))).toBe('A2');
  });

  it('refuses a prefix that cannot fit the profile before anything is reserved', async () => {
    expect(
      fieldOf(() =>
        createPsdiAllocator({ kind: 'sequence', prefix: 'X'.repeat(18), width: 3 }, 20),
      ),
    ).toBe('prefix');
    expect(() =>
      createPsdiAllocator({ kind: 'sequence', prefix: 'X'.repeat(18), width: 3 }, 20),
    ).toThrow('the first PSDI "XXXXXXXXXXXXXXXXXX001" is 21 bytes; the profile allows at most 20');
  });

  it('stops with a clear error, and reserves nothing, once the numbers outgrow maxBytes', async () => {
    const seq = createPsdiAllocator({ kind: 'sequence', prefix: 'P', start: 98 }, 3);
    expect([await take(seq), await take(seq)]).toEqual(['P98', 'P99']);
    await expect(take(seq)).rejects.toThrow(
      'PSDI "P100" is 4 bytes in UTF-8; the profile allows at most 3',
    );
    expect((await t.store.search()).total).toBe(2);
  });

  it('names the field of a malformed strategy', async () => {
    expect(fieldOf(() => createPsdiAllocator({ kind: 'sequence', start: -1 }, 20))).toBe('start');
  });
});

describe('random', () => {
  it('draws PSDIs of the given length from the alphabet, all distinct', async () => {
    const rnd = createPsdiAllocator(
      { kind: 'random', alphabet: 'ABCDEF0123', length: 8, prefix: 'R-' },
      20,
    );
    const psdis: string[] = [];
    for (let i = 0; i < 200; i++) psdis.push(await take(rnd));
    expect(new Set(psdis).size).toBe(200);
    for (const p of psdis) expect(p).toMatch(/^R-[A-F0-3]{8}$/);
  });

  it('counts multi-byte characters in UTF-8 against maxBytes', async () => {
    expect(() => createPsdiAllocator({ kind: 'random', alphabet: 'aé', length: 11 }, 20)).toThrow(
      'the prefix and 11 characters can take 22 bytes; the profile allows at most 20',
    );
    expect(
      fieldOf(() => createPsdiAllocator({ kind: 'random', alphabet: 'aa', length: 8 }, 20)),
    ).toBe('alphabet');
  });

  it('gives up with an error when every value of the space is recorded', async () => {
    for (let n = 0; n < 16; n++)
      await t.store.reserve(
        reserveInput(++board, n.toString(2).padStart(4, '0').replace(/0/g, 'A').replace(/1/g, 'B')),
      );
    const rnd = createPsdiAllocator({ kind: 'random', alphabet: 'AB', length: 4 }, 20);
    await expect(take(rnd)).rejects.toThrow(
      '100 random PSDIs of 4 characters were all taken; use a longer length',
    );
  });
});

describe('list', () => {
  it('hands out entries in order, skipping held ones, and gives a released entry back', async () => {
    await t.store.reserve(reserveInput(++board, 'L2'));
    const list = createPsdiAllocator({ kind: 'list', values: ['L1', 'L2', 'L3'] }, 20);
    const first = await t.store.reserve(reserveInput(++board, list));
    expect(first.psdi).toBe('L1');
    expect(await take(list)).toBe('L3');
    await expect(take(list)).rejects.toThrow('all 3 PSDIs in the list are taken');
    await t.store.release(first.id, 'board lost');
    expect(await take(list)).toBe('L1');
  });

  it('refuses duplicates and PSDIs too long for the profile, naming the entry', async () => {
    expect(() => createPsdiAllocator({ kind: 'list', values: ['A', 'B', 'A'] }, 20)).toThrow(
      'values[2]: "A" repeats values[0]',
    );
    expect(
      fieldOf(() => createPsdiAllocator({ kind: 'list', values: ['A', 'x'.repeat(21)] }, 20)),
    ).toBe('values.1');
  });
});

describe('CSV lists', () => {
  it('takes a named column and reports blank, duplicate and too-long rows by line', async () => {
    const csv = [
      'note,psdi',
      'first,DB-1',
      'blank,',
      'second,DB-2',
      '',
      'again,DB-1',
      `long,${'Z'.repeat(21)}`,
      '"multi',
      'line",DB-3',
      'spaces,  DB-4  ',
    ].join('\n');
    const parsed = parsePsdiCsv(csv, { column: 'PSDI', maxBytes: 20 });
    expect(parsed.values).toEqual(['DB-1', 'DB-2', 'DB-3', 'DB-4']);
    expect(parsed.problems).toEqual([
      { line: 3, message: 'blank PSDI' },
      { line: 5, message: 'blank PSDI' },
      { line: 6, message: '"DB-1" repeats line 2' },
      {
        line: 7,
        message: `PSDI "${'Z'.repeat(21)}" is 21 bytes in UTF-8; the profile allows at most 20`,
      },
    ]);
  });

  it('takes the first column when no column is named, with or without a header', async () => {
    expect(parsePsdiCsv('A1\r\nA2\r\n', { maxBytes: 20 }).values).toEqual(['A1', 'A2']);
    expect(parsePsdiCsv('psdi;x\nA1\n', { header: true, maxBytes: 20 }).values).toEqual(['A1']);
  });

  it('refuses a missing column or a file that is not CSV', async () => {
    expect(() => parsePsdiCsv('id,serial\n1,2\n', { column: 'psdi', maxBytes: 20 })).toThrow(
      'no column "psdi" in the header (columns: id, serial)',
    );
    expect(() => parsePsdiCsv('a,"b\nc', { maxBytes: 20 })).toThrow(
      /not valid CSV: .*Quote Not Closed/,
    );
  });

  it('feeds a list strategy', async () => {
    const { values } = parsePsdiCsv('psdi\nC1\nC2\n', { column: 'psdi', maxBytes: 20 });
    const list = createPsdiAllocator({ kind: 'list', values }, 20);
    expect([await take(list), await take(list)]).toEqual(['C1', 'C2']);
  });
});

describe('checkPsdi', () => {
  it('refuses empty, padded, control characters and too many UTF-8 bytes', async () => {
    expect(() => checkPsdi('', 20)).toThrow('PSDI is empty');
    expect(() => checkPsdi(' A', 20)).toThrow('starts or ends with a space');
    expect(() => checkPsdi('A\u0000B', 20)).toThrow('control character');
    expect(() => checkPsdi('é'.repeat(11), 20)).toThrow(
      'is 22 bytes in UTF-8; the profile allows at most 20',
    );
    expect(() => checkPsdi('é'.repeat(10), 20)).not.toThrow();
  });
});
