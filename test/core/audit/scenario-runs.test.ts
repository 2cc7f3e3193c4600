// Dry runs in the audit log: events kept in order with the results counted, the set kept as it
// ran, newest first per product, and a run the app never finished marked interrupted.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioRunLog, type NewRun } from '../../../src/core/audit/scenario-runs';
import type { ScenarioResult, TimelineEvent } from '../../../src/core/scenario/schema';

const run = (productId = 'p1'): NewRun => ({
  productId,
  productName: 'Lamp',
  deviceId: 'd63a41002001',
  boardName: 'DB Sensor',
  bench: 'simulated',
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

describe('scenario runs in the audit log', () => {
  it('keeps events in order across batches and counts results and failures', () => {
    let now = 1_000;
    const log = new ScenarioRunLog({ file: ':memory:', station: 'bench-1', now: () => now });
    const started = log.start(run());
    expect(started).toMatchObject({ status: 'running', station: 'bench-1', results: 0 });
    const first: TimelineEvent[] = [{ kind: 'connecting', at: 1, cycle: 1 }, end(1, 'SUCCESS')];
    const second: TimelineEvent[] = [end(2, 'GATT_ERROR'), end(3, 'BLE_CONNECTION_ERROR')];
    log.append(started.id, first);
    log.append(started.id, second);
    now = 2_000;
    const finished = log.finish(started.id, 'cycles');
    expect(finished).toMatchObject({
      status: 'finished',
      stopReason: 'cycles',
      endedAt: 2_000,
      results: 3,
      failures: 2,
    });
    const read = log.read(started.id);
    expect(read?.events).toEqual([...first, ...second]);
    expect(read?.set).toEqual(run().set);
    log.close();
  });

  it('lists newest first per product, and marks a run left running as interrupted', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scenario-runs-')), 'audit.sqlite');
    const log = new ScenarioRunLog({ file, now: () => 5 });
    const a = log.start(run('p1'));
    log.finish(a.id, 'operator');
    const b = log.start(run('p1'));
    log.start(run('p2'));
    expect(log.list({ productId: 'p1' }).items.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(log.list().total).toBe(3);
    log.close();

    // The app ended while b ran: on the next open it is interrupted, a is untouched.
    const reopened = new ScenarioRunLog({ file, now: () => 9 });
    expect(reopened.get(b.id)).toMatchObject({ status: 'interrupted', endedAt: 9 });
    expect(reopened.get(a.id)).toMatchObject({ status: 'finished', endedAt: 5 });
    reopened.close();
  });
});
