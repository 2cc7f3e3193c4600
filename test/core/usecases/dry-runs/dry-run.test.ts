// The dry-run use case on the simulated bench with a real SQLite run log: refused before the log
// or the radio when it can never end; a batch the log refuses is reported and the run carries on,
// its later batches and its finish in the log; a result not delivered is reported and kept.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteScenarioRunLog } from '../../../../src/core/audit/scenario-runs';
import type { RunnableSet, TimelineEvent } from '../../../../src/core/scenario/schema';
import {
  DryRunPlan,
  InfeasibleRun,
  type DeliverResult,
} from '../../../../src/core/usecases/dry-runs/dry-run';
import { rig, sensorBoard, SENSOR_SERVICE, LED, type Rig } from '../../ble/fixture';
import { REFUSAL, refuseFirstScenarioEnd } from '../../../helpers/refused-log-write';

let r: Rig | undefined;
let log: SqliteScenarioRunLog | undefined;
afterEach(async () => {
  await log?.close();
  await r?.close();
  log = undefined;
  r = undefined;
});

const blink: RunnableSet = {
  autoClose: true,
  suppressionInterval: 100,
  revision: 0,
  scenarios: [
    {
      id: 'blink',
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: SENSOR_SERVICE, characteristicUuid: LED, data: 'AQ==' },
      ],
    },
  ],
};

const record = {
  productId: 'p1',
  productName: 'Lamp',
  boardName: 'Test Sensor',
  bench: 'sim',
  setSource: 'draft' as const,
};

/** A fresh run log, and its file for planting a refusal. */
function runLog(): { log: SqliteScenarioRunLog; file: string } {
  const file = join(mkdtempSync(join(tmpdir(), 'devicebench-dry-run-')), 'audit.sqlite');
  log = new SqliteScenarioRunLog({ file, station: 'bench-1' });
  return { log, file };
}

/** Runs `blink` for two connections, collecting what the use case reports. */
async function twoCycles(runLog: SqliteScenarioRunLog, deliver?: DeliverResult) {
  r = rig([sensorBoard()]);
  const { id: deviceId } = await r.find({ name: 'Test Sensor' });
  const events: TimelineEvent[] = [];
  const problems: string[] = [];
  const run = await DryRunPlan.check({ set: blink, cycles: 2 }).start({
    central: r.central,
    deviceId,
    log: runLog,
    record,
    deliver,
    clock: r.clock,
    report: { event: (e) => events.push(e), problem: (p) => problems.push(p) },
  });
  const end = await r.drive(run.finished);
  const kept = await runLog.read(run.summary.id);
  return { end, events, problems, kept: kept! };
}

const scenarioEnds = (events: readonly TimelineEvent[]) =>
  events.flatMap((e) => (e.kind === 'scenario-end' ? [e.run] : []));

describe('the dry-run use case', () => {
  it('refuses a count of connections the set can never reach, before the log or the radio', () => {
    let refused: unknown;
    try {
      DryRunPlan.check({ set: { ...blink, autoClose: false }, cycles: 2 });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(InfeasibleRun);
    expect(refused).toMatchObject({ field: 'cycles', message: /can never reach 2 connections/ });
  });

  it('reports a batch the log refuses and carries on: later batches and the finish reach the log', async () => {
    const { log: refusing, file } = runLog();
    refuseFirstScenarioEnd(file);
    const { end, events, problems, kept } = await twoCycles(refusing);

    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^\d+ timeline events could not be written to the audit log: /);
    expect(problems[0]).toContain(REFUSAL);
    expect(events).toContainEqual(expect.objectContaining({ kind: 'error', message: problems[0] }));
    expect(scenarioEnds(events)).toEqual([1, 2]);
    expect(end.outcome).toMatchObject({ reason: 'cycles', results: [{}, {}] });
    // The run is finished in the log, with what reached it: run 2's batch and the stop.
    expect(end.run).toMatchObject({ status: 'finished', stopReason: 'cycles', results: 1 });
    expect(kept.run).toEqual(end.run);
    expect(scenarioEnds(kept.events)).toEqual([2]);
    expect(kept.events.at(-1)).toMatchObject({ kind: 'stopped', reason: 'cycles' });
  });

  it('writes every batch of a run the log takes, and finishes it', async () => {
    const { log: taking } = runLog();
    const { end, events, problems, kept } = await twoCycles(taking);
    expect(problems).toEqual([]);
    expect(end.run).toMatchObject({ status: 'finished', stopReason: 'cycles', results: 2 });
    expect(kept.events).toEqual(events);
  });

  it('reports a result not delivered, keeps the report in the log, and delivers the rest', async () => {
    const { log: taking } = runLog();
    const delivered: string[] = [];
    let calls = 0;
    const deliver: DeliverResult = async (result) => {
      calls += 1;
      if (calls === 1) throw new Error('bot answered 502');
      delivered.push(result.scenarioId);
      return undefined;
    };
    const { end, problems, kept } = await twoCycles(taking, deliver);
    expect(problems).toEqual(['result of blink not delivered: bot answered 502']);
    expect(delivered).toEqual(['blink']);
    expect(end.run).toMatchObject({ status: 'finished', results: 2 });
    expect(kept.events).toContainEqual(
      expect.objectContaining({ kind: 'error', message: problems[0] }),
    );
  });
});
