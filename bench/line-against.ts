// `npm run bench -- line --against <rev>`: the line benchmark of this checkout and of another
// revision, run back to back on the same machine, each row beside its counterpart and the ratio
// (docs/decisions/audit-log.md, "Reservations against another revision"). The other revision
// runs its own bench/line.ts in a throwaway git worktree, whose node_modules is this checkout's:
// an older line benchmark may have other rows and flags, so each side prints its own table and
// rows are matched by what they measure (engine, log, stations, reservations at once). Runs
// alternate, the other revision first (A/B/A/B), so load that drifts during the comparison
// weighs on both sides.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { InvalidRunError } from './benchmark';
import { ms, table } from './format';

const run = promisify(execFile);

/** This checkout: the folder above bench/. */
const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** What one row measured on one side, and the name it is matched by. */
interface LineRow {
  key: string;
  perSecond: number;
  p99Ms: number;
}

/**
 * The commit `--against` names, resolved in this checkout's repository; refused in words naming
 * the flag when it names none, or a commit without a line benchmark.
 */
export async function resolveAgainst(rev: string | undefined, cwd = ROOT): Promise<string> {
  if (rev === undefined || rev.trim() === '')
    throw new InvalidRunError('--against: a revision to compare with (e.g. --against be4837d)');
  // A value starting with "-" would be read by git as an option.
  if (rev.startsWith('-'))
    throw new InvalidRunError(`--against: "${rev}" is not a revision (it starts with "-")`);
  let commit: string;
  try {
    const { stdout } = await run('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], {
      cwd,
    });
    commit = stdout.trim();
  } catch {
    throw new InvalidRunError(`--against: "${rev}" names no commit in ${cwd}`);
  }
  try {
    await run('git', ['cat-file', '-e', `${commit}:bench/line.ts`], { cwd });
  } catch {
    throw new InvalidRunError(`--against: ${rev} (${commit.slice(0, 9)}) has no bench/line.ts`);
  }
  return commit;
}

/** The number a table cell shows (`1,052`, `16.96`). */
const numberOf = (cell: string) => Number(cell.replace(/,/g, ''));

/**
 * The rows of a line benchmark's table, from any revision's output: the header names the
 * columns (cells are two or more spaces apart; a cell holds at most single spaces). A revision
 * without a `log` or `at once` column measured empty logs, one reservation per station at a time.
 */
export function parseLineTable(output: string): LineRow[] {
  const lines = output.split('\n');
  const header = lines.findIndex((l) => /^\s+engine\s{2,}/.test(l));
  if (header < 0) return [];
  const split = (l: string) => l.trim().split(/\s{2,}/);
  const columns = split(lines[header] as string);
  const at = (name: string) => columns.indexOf(name);
  const rows: LineRow[] = [];
  for (const l of lines.slice(header + 1)) {
    if (!/^\s+\S/.test(l)) break;
    const cells = split(l);
    const cell = (name: string, otherwise: string) => (at(name) < 0 ? otherwise : cells[at(name)]);
    const perSecond = numberOf(cell('reservations/s', '') ?? '');
    const p99Ms = numberOf(cell('p99 ms', '') ?? '');
    if (!Number.isFinite(perSecond) || !Number.isFinite(p99Ms)) continue;
    rows.push({
      key: rowKey({
        engine: cell('engine', '') ?? '',
        log: cell('log', 'empty') ?? 'empty',
        stations: cell('stations', '1') ?? '1',
        concurrent: cell('at once', '1') ?? '1',
      }),
      perSecond,
      p99Ms,
    });
  }
  return rows;
}

/** A row's name on both sides: `sqlite, empty, 4 stations, 1 at once`. */
export function rowKey(r: { engine: string; log: string; stations: string; concurrent: string }) {
  return `${r.engine}, ${r.log}, ${r.stations} station${r.stations === '1' ? '' : 's'}, ${r.concurrent} at once`;
}

/** One side's line benchmark, run by this checkout's tsx in `cwd`; its table's rows. */
async function runLine(cwd: string, args: string[], label: string): Promise<LineRow[]> {
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  const child = spawn(process.execPath, [tsx, 'bench/run.ts', 'line', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A run stopped by a signal stops its side as Ctrl-C would (the child's own bench ends).
  const stop = () => child.kill('SIGINT');
  process.once('exit', stop);
  child.once('close', () => process.off('exit', stop));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const rows = parseLineTable(output);
  if (code !== 0 || !rows.length)
    throw new InvalidRunError(
      `${label}'s line benchmark ${code !== 0 ? `exited ${code}` : 'printed no table'}:\n${output.trim().split('\n').slice(-12).join('\n')}`,
    );
  return rows;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Each row's median over the runs of one side. */
function medians(runs: LineRow[][]): Map<string, { perSecond: number; p99Ms: number }> {
  const keys = [...new Set(runs.flat().map((r) => r.key))];
  return new Map(
    keys.map((key) => {
      const rows = runs.flatMap((rs) => rs.filter((r) => r.key === key));
      return [
        key,
        {
          perSecond: median(rows.map((r) => r.perSecond)),
          p99Ms: median(rows.map((r) => r.p99Ms)),
        },
      ];
    }),
  );
}

/** What a row must reach against the other revision, beside its own targets. */
export interface AgainstTarget {
  /** This revision's reservations/s ÷ the other's, at least. */
  minRateRatio?: number;
  /** This revision's p99, at most (ms). */
  p99Ms?: number;
  /** This revision's reservations/s, at least. */
  perSecond?: number;
}

interface AgainstOptions {
  /** The `--against` value. */
  against: string | undefined;
  /** The `--rounds` value: how many runs each side gets (default 2: A/B/A/B). */
  rounds: string | undefined;
  /** Flags for this revision's runs (the other revision's run with its own defaults). */
  flags: Record<string, string>;
  targetOf: (key: string) => AgainstTarget;
}

/** Checks `--rounds`: a whole number from 1 to 10. */
export function parseRounds(value: string | undefined): number {
  const rounds = Number(value ?? 2);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10)
    throw new InvalidRunError(
      `--rounds: a whole number of runs per side, 1 to 10 (got "${value}")`,
    );
  return rounds;
}

export async function lineAgainst(print: (line: string) => void, o: AgainstOptions): Promise<void> {
  const rounds = parseRounds(o.rounds);
  const commit = await resolveAgainst(o.against);
  const other = `${o.against} (${commit.slice(0, 9)})`;
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-against-'));
  const worktree = join(dir, 'rev');
  const args = Object.entries(o.flags).flatMap(([name, value]) => [`--${name}`, value]);
  // 'exit' listeners run synchronously: a run ended by a signal leaves no worktree behind.
  const removeWorktree = () => {
    try {
      execFileSync('git', ['worktree', 'remove', '--force', worktree], {
        cwd: ROOT,
        stdio: 'ignore',
      });
    } catch {
      // Not made yet, or gone already.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', removeWorktree);
  try {
    await run('git', ['worktree', 'add', '--detach', worktree, commit], { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'));
    const theirs: LineRow[][] = [];
    const ours: LineRow[][] = [];
    const loads: string[] = [];
    for (let i = 1; i <= rounds; i++) {
      for (const side of ['theirs', 'ours'] as const) {
        const load = (loadavg()[0] ?? 0).toFixed(2);
        const label = side === 'theirs' ? other : 'this checkout';
        print(`line --against: run ${i} of ${rounds}, ${label} (load average ${load})`);
        loads.push(load);
        if (side === 'theirs') theirs.push(await runLine(worktree, [], other));
        else ours.push(await runLine(ROOT, args, 'this checkout'));
      }
    }
    loads.push((loadavg()[0] ?? 0).toFixed(2));
    print(
      `line --against ${other}: medians of ${rounds} run${rounds > 1 ? 's' : ''} per side, ` +
        `alternating, theirs first; load average ${loads.join(' → ')}`,
    );
    comparison(theirs, ours, o.targetOf).forEach((l) => print(l));
  } finally {
    process.off('exit', removeWorktree);
    removeWorktree();
  }
}

/**
 * The table of both sides' medians, row by row as this checkout measured them: the ratios and
 * each row's checks, the verdict naming the checks that failed.
 */
export function comparison(
  theirRuns: LineRow[][],
  ourRuns: LineRow[][],
  targetOf: (key: string) => AgainstTarget,
): string[] {
  const a = medians(theirRuns);
  const b = medians(ourRuns);
  return table([
    ['row', 'theirs /s', 'ours /s', 'ratio', 'theirs p99', 'ours p99', 'ratio', 'target', ''],
    ...[...b.keys()].map((key) => {
      const ours = b.get(key) as { perSecond: number; p99Ms: number };
      const theirs = a.get(key);
      const t = targetOf(key);
      const rateRatio = theirs ? ours.perSecond / theirs.perSecond : undefined;
      // Each check the row has, and whether it held: the verdict names the ones that failed,
      // so a ratio kept against the other revision reads apart from a target the load missed.
      const checks: [string, boolean][] = [];
      if (t.minRateRatio !== undefined)
        checks.push([
          `/s ratio >= ${t.minRateRatio}`,
          rateRatio !== undefined && rateRatio >= t.minRateRatio,
        ]);
      if (t.perSecond !== undefined)
        checks.push([`/s >= ${t.perSecond}`, ours.perSecond >= t.perSecond]);
      if (t.p99Ms !== undefined) checks.push([`p99 <= ${t.p99Ms}`, ours.p99Ms <= t.p99Ms]);
      const failed = checks.filter(([, held]) => !held).map(([said]) => said);
      return [
        key,
        theirs ? theirs.perSecond.toFixed(0) : '-',
        ours.perSecond.toFixed(0),
        rateRatio === undefined ? '-' : rateRatio.toFixed(2),
        theirs ? ms(theirs.p99Ms) : '-',
        ms(ours.p99Ms),
        theirs ? (ours.p99Ms / theirs.p99Ms).toFixed(2) : '-',
        checks.length ? checks.map(([said]) => said).join(', ') : '-',
        checks.length ? (failed.length ? `FAIL: ${failed.join(', ')}` : 'PASS') : '',
      ];
    }),
  ]);
}
