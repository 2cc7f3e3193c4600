// How the last dry run ended, said in the run panel where the Start button is: the result, the
// counts (counted as the run view and the past runs count them), the first failure in words,
// and the way to the run's record, its HCI trace and its JSON.
import { useMemo } from 'react';
import { countResults } from '../../../core/scenario/result-counts';
import type { TimelineEvent } from '../../../core/scenario/schema';
import { TraceButton } from '../../components/TraceButton';
import { OutcomeBadge } from './ResultEvents';
import { saveRunJson } from './RunView';
import { type RunOutcome as Outcome } from './timeline-model';
import { resultRows } from './run-results';
import type { ShownRun } from './use-dry-run';

type ErrorEvent = Extract<TimelineEvent, { kind: 'error' }>;
const isError = (e: TimelineEvent): e is ErrorEvent => e.kind === 'error';

/** Scrolls the page to an element by id, as a link inside the app would. */
function scrollTo(id: string) {
  document.getElementById(id)?.scrollIntoView({ block: 'start', behavior: 'smooth' });
}

export function RunOutcome({ shown }: { shown: ShownRun }) {
  const { run, events } = shown;
  const rows = useMemo(() => resultRows(events), [events]);
  const counts = countResults(rows.map((r) => r.result));
  const failed = rows.find((r) => r.result.resultCode !== 'SUCCESS')?.result;
  const runError = events.find(isError);
  const outcome: Outcome | 'NO RESULTS' =
    failed?.resultCode ?? (runError ? 'RUNTIME_ERROR' : counts.results ? 'SUCCESS' : 'NO RESULTS');
  return (
    <div
      className={`run-outcome ${outcome === 'SUCCESS' ? 'good' : 'bad'}`}
      role="status"
      data-testid="run-outcome"
    >
      <p className="run-outcome-head">
        <strong>Dry run #{run.id} ended</strong>{' '}
        {outcome === 'NO RESULTS' ? (
          <span className="badge">no results</span>
        ) : (
          <OutcomeBadge outcome={outcome} />
        )}
        <span data-testid="run-outcome-counts">
          {counts.results} result{counts.results === 1 ? '' : 's'} · {counts.failures} failed
        </span>
        <span className="muted">
          {' '}
          · {run.setSource === 'draft' ? 'editor draft' : `saved revision ${run.revision}`} on{' '}
          {run.boardName}
        </span>
      </p>
      {(failed || runError) && (
        <p className="run-outcome-failure" data-testid="run-outcome-failure">
          {failed
            ? `First failure: scenario ${failed.scenarioId} ended ${failed.resultCode}${failed.errorReason ? `: ${failed.errorReason}` : ''}`
            : `The run failed: ${runError?.message}`}
        </p>
      )}
      <p className="run-outcome-links">
        <button type="button" className="link" onClick={() => scrollTo('run-view')}>
          Timeline and results
        </button>
        <button type="button" className="link" onClick={() => scrollTo(`past-run-${run.id}`)}>
          Run #{run.id} in past runs
        </button>
        <TraceButton
          span={() => ({ from: run.startedAt, to: run.endedAt ?? Date.now() })}
          label={`scenario-run-${run.id}`}
          testId="run-outcome-trace"
        />
        <button type="button" className="link" onClick={() => saveRunJson(shown)}>
          Run as JSON
        </button>
      </p>
    </div>
  );
}
