// Webhook history (GET /iap/v1/webhook/events): the query, its first page and the next ones by
// cursor. A changed query starts again from the first page, as the platform does.
import { useState, type FormEvent } from 'react';
import { DELIVERY_STATUSES, type HistoryPage } from '../../../core/platform/iap/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { SelectField } from '../../components/SelectField';
import { ErrorCode } from './error-code';

type Status = '' | (typeof DELIVERY_STATUSES)[number];

export function History() {
  const api = useApi();
  const load = useAction<{ page: HistoryPage; number: number }>();
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [pageSize, setPageSize] = useState('10');
  const [status, setStatus] = useState<Status>('');

  const fetchPage = (cursor: string | undefined, number: number) =>
    void load.run(async () => ({
      page: await api.iap.history({
        ...(start ? { startEpochSeconds: Number(start) } : {}),
        ...(end ? { endEpochSeconds: Number(end) } : {}),
        ...(pageSize ? { pageSize: Number(pageSize) } : {}),
        ...(status ? { status } : {}),
        ...(cursor ? { cursor } : {}),
      }),
      number,
    }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fetchPage(undefined, 1);
  };
  const current = load.value;

  return (
    <Panel title="Webhook history">
      <form className="inline-form" onSubmit={submit} aria-label="Webhook history query">
        <TextField
          label="startEpochSeconds"
          value={start}
          onChange={setStart}
          messages={messagesFor(load.error, 'startEpochSeconds')}
        />
        <TextField
          label="endEpochSeconds"
          value={end}
          onChange={setEnd}
          messages={messagesFor(load.error, 'endEpochSeconds')}
        />
        <TextField
          label="pageSize"
          value={pageSize}
          onChange={setPageSize}
          messages={messagesFor(load.error, 'pageSize')}
        />
        <SelectField
          label="status"
          value={status}
          options={[
            { value: '' as Status, label: 'all' },
            ...DELIVERY_STATUSES.map((s) => ({ value: s as Status, label: s })),
          ]}
          onChange={setStatus}
        />
        <button type="submit" className="primary" disabled={load.busy}>
          Load first page
        </button>
        {current?.page.nextCursor && (
          <button
            type="button"
            disabled={load.busy}
            onClick={() => fetchPage(current.page.nextCursor ?? undefined, current.number + 1)}
          >
            Next page
          </button>
        )}
      </form>
      <ErrorCode error={load.error} />
      <ErrorNotice
        error={load.error}
        shownFields={['startEpochSeconds', 'endEpochSeconds', 'pageSize']}
      />
      {current && (
        <>
          <p className="muted" data-testid="iap-history-page">
            Page {current.number}: {current.page.events.length} event(s)
            {current.page.nextCursor ? '; more follow' : '; last page'}
          </p>
          <table className="grid" aria-label="Webhook history events">
            <TableHead columns={['Delivery started', 'Type', 'Order ID', 'Status']} />
            <tbody>
              {current.page.events.map((e, i) => (
                <tr key={i} data-testid="iap-history-row">
                  <td className="mono">{e.deliveryStartedAt}</td>
                  <td>{String(e.event.type)}</td>
                  <td className="mono">{String(e.event.orderId)}</td>
                  <td>{e.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Panel>
  );
}
