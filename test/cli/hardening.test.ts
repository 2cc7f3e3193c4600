// The command line's answers to misuse, as a child process: a CSV plan whose first row is a
// header, rows a list leaves out, object-method names as IDs, a data folder that is a file, an
// unknown environment, and output files in folders that do not exist.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

/** Two blank boards, `c2:8e:10:00:00:01` up. */
function tray(dir: string): string {
  return writeJson(dir, 'tray.json', {
    boards: [
      {
        name: 'CLI Tray {n}',
        address: 'c2:8e:10:00:00:01',
        count: 2,
        advertising: { intervalMs: 50 },
        provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
        latency: { connectMs: 20, perOperationMs: 4 },
      },
    ],
  });
}

describe('devicebench misuse', { timeout: 90_000 }, () => {
  it('a CSV plan: a header row is refused unless --plan-header says so; every row left out is named with its line before anything is reserved', async () => {
    const dir = tempDir('csv');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const mixed = join(dir, 'mixed.csv');
    writeFileSync(mixed, `PSDI\nAB-0001\nAB-0001\n\n${'X'.repeat(80)}\nAB-0002\n`);
    const args = [
      'provision',
      '--product',
      product,
      '--count',
      '2',
      '--plan',
      mixed,
      '--profile',
      'devicebench-v1',
      '--sim-boards',
      tray(dir),
      '--data-dir',
      data,
    ];

    const refused = await runCli(args);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/mixed\.csv: .*line 1 \("PSDI"\).*header.*--plan-header/);
    expect(refused.stdout).not.toContain('PSDI PSDI');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(data)).not.toContain('audit.sqlite');

    const run = await runCli([...args, '--plan-header', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const notes = run.stderr.split('\n');
    const skipped = [
      'mixed.csv line 3: "AB-0001" repeats line 2, left out',
      'mixed.csv line 4: blank PSDI, left out',
      expect.stringMatching(
        /^mixed\.csv line 5: PSDI "X{80}" is 80 bytes .* at most 20, left out$/,
      ),
    ];
    expect(notes.slice(0, 3)).toEqual(skipped);
    const summary = JSON.parse(run.stdout) as { boards: { psdi: string; state: string }[] };
    expect(summary.boards.map((b) => [b.state, b.psdi]).sort()).toEqual([
      ['verified', 'AB-0001'],
      ['verified', 'AB-0002'],
    ]);

    // A first row that is no PSDI at all is refused the same way.
    const blankFirst = join(dir, 'blank-first.csv');
    writeFileSync(blankFirst, `\nAB-0003\n`);
    const blank = await runCli([...args.slice(0, 6), blankFirst, ...args.slice(7)]);
    expect(blank.code, blank.stderr).toBe(2);
    expect(blank.stderr).toMatch(/blank-first\.csv: .*line 1 \(""\) is not a valid PSDI/);
  });

  it('refuses a data folder that is a file, an unknown --env on scan, output files in missing folders and a product named __proto__, with exit 2 and no stack trace', async () => {
    const dir = tempDir('misuse');
    const data = join(dir, 'data');
    const aFile = join(dir, 'a-file');
    writeFileSync(aFile, 'not a folder');
    const set = writeJson(dir, 'set.json', {
      autoClose: false,
      suppressionInterval: 0,
      scenarios: [
        {
          trigger: { type: 'IMMEDIATE' },
          actions: [{ type: 'SLEEP', sleepMillis: 10 }],
        },
      ],
    });
    const missing = join(dir, 'no-such-folder');
    const cases: [string[], RegExp][] = [
      [['scan', '--for', '1', '--data-dir', aFile], /--data-dir: .*a-file is a file, not a folder/],
      [['scan', '--for', '1', '--data-dir', join(aFile, 'sub')], /--data-dir: .*not a folder/],
      [['scan', '--for', '1', '--env', 'nope', '--data-dir', data], /--env: no environment "nope"/],
      [
        ['audit', 'export', '--csv', join(missing, 'audit.csv'), '--data-dir', data],
        /--csv: cannot write .*no-such-folder.* does not exist/,
      ],
      [
        ['trace', '--since', '5m', '--out', join(missing, 'x.btsnoop'), '--data-dir', data],
        /--out: cannot write .*does not exist/,
      ],
      [
        [
          'scenario',
          'run',
          set,
          '--board',
          'c2:8e:10:00:00:01',
          '--junit',
          join(missing, 'j.xml'),
          '--data-dir',
          data,
        ],
        /--junit: cannot write .*does not exist/,
      ],
      [
        ['provision', '--product', '__proto__', '--count', '1', '--data-dir', data],
        /--plan: is required: product __proto__ has no saved PSDI plan/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
    expect(existsSync(missing)).toBe(false);
  });
});
