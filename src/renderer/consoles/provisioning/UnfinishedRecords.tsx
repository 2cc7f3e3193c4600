// Records a run left unfinished (the app or the BLE process stopped mid-way): shown first, each
// with the two ways out — finish it (check the board and complete the record) or release its
// PSDI — so no board leaves the bench with a PSDI the log does not account for. What the last
// click did stays said, in one sentence, after its row has gone: a record another station
// settled since the list showed it is said to be settled, not refused.
import type { AuditRecordView } from '../../../core/app/contracts/audit';
import type { OpOutput } from '../../../core/app/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { formatTime } from '../../lib/format';
import type { Resource } from '../../lib/use-resource';
import { RecordState } from '../../components/RecordState';
import { LoadFailure } from '../../components/LoadFailure';
import { PsdiCell } from '../../components/PsdiCell';

export function UnfinishedRecords({ unfinished }: { unfinished: Resource<AuditRecordView[]> }) {
  const api = useApi();
  const action = useAction<OpOutput<'provisioning:reconcile'>>();
  const list = unfinished.value ?? [];
  if (unfinished.error !== undefined)
    return (
      <Panel title="Unfinished provisioning">
        <LoadFailure error={unfinished.error} onRetry={unfinished.reload} />
      </Panel>
    );
  const done = action.value?.reconciled.message;
  if (list.length === 0 && done === undefined) return null;

  function reconcile(record: AuditRecordView, choice: 'finish' | 'release') {
    void action
      .run(() => api.provisioning.reconcile({ recordId: record.id, action: choice }))
      .then(() => unfinished.reload());
  }

  return (
    <Panel title={`Unfinished provisioning (${list.length})`} testId="unfinished">
      {done !== undefined && (
        <p className="note" role="status" data-testid="unfinished-done">
          {done}
        </p>
      )}
      {list.length > 0 && (
        <UnfinishedTable list={list} busy={action.busy} onReconcile={reconcile} />
      )}
      <ErrorNotice error={action.error} />
    </Panel>
  );
}

function UnfinishedTable({
  list,
  busy,
  onReconcile,
}: {
  list: AuditRecordView[];
  busy: boolean;
  onReconcile: (record: AuditRecordView, choice: 'finish' | 'release') => void;
}) {
  return (
    <>
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
              <PsdiCell psdi={r.psdi} />
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
                  disabled={busy}
                  onClick={() => onReconcile(r, 'finish')}
                >
                  Finish
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Release record ${r.id} (${r.psdi})`}
                  disabled={busy}
                  onClick={() => onReconcile(r, 'release')}
                >
                  Release
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
