// A record's history in words: every failed try and what the tool did next, and operator
// releases with who and where. Empty history: nothing to show.
import { describeRecordEvent, type RecordEvent } from '../../core/audit/records';
import { formatClockTime } from '../lib/format';

export function RecordHistory({
  history,
  errorShown = false,
}: {
  history: readonly RecordEvent[];
  /**
   * The record's error is shown beside: the try that ended the run (a failure nothing followed)
   * is that error again, so it is left out rather than said twice.
   */
  errorShown?: boolean;
}) {
  const last = history.at(-1);
  const shown =
    errorShown && last?.kind === 'failed' && last.then === undefined
      ? history.slice(0, -1)
      : history;
  if (shown.length === 0) return null;
  return (
    <ul className="prov-history" data-testid="record-history">
      {shown.map((event, i) => (
        <li key={i}>
          <time className="muted" dateTime={new Date(event.at).toISOString()}>
            {formatClockTime(event.at)}
          </time>{' '}
          {describeRecordEvent(event)}
        </li>
      ))}
    </ul>
  );
}
