// `npm run bench -- line --against <rev>` (bench/line-against.ts): a revision that is not one is
// refused in words naming the flag before anything starts, and the rows of an older line
// benchmark's table meet this one's by what they measure.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { InvalidRunError } from '../../bench/benchmark';
import { line } from '../../bench/line';
import { comparison, parseLineTable, parseRounds, resolveAgainst } from '../../bench/line-against';

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();

describe('--against', () => {
  it('refuses what names no commit with a line benchmark, naming the flag', async () => {
    for (const [rev, words] of [
      ['no-such-revision-46', /^--against: "no-such-revision-46" names no commit/],
      ['', /^--against: a revision to compare with/],
      ['--help', /^--against: "--help" is not a revision/],
      // The repository's first commit had no benchmarks.
      [git('rev-list', '--max-parents=0', 'HEAD').split('\n').pop()!, /has no bench\/line\.ts$/],
    ] as const) {
      const refusal = await resolveAgainst(rev).catch((err: unknown) => err);
      expect(refusal, rev).toBeInstanceOf(InvalidRunError);
      expect((refusal as Error).message, rev).toMatch(words);
    }
    await expect(resolveAgainst('HEAD')).resolves.toBe(git('rev-parse', 'HEAD'));
  });

  it('is checked before the benchmark starts a server, as is --rounds', async () => {
    const printed: string[] = [];
    const print = (l: string) => printed.push(l);
    await expect(line.run(print, { against: 'no-such-revision-46' })).rejects.toThrow(
      /^--against: "no-such-revision-46"/,
    );
    await expect(line.run(print, { rounds: '2' })).rejects.toThrow(
      /^--rounds: only with --against/,
    );
    expect(printed).toEqual([]);
    expect(() => parseRounds('0')).toThrow(/^--rounds: a whole number/);
    expect(() => parseRounds('two')).toThrow(/^--rounds: a whole number/);
    expect(parseRounds(undefined)).toBe(2);
  });
});

describe('parseLineTable', () => {
  it('matches an older table without log and at-once columns to this one by row', () => {
    // be4837d's output, then this revision's (abridged).
    const old = parseLineTable(`line: back-to-back sequence reservations for 3 s per row
  engine    stations  reservations/s  p99 ms
  postgres         8             646   65.98
  sqlite           4            1020   14.71
line: PostgreSQL, 8 stations: 646 reservations/s / target 500 = 1.29 PASS
`);
    const now = parseLineTable(`line: back-to-back sequence reservations for 3 s per row
  engine                log  stations  at once  reservations/s   target  ratio  p99 ms  target  ratio
  postgres  100,000 records         8        1           1,416   >= 900   1.57   15.07   <= 15   1.00  FAIL
  sqlite              empty         4        1             321        -      -  181.40       -      -
  sqlite              empty         1        5            1834        -      -   12.94   <= 15   0.86  PASS
`);
    expect(old).toEqual([
      { key: 'postgres, empty, 8 stations, 1 at once', perSecond: 646, p99Ms: 65.98 },
      { key: 'sqlite, empty, 4 stations, 1 at once', perSecond: 1020, p99Ms: 14.71 },
    ]);
    expect(now).toEqual([
      { key: 'postgres, 100,000 records, 8 stations, 1 at once', perSecond: 1416, p99Ms: 15.07 },
      { key: 'sqlite, empty, 4 stations, 1 at once', perSecond: 321, p99Ms: 181.4 },
      { key: 'sqlite, empty, 1 station, 5 at once', perSecond: 1834, p99Ms: 12.94 },
    ]);
    expect(parseLineTable('line: ERROR: no PostgreSQL server found')).toEqual([]);
  });
});

describe('comparison', () => {
  it('puts each side’s median beside the other, and names the checks a row failed', () => {
    const row = (key: string, perSecond: number, p99Ms: number) => ({ key, perSecond, p99Ms });
    const alone = 'sqlite, empty, 1 station, 1 at once';
    const four = 'sqlite, empty, 4 stations, 1 at once';
    const filled = 'sqlite, 10,000 records, 1 station, 1 at once';
    const lines = comparison(
      // Theirs: three runs, medians 800/s and 10 ms; no filled log.
      [[row(alone, 800, 10)], [row(alone, 700, 30)], [row(alone, 900, 9), row(four, 400, 40)]],
      [
        [row(alone, 780, 12), row(four, 500, 14), row(filled, 300, 8)],
        [row(alone, 740, 12), row(four, 530, 22), row(filled, 320, 9)],
      ],
      (key) =>
        key === alone
          ? { minRateRatio: 0.95, perSecond: 1000, p99Ms: 5 }
          : key === four
            ? { p99Ms: 15 }
            : {},
    );
    const cells = (key: string) =>
      lines
        .find((l) => l.includes(key))!
        .trim()
        .split(/\s{2,}/);
    // 760 / 800 = 0.95 holds; the machine missed the row's own /s and p99.
    expect(cells(alone)).toEqual([
      alone,
      '800',
      '760',
      '0.95',
      '10.00',
      '12.00',
      '1.20',
      '/s ratio >= 0.95, /s >= 1000, p99 <= 5',
      'FAIL: /s >= 1000, p99 <= 5',
    ]);
    expect(cells(four)).toEqual([
      four,
      '400',
      '515',
      '1.29',
      '40.00',
      '18.00',
      '0.45',
      'p99 <= 15',
      'FAIL: p99 <= 15',
    ]);
    expect(cells(filled)).toEqual([filled, '-', '310', '-', '-', '8.50', '-', '-']);
  });
});
