// The store behind the emulated platform: the channel's webhook URL (reserve needs one), the
// product catalogue, and a button pointing the webhooks at this app's receiver.
import { useState, type FormEvent } from 'react';
import type { Product } from '../../../core/platform/iap/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import type { Resource } from '../../lib/use-resource';
import { LoadFailure } from '../../components/LoadFailure';

interface Setup {
  channelId: string;
  webhookUrl: string | null;
  products: Product[];
}

export function StoreSetup({ setup }: { setup: Resource<Setup> }) {
  const api = useApi();
  const action = useAction();
  const s = setup.value;
  const [product, setProduct] = useState({
    productId: 'gems_100',
    currency: 'JPY',
    price: '160',
    productName: '100 gems',
  });

  async function addProduct(event: FormEvent) {
    event.preventDefault();
    await action.run(async () => {
      await api.iap.putProduct({ ...product, price: Number(product.price) });
      setup.reload();
    });
  }

  return (
    <Panel title="Store (emulator)">
      {setup.error !== undefined && <LoadFailure error={setup.error} onRetry={setup.reload} />}
      {s && (
        <>
          <dl className="facts">
            <dt>Channel</dt>
            <dd className="mono">{s.channelId}</dd>
            <dt>Webhook URL</dt>
            <dd className="mono" data-testid="iap-webhook-url">
              {s.webhookUrl ?? 'not set (reserve answers WEBHOOK_URL_IS_NOT_SET)'}
            </dd>
          </dl>
          <div className="button-row">
            <button
              type="button"
              onClick={() =>
                void action.run(async () => {
                  await api.webhooks.useReceiver({ channelId: s.channelId });
                  setup.reload();
                })
              }
            >
              Send to this app's receiver
            </button>
          </div>
          <form className="inline-form" onSubmit={addProduct} aria-label="Add product">
            {(['productId', 'currency', 'price', 'productName'] as const).map((key) => (
              <TextField
                key={key}
                label={`Product ${key}`}
                value={product[key]}
                onChange={(v) => setProduct((prev) => ({ ...prev, [key]: v }))}
              />
            ))}
            <button type="submit">Save product</button>
          </form>
          {s.products.length > 0 ? (
            <table className="grid" aria-label="Products">
              <TableHead columns={['Product ID', 'Name', 'Price']} />
              <tbody>
                {s.products.map((p) => (
                  <tr key={p.productId}>
                    <td className="mono">{p.productId}</td>
                    <td>{p.productName}</td>
                    <td>
                      {p.price} {p.currency}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="note empty">No product yet: reserve answers PRODUCT_ID_NOT_FOUND.</p>
          )}
        </>
      )}
      <ErrorNotice error={action.error} />
    </Panel>
  );
}
