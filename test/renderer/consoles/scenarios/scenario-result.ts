import type { ScenarioResult } from '../../../../src/core/platform/things/scenario-result';

/** A scenario result with the fields a test does not care about filled in. */
export function result(over: Partial<ScenarioResult> & Pick<ScenarioResult, 'scenarioId'>) {
  return {
    revision: 4,
    startTime: 0,
    endTime: 0,
    resultCode: 'SUCCESS',
    actionResults: [],
    ...over,
  } satisfies ScenarioResult;
}
