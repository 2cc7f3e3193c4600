// The product's dry runs in the audit log, newest first; open one to read its timeline again.
import { useEffect } from 'react';
import { LoadFailure } from '../../components/LoadFailure';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { formatTime } from '../../lib/format';
import { useLoad } from '../../lib/use-load';

export function PastRuns({
  productId,
  refreshKey,
  openId,
  onOpen,
}: {
  productId: string;
  /** Changes when the list may have changed (the shown run started or ended). */
  refreshKey: string;
  openId: number | undefined;
  onOpen: (runId: number) => void;
}) {
  const runs = useLoad((api) => api.scenarios.listRuns({ productId, limit: 20 }), [productId]);
  const { reload } = runs;
  useEffect(() => reload(), [refreshKey, reload]);

  return (
    <Panel title="Past dry runs" testId="past-runs">
      {runs.error !== undefined && !runs.value ? (
        <LoadFailure error={runs.error} onRetry={runs.reload} />
      ) : !runs.value?.items.length ? (
        <p className="note empty">No dry runs of this product yet.</p>
      ) : (
        <div className="scroll table-scroll">
          <table className="grid" aria-label="Past dry runs">
            <TableHead columns={['Run', 'Started', 'Board', 'Set', 'Results', 'Status', '']} />
            <tbody>
              {runs.value.items.map((r) => (
                <tr
                  key={r.id}
                  id={`past-run-${r.id}`}
                  data-testid="past-run"
                  aria-current={r.id === openId || undefined}
                >
                  <td className="mono">#{r.id}</td>
                  <td className="mono">{formatTime(r.startedAt)}</td>
                  <td>{r.boardName}</td>
                  <td>{r.setSource === 'draft' ? 'draft' : `revision ${r.revision}`}</td>
                  <td>
                    {/* Counted as the run view counts (core/scenario/result-counts.ts). */}
                    {r.results}
                    {r.failures > 0 && (
                      <>
                        {' '}
                        <span className="badge bad">{r.failures} failed</span>
                      </>
                    )}
                  </td>
                  <td>{r.status}</td>
                  <td>
                    {r.id === openId ? (
                      <span className="badge" data-testid="past-run-open">
                        shown above
                      </span>
                    ) : (
                      <button type="button" className="link" onClick={() => onOpen(r.id)}>
                        Open run #{r.id}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
