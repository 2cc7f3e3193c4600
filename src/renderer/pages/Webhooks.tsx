// Webhooks both ways: the app's own receiver (URL to give a sender, what arrived, verified or
// not) and the embedded emulator's channels (where each sends, a test send, every delivery).
import { IdFact } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { LoadFailure } from '../components/LoadFailure';
import { Panel } from '../components/Panel';
import { ReceivedWebhooks } from '../components/ReceivedWebhooks';
import { TableHead } from '../components/TableHead';
import { useApi } from '../lib/api-context';
import { formatTime } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { useReceivedWebhooks } from '../lib/use-webhooks';

const DELIVERY_TONE = { SUCCESS: 'good', FAILED: 'bad', PENDING: 'warn' } as const;

export function Webhooks() {
  const receiver = useReceivedWebhooks();
  const clear = useAction();
  return (
    <div className="page">
      <header className="page-header">
        <h1>Webhooks</h1>
        <p className="muted">
          Events the platform (or the emulator) sends, and where the emulator sends them.
        </p>
      </header>
      <Panel
        title="This app's receiver"
        actions={
          <button
            type="button"
            className="link"
            disabled={clear.busy || receiver.received.length === 0}
            onClick={() => void clear.run(receiver.clear)}
          >
            Clear
          </button>
        }
      >
        {receiver.error !== undefined && !receiver.url ? (
          <ErrorNotice error={receiver.error} />
        ) : (
          <dl className="facts">
            {receiver.url && <IdFact term="URL" value={receiver.url} label="receiver URL" />}
          </dl>
        )}
        <p className="note">
          Signatures are checked with every channel secret this app knows: the emulator&apos;s
          channels and the active environment&apos;s. Unverified bodies are kept but answered 401.
        </p>
        <ErrorNotice error={clear.error} />
        <ReceivedWebhooks received={receiver.received} />
      </Panel>
      <EmulatorWebhooks />
    </div>
  );
}

function EmulatorWebhooks() {
  const api = useApi();
  const urls = useLoad((api) => api.webhooks.listUrls({}), []);
  const deliveries = useLoad((api) => api.webhooks.listDeliveries({ limit: 100 }), []);
  const action = useAction();
  const { reload: reloadUrls } = urls;
  const { reload: reloadDeliveries } = deliveries;
  const act = (call: () => Promise<unknown>) =>
    void action.run(async () => {
      await call();
      reloadUrls();
      reloadDeliveries();
    });

  if (urls.error !== undefined && !urls.value)
    return (
      <Panel title="Emulator channels">
        <LoadFailure error={urls.error} onRetry={urls.reload} />
      </Panel>
    );
  return (
    <>
      <Panel title="Emulator channels">
        <table className="grid">
          <TableHead columns={['Channel ID', 'Webhook URL']} rowActions />
          <tbody>
            {(urls.value ?? []).map((c) => (
              <tr key={c.channelId}>
                <td className="mono">{c.channelId}</td>
                <td className="mono">{c.url ?? <em>not set</em>}</td>
                <td className="row-actions">
                  <button
                    type="button"
                    disabled={action.busy}
                    aria-label={`Send channel ${c.channelId} webhooks to this app`}
                    onClick={() => act(() => api.webhooks.useReceiver({ channelId: c.channelId }))}
                  >
                    Use this app&apos;s receiver
                  </button>
                  <button
                    type="button"
                    disabled={action.busy || !c.url}
                    aria-label={`Send a test webhook for channel ${c.channelId}`}
                    onClick={() => act(() => api.webhooks.sendTest({ channelId: c.channelId }))}
                  >
                    Send test
                  </button>
                  <button
                    type="button"
                    disabled={action.busy || !c.url}
                    aria-label={`Clear the webhook URL of channel ${c.channelId}`}
                    onClick={() =>
                      act(() => api.webhooks.setUrl({ channelId: c.channelId, url: null }))
                    }
                  >
                    Clear URL
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ErrorNotice error={action.error} />
      </Panel>
      <Panel
        title="Deliveries by the emulator"
        actions={
          <button type="button" className="link" onClick={deliveries.reload}>
            Refresh
          </button>
        }
      >
        {deliveries.error !== undefined && (
          <LoadFailure error={deliveries.error} onRetry={deliveries.reload} />
        )}
        {(deliveries.value ?? []).length === 0 ? (
          <p className="note empty">The emulator has sent no webhooks yet.</p>
        ) : (
          <table className="grid" aria-label="Deliveries">
            <TableHead columns={['Started', 'Channel', 'Kind', 'Status', 'Answer']} />
            <tbody>
              {(deliveries.value ?? []).map((d) => (
                <tr key={d.id}>
                  <td className="mono">{formatTime(d.startedAt)}</td>
                  <td className="mono">{d.channelId}</td>
                  <td>{d.kind}</td>
                  <td>
                    <span className={`badge ${DELIVERY_TONE[d.status]}`}>{d.status}</span>
                  </td>
                  <td>{d.error ?? d.responseStatus}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </>
  );
}
