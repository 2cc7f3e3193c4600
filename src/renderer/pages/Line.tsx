// The line view: every station writing to this audit log, polled every LINE_POLL_MS — boards
// verified in the last hour, boards in flight, failures by step, unfinished records and the
// station that holds each — and this station's own batches, including one held because the
// log went away.
import { useEffect } from 'react';
import { Panel } from '../components/Panel';
import { TableHead } from '../components/TableHead';
import { formatTime } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { LoadFailure } from '../components/LoadFailure';
import { PsdiCell } from '../components/PsdiCell';

/** Polling, not LISTEN/NOTIFY: the same page serves SQLite, and 2 s is live enough for people. */
const LINE_POLL_MS = 2_000;

export function Line() {
  const status = useLoad((api) => api.line.getStatus({}), []);
  const batches = useLoad((api) => api.provisioning.listBatches({}), []);
  const { reload: reloadStatus } = status;
  const { reload: reloadBatches } = batches;
  useEffect(() => {
    const timer = setInterval(() => {
      reloadStatus();
      reloadBatches();
    }, LINE_POLL_MS);
    return () => clearInterval(timer);
  }, [reloadStatus, reloadBatches]);

  const line = status.value;
  const running = (batches.value ?? []).filter(
    (b) => b.state === 'running' || b.state === 'stopping',
  );
  return (
    <div className="page line-page">
      <header className="page-header">
        <h1>Line</h1>
        <p className="muted">
          {line
            ? `${line.engine === 'postgres' ? 'Shared log' : 'This machine’s log'} ${line.location} · this station: ${line.station} · refreshed every ${LINE_POLL_MS / 1000} s`
            : 'Loading…'}
        </p>
      </header>
      {status.error !== undefined && <LoadFailure error={status.error} onRetry={status.reload} />}

      <Panel title="Stations" testId="line-stations">
        {line && line.stations.length === 0 ? (
          <p className="note empty">No station has written to this log yet.</p>
        ) : (
          <table className="grid">
            <TableHead
              columns={[
                'Station',
                'Boards in the last hour',
                'In flight',
                'Failed (hour)',
                'Last seen',
              ]}
            />
            <tbody>
              {line?.stations.map((s) => (
                <tr key={s.station} className={s.station === line.station ? 'selected' : undefined}>
                  <td>{s.station}</td>
                  <td>{s.boardsPerHour}</td>
                  <td>{s.inFlight}</td>
                  <td>{s.failedLastHour}</td>
                  <td className="mono">{formatTime(s.lastSeenAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>

      <Panel title="Batches at this station" testId="line-batches">
        {running.length === 0 ? (
          <p className="note empty">No batch is running here.</p>
        ) : (
          <ul>
            {running.map((b) => (
              <li key={b.runId}>
                {b.runId}: {b.succeeded} verified, {b.failed} failed, {b.inFlight} in flight
                {b.storeError && (
                  <span className="warning-box" role="status">
                    Holding: {b.storeError}. No new board starts until the log answers; it resumes
                    by itself.
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <Panel title="Failures in the last hour, by step" testId="line-failures">
        {line && line.failuresByStep.length === 0 ? (
          <p className="note empty">None.</p>
        ) : (
          <table className="grid">
            <TableHead columns={['Step', 'Failures']} />
            <tbody>
              {line?.failuresByStep.map((f) => (
                <tr key={f.step}>
                  <td>{f.step}</td>
                  <td>{f.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>

      <Panel title="Unfinished records" testId="line-unfinished">
        {line && line.unfinished.length === 0 ? (
          <p className="note empty">Nothing to reconcile.</p>
        ) : (
          <>
            <p className="muted">
              Reconcile a record on the Provisioning page of the station where its board is now.
              {line && line.unfinishedCount > line.unfinished.length && (
                <span data-testid="line-unfinished-more">
                  {' '}
                  The oldest {line.unfinished.length} of {line.unfinishedCount} are listed.
                </span>
              )}
            </p>
            <table className="grid">
              <TableHead
                columns={['Record', 'PSDI', 'Board', 'State', 'Held by station', 'Since']}
              />
              <tbody>
                {line?.unfinished.map((r) => (
                  <tr key={r.id}>
                    <td>#{r.id}</td>
                    <PsdiCell psdi={r.psdi} />
                    <td className="mono">{r.boardAddress}</td>
                    <td>{r.state}</td>
                    <td>{r.station}</td>
                    <td className="mono">{formatTime(r.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Panel>
    </div>
  );
}
