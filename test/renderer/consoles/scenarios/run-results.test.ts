import { describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../../../src/core/scenario/schema';
import type { ScenarioResult } from '../../../../src/core/platform/things/scenario-result';
import { countResults } from '../../../../src/core/scenario/result-counts';
import { resultRows, runExport } from '../../../../src/renderer/consoles/scenarios/run-results';
import { result } from './scenario-result';

describe('result rows', () => {
  it('give each result the bytes its actions wrote or read, a refused write included', () => {
    const action = (run: number, index: number, over: Partial<TimelineEvent>) =>
      ({
        kind: 'action',
        run,
        scenario: 0,
        action: index,
        type: 'GATT_WRITE',
        startedAt: 0,
        endedAt: 0,
        ...over,
      }) as TimelineEvent;
    const end = (run: number, r: ScenarioResult) =>
      ({ kind: 'scenario-end', at: 0, run, scenario: 0, result: r }) as TimelineEvent;
    const ok = result({ scenarioId: 'a', actionResults: [{ type: 'void' }] });
    const refused = result({ scenarioId: 'a', resultCode: 'GATT_ERROR' });
    const rows = resultRows([
      action(1, 0, { data: 'AQ==' }),
      action(2, 0, { data: 'Ag==', error: 'ATT error 0x03' }),
      action(1, 1, { type: 'GATT_READ', data: 'AA==' }),
      end(1, ok),
      end(2, refused),
    ]);
    expect(rows).toEqual([
      {
        result: ok,
        actions: [
          { type: 'GATT_WRITE', data: 'AQ==' },
          { type: 'GATT_READ', data: 'AA==' },
        ],
      },
      { result: refused, actions: [{ type: 'GATT_WRITE', data: 'Ag==', error: 'ATT error 0x03' }] },
    ]);
    // The record's "results · failed" is counted from these very rows.
    expect(countResults(rows.map((r) => r.result))).toEqual({ results: 2, failures: 1 });
    expect(countResults([])).toEqual({ results: 0, failures: 0 });
  });
});

describe('a run export', () => {
  it('holds the metadata, every event and the results in order', () => {
    const first = result({ scenarioId: 'a', startTime: 1, endTime: 2 });
    const second = result({ scenarioId: 'b', resultCode: 'RUNTIME_ERROR', startTime: 3 });
    const events: TimelineEvent[] = [
      { kind: 'scenario-start', at: 1, run: 1, scenario: 0, scenarioId: 'a', trigger: 'IMMEDIATE' },
      { kind: 'scenario-end', at: 2, run: 1, scenario: 0, result: first },
      { kind: 'scenario-start', at: 3, run: 2, scenario: 1, scenarioId: 'b', trigger: 'IMMEDIATE' },
      { kind: 'scenario-end', at: 4, run: 2, scenario: 1, result: second },
      { kind: 'stopped', at: 5, reason: 'cycles' },
    ];
    const exported = runExport({ deviceId: 'sim-1', revision: 4 }, events);
    expect(exported).toEqual({
      deviceId: 'sim-1',
      revision: 4,
      events,
      results: [first, second],
    });
    expect(exported.events).not.toBe(events);
  });
});
