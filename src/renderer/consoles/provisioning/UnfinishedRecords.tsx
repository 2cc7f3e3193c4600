// Records a run left unfinished (the app or the BLE process stopped mid-way): shown first, each
// with the two ways out — finish it (check the board and complete the record) or release its
// PSDI — so no board leaves the bench with a PSDI the log does not account for.
import type { AuditRecordView } from '../../../core/app/contracts/audit';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { formatTime } from '../../lib/format';
import type { Resource } from '../../lib/use-resource';
import { RecordState } from '../../components/RecordState';
import { LoadFailure } from '../../components/LoadFailure';

export function UnfinishedRecords({ unfinished }: { unfinished: Resource<AuditRecordView[]> }) {
  const api = useApi();
  const action = useAction<AuditRecordView>();
  const list = unfinished.value ?? [];
  if (unfinished.error !== undefined)
    return (
      <Panel title="Unfinished provisioning">
        <LoadFailure error={unfinished.error} onRetry={unfinished.reload} />
      </Panel>
    );
  if (list.length === 0) return null;

  function reconcile(record: AuditRecordView, choice: 'finish' | 'release') {
    void action
      .run(() => api.provisioning.reconcile({ recordId: record.id, action: choice }))
      .then(() => unfinished.reload());
  }

  return (
    <Panel title={`Unfinished provisioning (${list.length})`} testId="unfinished">
      <div className="warning-box prov-unfinished" role="alert">
        {list.length === 1 ? 'A board was' : `${list.length} boards were`} left part-way through
        provisioning. <strong>Finish</strong> reconnects to the board and completes the record if it
        carries the PSDI; <strong>Release</strong> takes the PSDI back (only if the board does not
        carry it).
      </div>
      <table className="grid" aria-label="Unfinished provisioning records">
        <TableHead
          columns={['Started', 'Product', 'Board', 'PSDI', 'State', 'Stopped at']}
          rowActions
        />
        <tbody>
          {list.map((r) => (
            <tr key={r.id} data-testid="unfinished-record">
              <td className="mono">{formatTime(r.createdAt)}</td>
              <td>{r.productName}</td>
              <td className="mono">{r.boardAddress}</td>
              <td className="mono">{r.psdi}</td>
              <td>
                <RecordState record={r} />
              </td>
              <td>
                {r.failedStep ?? ''}
                {r.error && <div className="hint">{r.error}</div>}
              </td>
              <td className="row-actions">
                <button
                  type="button"
                  className="primary"
                  aria-label={`Finish record ${r.id} (${r.psdi})`}
                  disabled={action.busy}
                  onClick={() => reconcile(r, 'finish')}
                >
                  Finish
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Release record ${r.id} (${r.psdi})`}
                  disabled={action.busy}
                  onClick={() => reconcile(r, 'release')}
                >
                  Release
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNotice error={action.error} />
    </Panel>
  );
}
