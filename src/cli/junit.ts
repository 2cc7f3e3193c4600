// The JUnit report of a dry run (`scenario run --junit`): one test case per scenario run; a
// result other than SUCCESS fails it with the action, the characteristic, the bytes and what
// the board answered (an ATT error names its code). A run in which no scenario ran at all
// (the board never connected) is one failed case, so CI never reads "0 tests" as a pass.
import builder from 'junit-report-builder';
import type { TimelineEvent } from '../core/scenario/schema';
import type { ScenarioResult } from '../core/platform/things/scenario-result';
import { failureMessage } from '../core/usecases/dry-runs/failure-message';

type ActionEvent = Extract<TimelineEvent, { kind: 'action' }>;

export interface ReportedRun {
  run: number;
  result: ScenarioResult;
  /** The action that failed, from the timeline. */
  failedAction?: ActionEvent;
  /** Writes that resolved on an adapter that cannot see a refusal (`native`). */
  unconfirmedWrites?: number;
}

export interface JunitInput {
  suite: string;
  board: string;
  runs: ReportedRun[];
  /** Why no scenario ran, when none did. */
  noRun?: string;
}

export function junitReport(input: JunitInput): string {
  const report = builder.newBuilder();
  const suite = report.testSuite().name(input.suite).property('board', input.board);
  for (const { run, result, failedAction, unconfirmedWrites } of input.runs) {
    const test = suite
      .testCase()
      .className(`scenario.${result.scenarioId}`)
      .name(`${result.scenarioId} run ${run}`)
      .time((result.endTime - result.startTime) / 1000);
    if (result.resultCode !== 'SUCCESS')
      test.failure(failureMessage(result, failedAction), result.resultCode);
    if (unconfirmedWrites) {
      test.property('writesConfirmed', 'false');
      test.standardOutput(unconfirmedNote(unconfirmedWrites));
    }
  }
  if (!input.runs.length)
    suite
      .testCase()
      .className('scenario')
      .name('connect')
      .failure(input.noRun ?? 'no scenario ran', 'BLE_CONNECTION_ERROR');
  return report.build();
}

/** What a run over `native` says about its writes, in the report and on the console. */
export function unconfirmedNote(writes: number): string {
  return `${writes} write${writes === 1 ? '' : 's'} not confirmed by the board: the native adapter reports success whatever the board answered (use an HCI adapter to see refusals)`;
}
