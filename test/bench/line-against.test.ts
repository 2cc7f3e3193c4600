// `npm run bench -- line --against <rev>` (bench/line-against.ts): a revision that is not one is
// refused in words naming the flag before anything starts, and the rows of an older line
// benchmark's table meet this one's by what they measure.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { InvalidRunError } from '../../bench/benchmark';
import { line } from '../../bench/line';
import { parseLineTable, parseRounds, resolveAgainst } from '../../bench/line-against';

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
