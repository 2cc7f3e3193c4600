// The scenario results of a dry run, one row each, as the platform's scenario result event
// would carry them, with each action's bytes (written or read, from the timeline) and the
// triggering payload as hex beside base64. Seven columns of fixed shares that wrap their text,
// so the table fits the window at 1024 px without scrolling sideways.
import { TableHead } from '../../components/TableHead';
import { Base64Bytes } from './Base64Bytes';
import { formatInstant, formatMs, type RunOutcome } from './timeline-model';
import { type ResultRow, type RowAction } from './run-results';

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
            <table className="grid results-grid" aria-label="Scenario results">
              <TableHead
                columns={[
                  '#',
                  'Scenario · revision',
                  'Result',
                  'Start · duration',
                  'Actions (bytes written / read)',
                  'Notification payload',
                  'Error',
                ]}
              />
              <tbody>
                {rows.map(({ result: r, actions }, i) => (
                  <tr key={first + i} data-testid="result-event">
                    <td className="mono">{first + i + 1}</td>
                    <td>
                      <div className="mono">{r.scenarioId}</div>
                      <div className="muted">rev {r.revision}</div>
                    </td>
                    <td>
                      <OutcomeBadge outcome={r.resultCode} />
                    </td>
                    <td>
                      <div className="mono">{formatInstant(r.startTime)}</div>
                      <div className="muted">{formatMs(r.endTime - r.startTime)}</div>
                    </td>
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
