// `devicebench scenario lint|run` end to end: a child process over the simulated bench (a board
// file whose LED takes one byte and which lacks a characteristic the set reads) and the embedded
// emulator; the JUnit file parsed, the JSON export, the audit log, exit codes, bad files.
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { startApp } from '../../src/core/app/service';
import { SqliteScenarioRunLog } from '../../src/core/audit/scenario-runs';
import { MemoryCredentialStore } from '../../src/core/secrets/credential-store';
import { REFUSAL, refuseFirstScenarioEnd } from '../helpers/refused-log-write';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

const SERVICE = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const MISSING = 'a3c800ff-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const ADDRESS = 'd6:3a:41:00:30:01';

const boards = {
  boards: [
    {
      name: 'CLI Sensor',
      address: ADDRESS,
      advertising: { intervalMs: 50 },
      gatt: [
        {
          uuid: SERVICE,
          characteristics: [
            { uuid: TEMPERATURE, properties: ['read'], value: { hex: 'fa08' } },
            { uuid: LED, properties: ['read', 'write'], value: { hex: '00' }, maxLength: 1 },
          ],
        },
      ],
    },
  ],
};

const read = (characteristicUuid: string) => ({
  type: 'GATT_READ',
  serviceUuid: SERVICE,
  characteristicUuid,
});
const write = (data: string) => ({
  type: 'GATT_WRITE',
  serviceUuid: SERVICE,
  characteristicUuid: LED,
  data,
});

/** Three scenarios: one passes, one writes two bytes into a one-byte LED, one reads what is not there. */
const failingSet = {
  autoClose: false,
  suppressionInterval: 0,
  scenarios: [
    { trigger: { type: 'IMMEDIATE' }, actions: [read(TEMPERATURE), write('AQ==')] },
    { trigger: { type: 'IMMEDIATE' }, actions: [read(TEMPERATURE), write('AQI=')] },
    { trigger: { type: 'IMMEDIATE' }, actions: [read(MISSING)] },
  ],
};
const passingSet = {
  autoClose: true,
  suppressionInterval: 50,
  scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions: [read(TEMPERATURE), write('AQ==')] }],
};

interface TestCase {
  '@_name': string;
  '@_classname': string;
  failure?: { '@_message': string; '@_type': string };
}

function parseJunit(file: string): { tests: number; failures: number; cases: TestCase[] } {
  const xml = new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => name === 'testcase',
  }).parse(readFileSync(file, 'utf8'));
  const suite = xml.testsuites.testsuite;
  return {
    tests: Number(xml.testsuites['@_tests']),
    failures: Number(xml.testsuites['@_failures']),
    cases: suite.testcase as TestCase[],
  };
}

describe('devicebench scenario', { timeout: 60_000 }, () => {
  it('runs a set file on a board: one test case per scenario run, failures with action, bytes and ATT code', async () => {
    const dir = tempDir('scenario');
    const data = join(dir, 'data');
    const board = writeJson(dir, 'boards.json', boards);
    const set = writeJson(dir, 'set.json', failingSet);
    mkdirSync(join(dir, 'reports'));
    const junit = join(dir, 'reports', 'junit.xml');
    const json = join(dir, 'reports', 'run.json');

    const result = await runCli([
      'scenario',
      'run',
      set,
      '--board',
      ADDRESS,
      '--duration',
      '1',
      '--junit',
      junit,
      '--json',
      json,
      '--sim-boards',
      board,
      '--data-dir',
      data,
    ]);

    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^PASS draft-1 run 1/m);
    expect(result.stdout).toMatch(/^FAIL draft-2 run 2 .*ATT error 0x0d/m);
    expect(result.stdout).toContain('3 scenario runs, 2 failed');

    const report = parseJunit(junit);
    expect(report).toMatchObject({ tests: 3, failures: 2 });
    expect(report.cases.map((c) => c['@_name'])).toEqual([
      'draft-1 run 1',
      'draft-2 run 2',
      'draft-3 run 3',
    ]);
    expect(report.cases[0]?.failure).toBeUndefined();
    const tooLong = report.cases[1]?.failure;
    expect(tooLong?.['@_type']).toBe('GATT_ERROR');
    expect(tooLong?.['@_message']).toContain('action 2 GATT_WRITE');
    expect(tooLong?.['@_message']).toContain('ATT error 0x0d (invalid attribute value length)');
    expect(tooLong?.['@_message']).toContain(`characteristic ${LED}`);
    expect(tooLong?.['@_message']).toContain('bytes 0102');
    const missing = report.cases[2]?.failure;
    expect(missing?.['@_type']).toBe('GATT_ERROR');
    expect(missing?.['@_message']).toContain('action 1 GATT_READ');
    expect(missing?.['@_message']).toContain(MISSING);

    const exported = JSON.parse(readFileSync(json, 'utf8'));
    expect(exported.run).toMatchObject({
      setSource: 'draft',
      results: 3,
      failures: 2,
      status: 'finished',
      stopReason: 'duration',
    });
    expect(exported.results.map((r: { resultCode: string }) => r.resultCode)).toEqual([
      'SUCCESS',
      'GATT_ERROR',
      'GATT_ERROR',
    ]);
    expect(exported.events.some((e: { kind: string }) => e.kind === 'scenario-end')).toBe(true);
  });

  it('runs a product’s saved set from the emulator and passes; lint checks the file against the board', async () => {
    const dir = tempDir('saved');
    const data = join(dir, 'data');
    const board = writeJson(dir, 'boards.json', boards);
    const productId = await seedProduct(data, passingSet as never);
    const junit = join(dir, 'junit.xml');

    // A bot's webhook: results are posted to it, signed with the channel secret.
    const posts: { signature: string | undefined; body: string }[] = [];
    const bot = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        posts.push({ signature: req.headers['x-platform-signature'] as string | undefined, body });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
    const { port } = bot.address() as AddressInfo;

    const run = await runCli([
      'scenario',
      'run',
      '--deliver',
      `http://127.0.0.1:${port}/webhook`,
      '--product',
      productId,
      '--saved',
      '--board',
      ADDRESS,
      '--cycles',
      '2',
      '--junit',
      junit,
      '--sim-boards',
      board,
      '--data-dir',
      data,
    ]);
    bot.close();
    expect(run.code, run.stderr).toBe(0);
    expect(posts).toHaveLength(2);
    for (const post of posts) {
      expect(post.signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(JSON.parse(post.body).events[0]).toMatchObject({ type: 'things' });
      expect(post.body).toContain('"resultCode":"SUCCESS"');
    }
    const report = parseJunit(junit);
    expect(report).toMatchObject({ tests: 2, failures: 0 });
    expect(report.cases[0]?.['@_classname']).toMatch(/^scenario\./);

    // The app opens the same folder and lists the command's dry run among its past runs.
    const app = await startApp({
      dataDir: data,
      credentials: new MemoryCredentialStore(),
      keychain: { kind: 'memory', reason: 'test' },
      version: '0.0.0-test',
      webhookPort: 0,
    });
    try {
      const runs = await app.invoke('scenarios:listRuns', { productId });
      expect(runs).toMatchObject({
        ok: true,
        value: {
          total: 1,
          items: [{ setSource: 'saved', results: 2, failures: 0, bench: 'sim' }],
        },
      });
    } finally {
      await app.close();
    }

    const lint = await runCli([
      'scenario',
      'lint',
      writeJson(dir, 'set.json', failingSet),
      '--board',
      ADDRESS,
      '--json',
      '--sim-boards',
      board,
      '--data-dir',
      data,
    ]);
    expect(lint.code, lint.stderr).toBe(0);
    const findings = JSON.parse(lint.stdout).findings as { field: string; rule: string }[];
    expect(findings).toContainEqual(
      expect.objectContaining({
        field: 'scenarios[2].actions[0].characteristicUuid',
        rule: 'no-such-characteristic',
      }),
    );
  });

  it('reports a timeline batch the audit log refuses, and the run carries on to its finish', async () => {
    const dir = tempDir('refused');
    const data = join(dir, 'data');
    mkdirSync(data);
    const file = join(data, 'audit.sqlite');
    // The run log's tables, so the refusal can be planted before the command runs.
    await new SqliteScenarioRunLog({ file, station: 'cli-test' }).close();
    refuseFirstScenarioEnd(file);
    const json = join(dir, 'run.json');

    const result = await runCli([
      'scenario',
      'run',
      writeJson(dir, 'set.json', passingSet),
      '--board',
      ADDRESS,
      '--cycles',
      '2',
      '--json',
      json,
      '--station',
      'cli-test',
      '--sim-boards',
      writeJson(dir, 'boards.json', boards),
      '--data-dir',
      data,
    ]);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\d+ timeline events could not be written to the audit log: /);
    expect(result.stderr).toContain(REFUSAL);
    expect(result.stdout).toMatch(/^PASS draft-1 run 1/m);
    expect(result.stdout).toMatch(/^PASS draft-1 run 2/m);
    // Run 1's batch is missing from the log; run 2's batch and the finish are in it.
    const exported = JSON.parse(readFileSync(json, 'utf8'));
    expect(exported.run).toMatchObject({ status: 'finished', stopReason: 'cycles', results: 1 });
    const log = new SqliteScenarioRunLog({ file, station: 'cli-test' });
    try {
      const kept = await log.read(exported.run.id);
      expect(kept?.run).toMatchObject({ status: 'finished', stopReason: 'cycles' });
      const ends = kept?.events.flatMap((e) => (e.kind === 'scenario-end' ? [e.run] : []));
      expect(ends).toEqual([2]);
      expect(kept?.events.at(-1)).toMatchObject({ kind: 'stopped', reason: 'cycles' });
    } finally {
      await log.close();
    }
  });

  it('refuses bad flags and bad files with exit 2, naming the flag or the field, writing nothing', async () => {
    const dir = tempDir('bad');
    const data = join(dir, 'data');
    const junit = join(dir, 'junit.xml');
    const badSet = writeJson(dir, 'bad-set.json', {
      ...passingSet,
      scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions: [{ ...write('not base64!') }] }],
    });
    const badBoards = writeJson(dir, 'bad-boards.json', {
      boards: [{ ...boards.boards[0], address: 'not an address' }],
    });
    const cases: [string[], RegExp][] = [
      [
        ['scenario', 'run', badSet, '--board', ADDRESS, '--junit', junit],
        /bad-set\.json: scenarios\[0\]\.actions\[0\]\.data/,
      ],
      [
        [
          'scenario',
          'run',
          writeJson(dir, 'ok.json', passingSet),
          '--board',
          'nope',
          '--junit',
          junit,
        ],
        /--board: must be a Bluetooth address/,
      ],
      [
        [
          'scenario',
          'run',
          writeJson(dir, 'ok2.json', passingSet),
          '--board',
          ADDRESS,
          '--cycles',
          '0',
        ],
        /--cycles: must be at least 1/,
      ],
      [['scenario', 'run', '--saved', '--board', ADDRESS], /--product: is required with --saved/],
      [
        [
          'scenario',
          'run',
          writeJson(dir, 'ok3.json', passingSet),
          '--board',
          ADDRESS,
          '--sim-boards',
          badBoards,
          '--junit',
          junit,
        ],
        /bad-boards\.json: boards\[0\]\.address/,
      ],
      [['scenario', 'lint', badSet], /bad-set\.json: scenarios\[0\]\.actions\[0\]\.data/],
      [
        [
          'scenario',
          'run',
          writeJson(dir, 'never-closes.json', failingSet),
          '--board',
          ADDRESS,
          '--cycles',
          '3',
          '--junit',
          junit,
        ],
        /--cycles: can never reach 3 connections: with autoClose false the client never closes the link, so the first connection ends only if the board drops it; run for a duration instead/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli([...args, '--data-dir', data])));
    results.forEach((result, i) => {
      const [args, message] = cases[i] as [string[], RegExp];
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    });
    expect(existsSync(junit)).toBe(false);
    expect(existsSync(data) ? readdirSync(data) : []).toEqual([]);
  });
});
