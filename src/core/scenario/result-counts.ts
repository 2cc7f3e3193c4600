// How a dry run's results are counted: one result per scenario run that ended, and a failure for
// every result code but SUCCESS. The run log's counters (the past runs list) and the run view's
// summary both count with this, so the list and the opened run never disagree.
import type { ResultCode } from '../platform/things/scenario-result';

export interface ResultCounts {
  results: number;
  failures: number;
}

export function countResults(results: readonly { resultCode: ResultCode }[]): ResultCounts {
  return {
    results: results.length,
    failures: results.filter((r) => r.resultCode !== 'SUCCESS').length,
  };
}
