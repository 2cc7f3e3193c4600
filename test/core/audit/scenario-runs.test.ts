// Dry runs in the audit log, on SQLite and on PostgreSQL: events kept in order with the results
// counted, the set kept as it ran, newest first per product, and a run the station never
// finished marked interrupted — on a line, only that station's.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewRun } from '../../../src/core/audit/scenario-runs';
import type { TimelineEvent } from '../../../src/core/scenario/schema';
import type { ScenarioResult } from '../../../src/core/platform/things/scenario-result';
import { usePostgres } from '../../helpers/postgres';
import { ENGINES, tempStore, type TempStore } from './fixture';

const run = (productId = 'p1'): NewRun => ({
  productId,
  productName: 'Lamp',
  deviceId: 'd63a41002001',
  boardName: 'DB Sensor',
  bench: 'sim',
  setSource: 'draft',
  set: {
    autoClose: true,
    suppressionInterval: 100,
    revision: 0,
    scenarios: [{ id: 'draft-1', trigger: { type: 'IMMEDIATE' }, actions: [] }],
  },
});

const result = (resultCode: ScenarioResult['resultCode'], at: number): ScenarioResult => ({
  scenarioId: 'draft-1',
  revision: 0,
  startTime: at,
  endTime: at + 5,
  resultCode,
  actionResults: [],
});

const end = (n: number, code: ScenarioResult['resultCode']): TimelineEvent => ({
  kind: 'scenario-end',
  at: n + 5,
  run: n,
  scenario: 0,
  result: result(code, n),
});

const postgres = usePostgres();

describe.each(ENGINES)('scenario runs in the audit log on %s', (engine) => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore(engine, postgres);
  }, 30_000);
  afterEach(() => t.cleanup());

  it('keeps events in order across batches and counts results and failures', async () => {
    t.now.value = 1_000;
    const log = await t.store.scenarioRuns();
    const started = await log.start(run());
    expect(started).toMatchObject({ status: 'running', station: 'bench-1', results: 0 });
    const first: TimelineEvent[] = [{ kind: 'connecting', at: 1, cycle: 1 }, end(1, 'SUCCESS')];
    const second: TimelineEvent[] = [end(2, 'GATT_ERROR'), end(3, 'BLE_CONNECTION_ERROR')];
    await log.append(started.id, first);
    await log.append(started.id, second);
    t.now.value = 2_000;
    const finished = await log.finish(started.id, 'cycles');
    expect(finished).toMatchObject({
      status: 'finished',
      stopReason: 'cycles',
      endedAt: 2_000,
      results: 3,
      failures: 2,
    });
    const read = await log.read(started.id);
    expect(read?.events).toEqual([...first, ...second]);
    expect(read?.set).toEqual(run().set);
  });

  it('lists newest first per product, and marks this station’s run left running as interrupted', async () => {
    t.now.value = 5;
    const log = await t.store.scenarioRuns();
    const a = await log.start(run('p1'));
    await log.finish(a.id, 'operator');
    const b = await log.start(run('p1'));
    await log.start(run('p2'));
    expect((await log.list({ productId: 'p1' })).items.map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await log.list()).total).toBe(3);
    const elsewhere = await (await t.open('bench-2')).scenarioRuns();
    const other = await elsewhere.start(run('p3'));

    // This station ended while b ran: on its next open b is interrupted; a and the other
    // station's run are untouched.
    t.now.value = 9;
    const reopened = await (await t.reopen()).scenarioRuns();
    expect(await reopened.get(b.id)).toMatchObject({ status: 'interrupted', endedAt: 9 });
    expect(await reopened.get(a.id)).toMatchObject({ status: 'finished', endedAt: 5 });
    expect(await reopened.get(other.id)).toMatchObject({ status: 'running' });
  });
});
