// `devicebench` on a production line: with DEVICEBENCH_AUDIT_URL the command provisions into the
// shared PostgreSQL log as its station (DEVICEBENCH_STATION), not into the data folder's SQLite.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { useOwnPostgres } from '../helpers/postgres';
import { finished, runCli, seedProduct, startCli, tempDir, writeJson } from './run-cli';

const postgres = useOwnPostgres();

describe('devicebench on a shared audit log', { timeout: 120_000 }, () => {
  it('provisions into the PostgreSQL log DEVICEBENCH_AUDIT_URL names, as DEVICEBENCH_STATION', async () => {
    const dir = tempDir('line');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const url = await postgres.database();
    const boards = writeJson(dir, 'tray.json', {
      boards: [
        {
          name: 'Line Tray {n}',
          address: 'c2:8e:30:00:00:01',
          count: 2,
          advertising: { intervalMs: 50 },
          provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
          latency: { connectMs: 20, perOperationMs: 4 },
        },
      ],
    });
    const plan = writeJson(dir, 'plan.json', {
      profileId: 'devicebench-v1',
      psdi: { kind: 'sequence', prefix: 'LINE-', width: 3 },
    });
    const env = { DEVICEBENCH_AUDIT_URL: url, DEVICEBENCH_STATION: 'ci-runner-3' };
    const run = await runCli(
      [
        'provision',
        '--product',
        product,
        '--count',
        '2',
        '--plan',
        plan,
        '--sim-boards',
        boards,
      ].concat(['--data-dir', data, '--json']),
      env,
    );
    expect(run.code, run.stderr).toBe(0);

    const shared = await openAuditStore({ location: { kind: 'postgres', url } });
    try {
      const { items } = await shared.search({ productId: product });
      expect(items.map((r) => [r.state, r.station, r.psdi]).sort()).toEqual([
        ['verified', 'ci-runner-3', 'LINE-001'],
        ['verified', 'ci-runner-3', 'LINE-002'],
      ]);
    } finally {
      await shared.close();
    }
    // Nothing went to the data folder's own log.
    const local = join(data, 'audit.sqlite');
    if (existsSync(local)) {
      const store = await openAuditStore({ location: { kind: 'local', file: local } });
      expect((await store.search({ productId: product })).total).toBe(0);
      await store.close();
    }

    const search = await runCli(['audit', 'search', '--json', '--data-dir', data], env);
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout).total).toBe(2);
  });

  it('refuses a DEVICEBENCH_AUDIT_URL that is not one (exit 2), and one that does not answer (exit 3)', async () => {
    const data = join(tempDir('line-bad'), 'data');
    const bad = await runCli(['audit', 'search', '--data-dir', data], {
      DEVICEBENCH_AUDIT_URL: 'mysql://somewhere/db',
    });
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('DEVICEBENCH_AUDIT_URL');
    const away = await runCli(['audit', 'search', '--data-dir', data], {
      DEVICEBENCH_AUDIT_URL: 'postgres://postgres@127.0.0.1:9/nothing',
    });
    expect(away.code, away.stderr).toBe(3);
    expect(away.stderr).toContain('audit log');
  });

  it('says when the shared log stops answering mid-batch and when it is back, with how long work waited', async () => {
    const dir = tempDir('line-outage');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const url = await postgres.database();
    const boards = writeJson(dir, 'tray.json', {
      boards: [
        {
          name: 'Outage Tray {n}',
          address: 'c2:8e:40:00:00:01',
          count: 3,
          advertising: { intervalMs: 50 },
          provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
          latency: { connectMs: 20, perOperationMs: 40 },
        },
      ],
    });
    const plan = writeJson(dir, 'plan.json', {
      profileId: 'devicebench-v1',
      psdi: { kind: 'sequence', prefix: 'OUT-', width: 3 },
    });
    const child = startCli(
      [
        'provision',
        '--product',
        product,
        '--count',
        '3',
        '--concurrency',
        '1',
        '--plan',
        plan,
      ].concat(['--sim-boards', boards, '--data-dir', data]),
      { DEVICEBENCH_AUDIT_URL: url, DEVICEBENCH_STATION: 'line-outage' },
    );
    const result = finished(child);
    // The moment: the first board is through and the next one is on its way.
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stdout?.on('data', (d: Buffer) => {
        seen += d.toString();
        if (/PASS|FAIL/.test(seen)) resolve();
      });
    });
    await postgres.server().stop('immediate');
    await new Promise((r) => setTimeout(r, 1_500));
    await postgres.server().start();
    const run = await result;
    expect(run.stdout).toMatch(/^\d of 3 boards verified/m);
    expect(run.stderr).toMatch(
      /the audit log at postgres:\/\/\S+ is unreachable \(.*\); work waits for it/,
    );
    const back = [...run.stderr.matchAll(/is back; work waited (\d+\.\d) s for it/g)];
    expect(back.length, run.stderr).toBeGreaterThan(0);
    expect(Number(back.at(-1)?.[1])).toBeGreaterThan(0);
    // Said once each way per outage: every "unreachable" is followed by its "back".
    expect(run.stderr.match(/is unreachable/g)?.length).toBe(back.length);
  });
});
