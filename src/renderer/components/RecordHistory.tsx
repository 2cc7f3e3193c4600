// A record's history in words: every failed try and what the tool did next, and operator
// releases with who and where. Empty history: nothing to show.
import { describeRecordEvent, type RecordEvent } from '../../core/audit/records';

export function RecordHistory({ history }: { history: readonly RecordEvent[] }) {
  if (history.length === 0) return null;
  return (
    <ul className="prov-history" data-testid="record-history">
      {history.map((event, i) => (
        <li key={i}>
          <time className="muted" dateTime={new Date(event.at).toISOString()}>
            {new Date(event.at).toLocaleTimeString()}
          </time>{' '}
          {describeRecordEvent(event)}
        </li>
      ))}
    </ul>
  );
}
