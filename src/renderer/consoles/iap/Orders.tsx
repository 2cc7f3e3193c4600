// Orders on the emulator: the admin side completes a reserved one (as the store settling the
// payment) or refunds a completed one; each sends its signed webhook.
import type { Order } from '../../../core/platform/iap/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useApi } from '../../lib/api-context';
import { formatTime } from '../../lib/format';
import { useAction } from '../../lib/use-action';
import type { Resource } from '../../lib/use-resource';
import { LoadFailure } from '../../components/LoadFailure';

export function Orders({
  orders,
  onChanged,
}: {
  orders: Resource<Order[]>;
  onChanged: () => void;
}) {
  const api = useApi();
  const action = useAction();
  const act = (call: () => Promise<unknown>) =>
    void action.run(async () => {
      await call();
      onChanged();
    });
  const list = orders.value ?? [];
  return (
    <Panel
      title="Orders (emulator)"
      actions={
        <button type="button" className="link" onClick={orders.reload}>
          Refresh
        </button>
      }
    >
      {orders.error !== undefined && <LoadFailure error={orders.error} onRetry={orders.reload} />}
      {list.length === 0 ? (
        <p className="note empty">No order yet. Reserve one in the purchase flow.</p>
      ) : (
        <table className="grid" aria-label="Orders">
          <TableHead columns={['Order ID', 'Product', 'User', 'State', 'Reserved']} rowActions />
          <tbody>
            {list.map((o) => (
              <tr key={o.orderId} data-testid="iap-order-row" data-order-id={o.orderId}>
                <td className="mono">{o.orderId}</td>
                <td className="mono">{o.productId}</td>
                <td className="mono">{o.userId}</td>
                <td data-testid="iap-order-state">{o.state}</td>
                <td className="mono">{formatTime(o.reservedAt)}</td>
                <td className="row-actions">
                  {o.state === 'RESERVED' && (
                    <button
                      type="button"
                      aria-label={`Complete order ${o.orderId}`}
                      onClick={() => act(() => api.iap.completeOrder({ orderId: o.orderId }))}
                    >
                      Complete
                    </button>
                  )}
                  {o.state === 'COMPLETED' && (
                    <button
                      type="button"
                      aria-label={`Refund order ${o.orderId}`}
                      onClick={() => act(() => api.iap.refundOrder({ orderId: o.orderId }))}
                    >
                      Refund
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNotice error={action.error} />
    </Panel>
  );
}
