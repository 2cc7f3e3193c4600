// The scenario results of a dry run, one row each, as the platform's scenario result event
// would carry them, with each action's bytes (written or read, from the timeline) and the
// triggering payload as hex beside base64.
import { TableHead } from '../../components/TableHead';
import { Base64Bytes } from './Base64Bytes';
import {
  formatInstant,
  formatMs,
  type ResultRow,
  type RowAction,
  type RunOutcome,
} from './timeline-model';

/** Rows drawn at most: the newest, as a long run's log. */
const MAX_ROWS = 1000;

export function OutcomeBadge({ outcome }: { outcome: RunOutcome }) {
  const tone =
    outcome === 'SUCCESS' ? 'good' : outcome === 'RUNNING' || outcome === 'CANCELLED' ? '' : 'bad';
  return <span className={`badge ${tone}`}>{outcome}</span>;
}

export function ResultEvents({ rows: all }: { rows: readonly ResultRow[] }) {
  const rows = all.slice(-MAX_ROWS);
  const first = all.length - rows.length;
  return (
    <div className="tl-results" data-testid="result-events">
      {all.length === 0 ? (
        <p className="note">No scenario results yet.</p>
      ) : (
        <>
          {first > 0 && (
            <p className="hint">
              The newest {rows.length.toLocaleString()} of {all.length.toLocaleString()} results.
            </p>
          )}
          <div className="scroll table-scroll">
            <table className="grid" aria-label="Scenario results">
              <TableHead
                columns={[
                  '#',
                  'Scenario',
                  'Revision',
                  'Result',
                  'Start',
                  'Duration',
                  'Actions (bytes written / read)',
                  'Notification payload',
                  'Error',
                ]}
              />
              <tbody>
                {rows.map(({ result: r, actions }, i) => (
                  <tr key={first + i} data-testid="result-event">
                    <td className="mono">{first + i + 1}</td>
                    <td className="mono">{r.scenarioId}</td>
                    <td>{r.revision}</td>
                    <td>
                      <OutcomeBadge outcome={r.resultCode} />
                    </td>
                    <td className="mono">{formatInstant(r.startTime)}</td>
                    <td>{formatMs(r.endTime - r.startTime)}</td>
                    <td>
                      {actions.length === 0 ? (
                        <span className="muted">none</span>
                      ) : (
                        <ol className="tl-action-results">
                          {actions.map((a, j) => (
                            <ActionBytes key={j} action={a} />
                          ))}
                        </ol>
                      )}
                    </td>
                    <td>
                      {r.bleNotificationPayload !== undefined && (
                        <Base64Bytes data={r.bleNotificationPayload} />
                      )}
                    </td>
                    <td className="bad">{r.errorReason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}

function ActionBytes({ action }: { action: RowAction | undefined }) {
  if (action === undefined) return <li className="muted">not run</li>;
  return (
    <li className={action.error === undefined ? undefined : 'bad'} title={action.error}>
      <span className="muted">{action.type}</span>{' '}
      {action.data !== undefined && <Base64Bytes data={action.data} />}
      {action.error !== undefined && <span> failed</span>}
    </li>
  );
}
