// The scenario results of a dry run, one row each, as the platform's scenario result event
// would carry them: binary action results and the triggering payload as hex beside base64.
import { TableHead } from '../../components/TableHead';
import type { ScenarioResult } from '../../../core/scenario/schema';
import { Base64Bytes } from './Base64Bytes';
import { formatInstant, formatMs, type RunOutcome } from './timeline-model';

/** Rows drawn at most: the newest, as a long run's log. */
const MAX_ROWS = 1000;

export function OutcomeBadge({ outcome }: { outcome: RunOutcome }) {
  const tone =
    outcome === 'SUCCESS' ? 'good' : outcome === 'RUNNING' || outcome === 'CANCELLED' ? '' : 'bad';
  return <span className={`badge ${tone}`}>{outcome}</span>;
}

export function ResultEvents({ results }: { results: readonly ScenarioResult[] }) {
  const rows = results.slice(-MAX_ROWS);
  const first = results.length - rows.length;
  return (
    <div className="tl-results" data-testid="result-events">
      {results.length === 0 ? (
        <p className="note">No scenario results yet.</p>
      ) : (
        <>
          {first > 0 && (
            <p className="hint">
              The newest {rows.length.toLocaleString()} of {results.length.toLocaleString()}{' '}
              results.
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
                  'Action results',
                  'Notification payload',
                  'Error',
                ]}
              />
              <tbody>
                {rows.map((r, i) => (
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
                      {r.actionResults.length === 0 ? (
                        <span className="muted">none</span>
                      ) : (
                        <ol className="tl-action-results">
                          {r.actionResults.map((a, j) => (
                            <li key={j}>
                              {a.type === 'binary' ? (
                                <Base64Bytes data={a.data} />
                              ) : (
                                <span className="muted">void</span>
                              )}
                            </li>
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
