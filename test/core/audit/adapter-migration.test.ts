// A log from before adapter specs opens on either engine with its dry runs kept: `simulated`
// reads `sim`, `hardware` reads `native` (the path that claims no confirmed write), the old
// CHECK is gone so a run over `sim,sim` is kept, and a record keeps the adapter its board was
// heard through.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewRun } from '../../../src/core/audit/scenario-runs';
import { SCENARIO_RUN_COLUMNS } from '../../../src/core/audit/schema';
import { usePostgres } from '../../helpers/postgres';
import { ENGINES, reserveInput, tempStore, type TempStore } from './fixture';

const run = (bench: string): NewRun => ({
  productId: 'p1',
  productName: 'Lamp',
  deviceId: 'd63a41002001',
  boardName: 'DB Sensor',
  bench,
  setSource: 'draft',
  set: {
    autoClose: true,
    suppressionInterval: 100,
    revision: 0,
    scenarios: [{ id: 'draft-1', trigger: { type: 'IMMEDIATE' }, actions: [] }],
  },
});

const OLD_CHECK = "bench IN ('simulated', 'hardware')";
const postgres = usePostgres();

/** Takes the log back to the schema it had before adapter specs (and what came after them), keeping its rows. */
async function makeOld(t: TempStore): Promise<void> {
  await t.store.close();
  if (t.location.kind === 'local') {
    const db = new Database(t.location.file);
    db.pragma('foreign_keys = OFF');
    db.exec(`
ALTER TABLE scenario_runs RENAME TO scenario_runs_new;
CREATE TABLE scenario_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
${SCENARIO_RUN_COLUMNS.replace('bench TEXT NOT NULL,', `bench TEXT NOT NULL CHECK (${OLD_CHECK}),`)});
INSERT INTO scenario_runs SELECT * FROM scenario_runs_new;
DROP TABLE scenario_runs_new;
ALTER TABLE provisioning_records DROP COLUMN adapter;
ALTER TABLE provisioning_records DROP COLUMN image_hash;
DROP INDEX provisioning_records_address;
PRAGMA user_version = 4;
`);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: t.location.url });
  await client.connect();
  await client.query(`
ALTER TABLE scenario_runs ADD CONSTRAINT scenario_runs_bench_check CHECK (${OLD_CHECK});
ALTER TABLE provisioning_records DROP COLUMN adapter;
ALTER TABLE provisioning_records DROP COLUMN image_hash;
DROP INDEX provisioning_records_address;
DELETE FROM devicebench_migrations WHERE version >= 5;`);
  await client.end();
}

describe.each(ENGINES)('a log from before adapter specs, on %s', (engine) => {
  let t: TempStore;
  afterEach(() => t.cleanup());

  it('keeps its dry runs with their old benches as specs, and records adapters', async () => {
    t = await tempStore(engine, postgres);
    const log = await t.store.scenarioRuns();
    const simulated = await log.start(run('simulated'));
    const hardware = await log.start(run('hardware'));
    await log.append(hardware.id, [{ kind: 'connecting', at: 1, cycle: 1 }]);
    await log.finish(hardware.id, 'operator');
    const earlier = await t.store.reserve(reserveInput(2, 'DB-0002'));
    await makeOld(t);

    const store = await t.reopen();
    const runs = await store.scenarioRuns();
    expect((await runs.get(simulated.id))?.bench).toBe('sim');
    const old = await runs.read(hardware.id);
    expect(old?.run.bench).toBe('native');
    expect(old?.events).toEqual([{ kind: 'connecting', at: 1, cycle: 1 }]);
    const next = await runs.start(run('sim,serial:/dev/ttyACM0'));
    expect((await runs.get(next.id))?.bench).toBe('sim,serial:/dev/ttyACM0');

    const input = reserveInput(1, 'DB-0001');
    const record = await store.reserve({ ...input, board: { ...input.board, adapter: 'hci1' } });
    expect(record.adapter).toBe('hci1');
    expect((await store.get(earlier.id))?.adapter).toBeNull();
  }, 30_000);
});
