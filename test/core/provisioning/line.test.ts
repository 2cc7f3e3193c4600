// A production line on one PostgreSQL server of its own: four station processes provisioning at
// once, a station SIGKILLed mid-batch and reconciled at another, and the database stopped hard
// and restarted under a running batch. Whatever happens, no PSDI is held twice and every board
// that carries a PSDI has its record.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAuditStore } from '../../../src/core/audit/open-store';
import type { AuditStore } from '../../../src/core/audit/store';
import { createSimulatedCentral } from '../../../src/core/ble/radio/sim-central';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { startBatch } from '../../../src/core/provisioning/batch';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { needsReconciling, reconcile } from '../../../src/core/provisioning/reconcile';
import { bundled } from '../../helpers/bundled';
import { useOwnPostgres } from '../../helpers/postgres';
import { duplicateHeldPsdis, FAST, PRODUCT, V1 } from './fixture';
import { stationTray, type StationOptions } from './line-fixture';

const postgres = useOwnPostgres();
const script = bundled('station-child');

let dir: string;
let url: string;
const children: ChildProcess[] = [];
const stores: AuditStore[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'devicebench-line-'));
  url = await postgres.database();
}, 30_000);
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

function station(options: StationOptions): { child: ChildProcess; done: Promise<string> } {
  const child = spawn(process.execPath, [script, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<string>((resolve, reject) =>
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`station exited ${code ?? signal}: ${stderr}`)),
    ),
  );
  done.catch(() => undefined);
  return { child, done };
}

async function open(name: string): Promise<AuditStore> {
  const store = await openAuditStore({ location: { kind: 'postgres', url }, station: name });
  stores.push(store);
  return store;
}

async function query<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('a line of stations on one PostgreSQL', () => {
  it('provisions 4 × 50 boards at concurrency 4: 200 verified, 200 distinct PSDIs, one counter', async () => {
    // The schema exists before the stations start, as on a line that has been set up.
    await open('setup');
    const runs = [0, 1, 2, 3].map((index) =>
      station({ url, station: `station-${index}`, index, boards: 50 }),
    );
    const summaries = (await Promise.all(runs.map((r) => r.done))).map(
      (out) => JSON.parse(out) as { ok: number; failed: number },
    );
    expect(summaries).toEqual([0, 1, 2, 3].map(() => ({ ok: 50, failed: 0, skipped: 0 })));

    const rows = await query<{ station: string; psdi: string; state: string }>(
      'SELECT station, psdi, state FROM provisioning_records',
    );
    expect(rows).toHaveLength(200);
    expect(rows.every((r) => r.state === 'verified')).toBe(true);
    expect(new Set(rows.map((r) => r.psdi)).size).toBe(200);
    for (let i = 0; i < 4; i++)
      expect(rows.filter((r) => r.station === `station-${i}`)).toHaveLength(50);
    // One series for the whole line: numbers 1..200, and the counter is past the last one.
    expect(rows.map((r) => r.psdi).sort()).toEqual(
      Array.from({ length: 200 }, (_, i) => `LINE-${String(i + 1).padStart(5, '0')}`),
    );
    expect(await query('SELECT key, value FROM psdi_counters')).toEqual([
      { key: 'sequence:LINE-', value: '201' },
    ]);
  }, 240_000);

  it('lists a SIGKILLed station’s unfinished records at another station, which reconciles them', async () => {
    const viewer = await open('station-b');
    const stateFile = join(dir, 'bench-a.json');
    const killed: StationOptions = {
      url,
      station: 'station-a',
      index: 0,
      boards: 12,
      stateFile,
      perOperationMs: 40,
    };
    const { child } = station(killed);
    const deadline = Date.now() + 60_000;
    // Killed once a few boards are done and others are between reserve and verify.
    for (;;) {
      const page = await viewer.search({ station: 'station-a', limit: 50 });
      const verified = page.items.filter((r) => r.state === 'verified').length;
      if (verified >= 1 && page.items.some((r) => r.state === 'written' || r.state === 'reserved'))
        break;
      if (Date.now() > deadline) throw new Error('station-a never got mid-batch');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const unfinished = await viewer.listUnfinished();
    expect(unfinished.length).toBeGreaterThan(0);
    expect(unfinished.every((r) => r.station === 'station-a')).toBe(true);

    // The boards move to station B: the same flash, another process's bench.
    const bench = new SimulatedBench({ seed: 9, stateFile });
    for (const spec of stationTray(killed)) bench.addBoard(spec, 'test');
    const central = createSimulatedCentral(bench);
    try {
      for (const record of unfinished) {
        const outcome = await reconcile({
          central,
          store: viewer,
          profile: V1,
          record,
          whenBlank: 'release',
          timing: FAST,
        });
        // `settled`: the killed station's last commit landed after the listing (issue 44).
        expect(['verified', 'released', 'failed', 'settled']).toContain(outcome.action);
        const carried = bench.boards().find((b) => b.address === record.boardAddress)?.provisioning
          ?.committed?.psdi;
        if (outcome.record.state === 'verified') expect(carried).toBe(record.psdi);
        else expect(carried).toBeUndefined();
      }
      expect((await viewer.listUnfinished()).filter(needsReconciling)).toEqual([]);
      expect(await duplicateHeldPsdis(viewer)).toEqual([]);
      // Every board that carries a PSDI has the verified record for it.
      const verified = new Map(
        (await viewer.search({ states: ['verified'], limit: 500 })).items.map((r) => [
          r.boardAddress,
          r.psdi,
        ]),
      );
      for (const board of bench.boards())
        expect(verified.get(board.address), board.address).toBe(
          board.provisioning?.committed?.psdi,
        );
    } finally {
      await central.close();
      bench.close();
    }
  }, 120_000);

  it('holds a batch while PostgreSQL is stopped hard and resumes it after the restart', async () => {
    const store = await openAuditStore({
      location: { kind: 'postgres', url },
      station: 'station-r',
      retryForMs: 60_000,
      timeoutMs: 2_000,
    });
    stores.push(store);
    const bench = new SimulatedBench({ seed: 5 });
    const options: StationOptions = {
      url,
      station: 'station-r',
      index: 5,
      boards: 16,
      perOperationMs: 40,
    };
    for (const spec of stationTray(options)) bench.addBoard(spec, 'test');
    const central = createSimulatedCentral(bench);
    const held: string[] = [];
    // The fifth reservation is sent only once the server is down, so the outage always lands
    // mid-batch: boards before it are in flight, boards after it must wait for the restart.
    let reservations = 0;
    let restarted: Promise<void> | undefined;
    const outage = (): Promise<void> => {
      let down!: () => void;
      const stopped = new Promise<void>((resolve) => (down = resolve));
      restarted = (async () => {
        await postgres.server().stop('immediate');
        down();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await postgres.server().start();
      })();
      return stopped;
    };
    const timed = new Proxy(store, {
      get(target, prop) {
        if (prop === 'reserve')
          return async (input: Parameters<AuditStore['reserve']>[0]) => {
            if (++reservations === 5) await outage();
            return target.reserve(input);
          };
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    try {
      const run = startBatch({
        central,
        store: timed,
        profile: V1,
        product: PRODUCT,
        psdi: createPsdiAllocator({ kind: 'sequence', prefix: 'R-', width: 4 }, 20),
        timing: FAST,
        concurrency: 4,
        idleMs: 2_000,
        maxBoards: 16,
        storeRetryMs: 200,
        onEvent: (event) => {
          if (event.type === 'store' && !event.available) held.push(event.error ?? '');
        },
      });
      const summary = await run.done;
      await restarted;
      expect(held.length).toBeGreaterThan(0);
      expect(held[0]).toMatch(/unreachable/);

      // Each board ends correct: verified boards carry their record's PSDI; a board the outage
      // caught mid-way has an unfinished record that reconcile settles.
      for (const record of await store.listUnfinished()) {
        const outcome = await reconcile({
          central,
          store,
          profile: V1,
          record,
          whenBlank: 'release',
          timing: FAST,
        });
        expect(['verified', 'released', 'failed']).toContain(outcome.action);
      }
      expect(summary.ok + summary.failed).toBeGreaterThanOrEqual(12);
      const records = (await store.search({ limit: 500 })).items;
      expect(await duplicateHeldPsdis(store)).toEqual([]);
      const verifiedRecords = records.filter((r) => r.state === 'verified');
      expect(new Set(verifiedRecords.map((r) => r.psdi)).size).toBe(verifiedRecords.length);
      for (const board of bench.boards()) {
        const carries = board.provisioning?.committed?.psdi;
        const record = verifiedRecords.find((r) => r.boardAddress === board.address);
        expect(record?.psdi, board.address).toBe(carries);
      }
    } finally {
      await central.close();
      bench.close();
    }
  }, 180_000);
});
