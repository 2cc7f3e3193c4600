// `devicebench provision|verify|audit` end to end as child processes over the simulated bench and
// the embedded emulator: records in the audit log, the CSV export, a batch, Ctrl-C mid-batch,
// and the app's own service opening the same data folder before and after the command.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApp } from '../../src/core/app/service';
import { openAuditStore } from '../../src/core/audit/open-store';
import { MemoryCredentialStore } from '../../src/core/secrets/credential-store';
import { finished, runCli, seedProduct, startCli, tempDir, writeJson } from './run-cli';

/** The data folder's own audit log, as the app opens it. */
const openLog = (data: string) =>
  openAuditStore({ location: { kind: 'local', file: join(data, 'audit.sqlite') } });

const plan = { profileId: 'devicebench-v1', psdi: { kind: 'sequence', prefix: 'FW-', width: 4 } };

/** A tray of blank boards, `c2:8e:10:00:00:01` up. */
function tray(dir: string, count: number): string {
  return writeJson(dir, `tray-${count}.json`, {
    boards: [
      {
        name: 'CLI Tray {n}',
        address: 'c2:8e:10:00:00:01',
        count,
        advertising: { intervalMs: 50 },
        provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
        latency: { connectMs: 20, perOperationMs: 4 },
      },
    ],
  });
}

describe('devicebench provision', { timeout: 90_000 }, () => {
  it('provisions one board, verifies it, and finds it in the audit log and its CSV export', async () => {
    const dir = tempDir('one');
    const data = join(dir, 'data');
    const boards = tray(dir, 2);
    const product = await seedProduct(data);
    const planFile = writeJson(dir, 'plan.json', plan);
    const common = ['--sim-boards', boards, '--data-dir', data];

    const provision = await runCli([
      'provision',
      '--product',
      product,
      '--board',
      'C2:8E:10:00:00:01',
      '--plan',
      planFile,
      '--station',
      'line-7',
      '--json',
      ...common,
    ]);
    expect(provision.code, provision.stderr).toBe(0);
    const summary = JSON.parse(provision.stdout);
    expect(summary).toMatchObject({ wanted: 1, verified: 1, interrupted: false });
    expect(summary.boards[0]).toMatchObject({
      address: 'c2:8e:10:00:00:01',
      state: 'verified',
      psdi: 'FW-0001',
    });

    mkdirSync(join(dir, 'out'));
    const csv = join(dir, 'out', 'audit.csv');
    const [verify, exported, search] = await Promise.all([
      runCli(['verify', '--product', product, '--board', 'c2:8e:10:00:00:01', ...common]),
      runCli(['audit', 'export', '--csv', csv, '--product', product, ...common]),
      runCli(['audit', 'search', '--json', '--state', 'verified', ...common]),
    ]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^PASS c2:8e:10:00:00:01 carries PSDI FW-0001 \(record #1\)/m);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = readFileSync(csv, 'utf8').trim().split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('FW-0001');
    expect(rows[1]).toContain('line-7');
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout)).toMatchObject({
      total: 1,
      items: [{ psdi: 'FW-0001', state: 'verified', station: 'line-7', productId: product }],
    });
  });

  it('prints each retry and refusal from the record, the board named first', async () => {
    const dir = tempDir('explain');
    const data = join(dir, 'data');
    const psdiCharacteristic = '8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00';
    const boards = writeJson(dir, 'faulty.json', {
      boards: [
        {
          name: 'CLI Dropper',
          address: 'c2:8e:10:00:00:11',
          advertising: { intervalMs: 50 },
          provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
          faults: { dropLinkDuringWrite: { characteristic: psdiCharacteristic } },
        },
        {
          name: 'CLI Refuser',
          address: 'c2:8e:10:00:00:12',
          advertising: { intervalMs: 50 },
          provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
          faults: {
            refuseAccess: { operation: 'write', characteristic: psdiCharacteristic, code: 3 },
          },
        },
      ],
    });
    const product = await seedProduct(data);
    const planFile = writeJson(dir, 'plan.json', plan);
    const common = ['--sim-boards', boards, '--data-dir', data, '--plan', planFile];
    const dropped = await runCli([
      'provision',
      '--product',
      product,
      '--board',
      'c2:8e:10:00:00:11',
      ...common,
    ]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain('CLI Dropper (c2:8e:10:00:00:11) PSDI FW-0001 verified');
    expect(dropped.stdout).toMatch(
      /write attempt 1 failed: .*link lost.* → attempt 2 after link lost: reconnected and rewrote every value/,
    );
    const refused = await runCli([
      'provision',
      '--product',
      product,
      '--board',
      'c2:8e:10:00:00:12',
      '--json',
      ...common,
    ]);
    expect(refused.code).not.toBe(0);
    const [board] = JSON.parse(refused.stdout).boards;
    expect(board).toMatchObject({ name: 'CLI Refuser', state: 'failed', step: 'write' });
    expect(board.error).toContain('write not permitted');
    expect(board.error).toContain('its GATT matches profile devicebench-v1');
    expect(board.error).not.toContain('firmware derives the PSDI');
    expect(board.history).toHaveLength(1);
    // The refused board's PSDI went back to the pool; the record says so and names the board.
    const log = await openLog(data);
    try {
      const records = (await log.search({})).items;
      expect(records.map((r) => [r.boardName, r.psdi, r.psdiReturned])).toEqual([
        ['CLI Refuser', 'FW-0002', true],
        ['CLI Dropper', 'FW-0001', false],
      ]);
    } finally {
      await log.close();
    }
  });

  it('spends a PSDI only on a board that fits the profile: a batch over the default mixed bench', async () => {
    const dir = tempDir('mixed');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const planFile = writeJson(dir, 'plan.json', plan);
    // The default simulated bench: nRF52 and sensor boards take devicebench-v1, the ESP32 and
    // the starter board derive their PSDI and do not, and the Zephyr Secure board guards its
    // provisioning service at level 4, which an unattended station cannot reach.
    const run = await runCli([
      'provision',
      '--product',
      product,
      '--count',
      '5',
      '--plan',
      planFile,
      '--data-dir',
      data,
      '--json',
    ]);
    // Two of the five verified: without --only-matching that is a failed batch.
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ wanted: 5, verified: 2, skipped: 2 });
    // The secure board failed before anything was reserved for it, saying why in words.
    const secure = summary.boards.find((b: { name: string }) => b.name === 'DB Zephyr Secure');
    expect(secure).toMatchObject({ state: 'failed', recordId: null, psdi: null });
    expect(secure.error).toContain('this station claimed NoInputNoOutput');
    const skipped = summary.boards.filter((b: { state: string }) => b.state === 'skipped');
    expect(skipped.map((b: { name: string }) => b.name).sort()).toEqual([
      'DB ESP32-C3',
      'DB Starter',
    ]);
    for (const board of skipped) {
      expect(board).toMatchObject({
        recordId: null,
        psdi: null,
        matches: ['devicebench-v1-device-psdi', 'platform-starter'],
      });
      expect(board.error).toBe(
        'does not match profile devicebench-v1: its PSDI characteristic (8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00) does not allow write (it allows read); it matches "DeviceBench v1 (firmware derives the PSDI)" (devicebench-v1-device-psdi) or "Platform starter firmware" (platform-starter). Nothing was reserved or written.',
      );
    }
    expect(run.stderr).toContain(
      '2 of 5 boards verified; 2 boards of another profile skipped, nothing reserved for them',
    );
    // PSDIs spent == boards verified: one record per verified board, numbers in a row.
    const log = await openLog(data);
    try {
      const records = (await log.search({})).items;
      expect(records.map((r) => [r.psdi, r.state]).sort()).toEqual([
        ['FW-0001', 'verified'],
        ['FW-0002', 'verified'],
      ]);
    } finally {
      await log.close();
    }
  });

  it('runs a batch, and shares the data folder with the app one after the other', async () => {
    const dir = tempDir('batch');
    const data = join(dir, 'data');
    const boards = tray(dir, 4);
    const product = await seedProduct(data);
    const common = ['--sim-boards', boards, '--data-dir', data];

    const batch = await runCli(
      [
        'provision',
        '--product',
        product,
        '--count',
        '3',
        '--concurrency',
        '2',
        '--plan',
        writeJson(dir, 'plan.json', plan),
        ...common,
      ],
      { DEVICEBENCH_STATION: 'line-9' },
    );
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stdout).toContain('3 of 3 boards verified');
    expect(batch.stdout.match(/^PASS /gm)).toHaveLength(3);

    // The app opens the same folder: it sees the product and the records, and saves a plan.
    const app = await startApp({
      dataDir: data,
      credentials: new MemoryCredentialStore(),
      keychain: { kind: 'memory', reason: 'test' },
      version: '0.0.0-test',
      webhookPort: 0,
    });
    try {
      const records = await app.invoke('audit:search', { productId: product });
      expect(records).toMatchObject({ ok: true, value: { total: 3 } });
      const stations = (records as { value: { items: { station: string }[] } }).value.items;
      expect(stations.map((r) => r.station)).toEqual(['line-9', 'line-9', 'line-9']);
      const products = await app.invoke('things:listTrialProducts', {});
      expect(JSON.stringify(products)).toContain(product);
      const saved = await app.invoke('provisioning:savePlan', {
        productId: product,
        profileId: 'devicebench-v1',
        psdi: { kind: 'sequence', prefix: 'APP-', width: 2 },
      });
      expect(saved.ok).toBe(true);
    } finally {
      await app.close();
    }

    // Back on the command line, without --plan: the app's plan, and only the board still blank.
    const next = await runCli([
      'provision',
      '--product',
      product,
      '--count',
      '1',
      '--json',
      ...common,
    ]);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).boards).toMatchObject([
      { address: 'c2:8e:10:00:00:04', state: 'verified', psdi: 'APP-01' },
    ]);
    const store = await openLog(data);
    try {
      const all = (await store.search({ productId: product, limit: 500 })).items;
      expect(all.map((r) => r.psdi).sort()).toEqual(['APP-01', 'FW-0001', 'FW-0002', 'FW-0003']);
    } finally {
      await store.close();
    }
  });

  it('stops a batch on Ctrl-C with exit 130: every record settled, no PSDI held twice, flash matches the log', async () => {
    const dir = tempDir('sigint');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const child = startCli([
      'provision',
      '--product',
      product,
      '--count',
      '20',
      '--concurrency',
      '2',
      '--plan',
      writeJson(dir, 'plan.json', plan),
      '--sim-boards',
      tray(dir, 20),
      '--data-dir',
      data,
    ]);
    const result = finished(child);
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stdout?.on('data', (d: Buffer) => {
        seen += d.toString();
        if (/^PASS /m.test(seen)) resolve();
      });
    });
    child.kill('SIGINT');
    const { code, stdout, stderr } = await result;

    expect(code, stderr).toBe(130);
    expect(stdout).toContain('(stopped by Ctrl-C)');
    const store = await openLog(data);
    const records = (await store.search({ productId: product, limit: 500 })).items;
    await store.close();
    const verified = records.filter((r) => r.state === 'verified');
    expect(verified.length).toBeGreaterThan(0);
    expect(verified.length).toBeLessThan(20);
    expect(records.filter((r) => r.state === 'reserved' || r.state === 'written')).toEqual([]);
    const held = records.filter((r) => r.psdiHeld).map((r) => r.psdi);
    expect(new Set(held).size).toBe(held.length);
    expect(stdout.match(/^PASS /gm)?.length).toBe(verified.length);

    // What the boards' flash says matches the log: each committed board has its verified record.
    const flash = JSON.parse(readFileSync(join(data, 'sim-bench-state.json'), 'utf8')) as {
      boards: Record<string, { psdi: string }>;
    };
    const committed = Object.entries(flash.boards)
      .map(([id, b]) => `${id}=${b.psdi}`)
      .sort();
    expect(committed).toEqual(verified.map((r) => `${r.boardId}=${r.psdi}`).sort());
  });

  it('refuses bad flags, files and environment variables with exit 2 and an unusable environment with exit 3, writing nothing', async () => {
    const dir = tempDir('bad');
    const data = join(dir, 'data');
    const good = writeJson(dir, 'plan.json', plan);
    const badPlan = writeJson(dir, 'bad-plan.json', { psdi: { kind: 'counter' } });
    const base = ['provision', '--product', '3000000001', '--data-dir', data];
    const cases: [string[], NodeJS.ProcessEnv, number, RegExp][] = [
      [[...base, '--count', '0', '--plan', good], {}, 2, /--count: must be at least 1/],
      [[...base, '--count', 'two', '--plan', good], {}, 2, /--count: must be a number/],
      [[...base, '--count', '1', '--plan', badPlan], {}, 2, /bad-plan\.json: psdi/],
      [
        [...base, '--count', '1', '--plan', good, '--profile', 'no-such'],
        {},
        2,
        /--profile: no profile "no-such"/,
      ],
      [[...base, '--count', '1'], {}, 2, /--plan: is required/],
      [
        [...base, '--count', '1', '--plan', good, '--env', 'nope'],
        {},
        2,
        /--env: no environment "nope"/,
      ],
      [
        [...base, '--count', '1', '--plan', good],
        { DEVICEBENCH_BASE_URL: 'http://127.0.0.1:9' },
        2,
        /DEVICEBENCH_CHANNEL_ID/,
      ],
      [
        [...base, '--count', '1', '--plan', good, '--adapter', 'hci0'],
        {},
        3,
        /no usable Bluetooth adapter \(hci0: noAdapter/,
      ],
      [
        [...base, '--count', '1', '--plan', good, '--bench', 'hardware'],
        {},
        2,
        /--bench: was replaced by --adapter <spec>: --adapter sim/,
      ],
      [
        [...base, '--count', '1', '--plan', good, '--adapter', 'sim', '--adapter', 'serial:'],
        {},
        2,
        /--adapter: serial:: the serial port is empty/,
      ],
      [
        [...base, '--count', '1', '--plan', good],
        { DEVICEBENCH_ADAPTER: 'sim,,sim' },
        2,
        /DEVICEBENCH_ADAPTER: the adapter is empty/,
      ],
    ];
    const results = await Promise.all(cases.map(([args, env]) => runCli(args, env)));
    results.forEach((result, i) => {
      const [args, , code, message] = cases[i] as (typeof cases)[number];
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(code);
      expect(result.stderr).toMatch(message);
    });
    expect(existsSync(data) ? readdirSync(data) : []).toEqual([]);

    // A platform that does not answer is the environment's problem: exit 3.
    const unreachable = await runCli([...base, '--count', '1', '--plan', good], {
      DEVICEBENCH_BASE_URL: 'http://127.0.0.1:9',
      DEVICEBENCH_CHANNEL_ID: '2000000001',
      DEVICEBENCH_CHANNEL_TOKEN: 'token',
    });
    expect(unreachable.code, unreachable.stderr).toBe(3);
    expect(unreachable.stderr).toContain('127.0.0.1:9');
  });
  it('reconciles a record a killed run left reserved: the board is blank, so its PSDI goes back', async () => {
    const dir = tempDir('reconcile');
    const data = join(dir, 'data');
    const boards = tray(dir, 1);
    mkdirSync(data, { recursive: true });
    const store = await openLog(data);
    const reserved = await store.reserve({
      product: {
        id: '3000000001',
        name: 'CLI test product',
        serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
        psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
        psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
      },
      board: { id: 'c28e10000001', address: 'c2:8e:10:00:00:01' },
      profileId: 'devicebench-v1',
      psdiSource: 'tool',
      psdi: 'FW-0042',
    });
    await store.close();

    const result = await runCli([
      'audit',
      'reconcile',
      '--json',
      '--sim-boards',
      boards,
      '--data-dir',
      data,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).outcomes).toMatchObject([
      { recordId: reserved.id, action: 'released', state: 'released' },
    ]);
    const after = await openLog(data);
    expect(await after.get(reserved.id)).toMatchObject({ state: 'released', psdiHeld: false });
    await after.close();
  });

  it('reconciles beside another reconcile: a record the other settled is said, not failed, and both exit 0', async () => {
    const dir = tempDir('reconcile-twice');
    const data = join(dir, 'data');
    const count = 6;
    const boards = tray(dir, count);
    mkdirSync(data, { recursive: true });
    const store = await openLog(data);
    const ids: number[] = [];
    for (let n = 1; n <= count; n++)
      ids.push(
        (
          await store.reserve({
            product: {
              id: '3000000001',
              name: 'CLI test product',
              serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
              psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
              psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
            },
            board: { id: `c28e1000000${n}`, address: `c2:8e:10:00:00:0${n}` },
            profileId: 'devicebench-v1',
            psdiSource: 'tool',
            psdi: `FW-00${40 + n}`,
          })
        ).id,
      );
    await store.close();

    const args = ['audit', 'reconcile', '--json', '--sim-boards', boards, '--data-dir', data];
    const runs = await Promise.all([runCli(args), runCli(args)]);
    const outcomes = runs.map((run) => {
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout).outcomes as {
        recordId: number;
        action: string;
        message: string;
      }[];
    });
    // Each record released once, by one of the two; the other, where it came to it, said so.
    const released = outcomes.flat().filter((o) => o.action === 'released');
    expect(released.map((o) => o.recordId).sort()).toEqual(ids);
    for (const o of outcomes.flat().filter((o) => o.action !== 'released'))
      expect(o).toMatchObject({
        action: 'settled',
        message: expect.stringMatching(
          new RegExp(`^record #${o.recordId}: already released at \\d\\d:\\d\\d — nothing to do$`),
        ),
      });
    const after = await openLog(data);
    for (const id of ids) expect(await after.get(id)).toMatchObject({ state: 'released' });
    await after.close();
  });
});
