// Which of a product's devices a user has linked
// (GET /things/v1/products/{productId}/users/{userId}/links).
import { useId, useState, type FormEvent } from 'react';
import type { Links, TrialProduct } from '../../../core/platform/things/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';

export function LinkLookup({ products }: { products: readonly TrialProduct[] }) {
  const api = useApi();
  const listId = useId();
  const [productId, setProductId] = useState('');
  const [userId, setUserId] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ links?: Links; error?: unknown }>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      setResult({ links: await api.things.getLinks({ productId, userId }) });
    } catch (error) {
      setResult({ error });
    } finally {
      setBusy(false);
    }
  }

  const { links, error } = result;
  return (
    <section className="panel" aria-labelledby="link-lookup-title">
      <header className="panel-header">
        <h2 id="link-lookup-title">Link lookup</h2>
      </header>
      <form className="inline-form" onSubmit={submit} aria-label="Look up links">
        <TextField
          label="Product ID"
          name="productId"
          value={productId}
          onChange={setProductId}
          list={listId}
          mono
          messages={messagesFor(error, 'productId')}
        />
        <datalist id={listId}>
          {products.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </datalist>
        <TextField
          label="User ID"
          name="userId"
          value={userId}
          onChange={setUserId}
          mono
          placeholder="U + 32 hex digits"
          messages={messagesFor(error, 'userId')}
          className="grow"
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Find links'}
        </button>
      </form>
      <ErrorNotice error={error} shownFields={['productId', 'userId']} testId="links-error" />
      {links &&
        (links.items.length === 0 ? (
          <p className="note empty" data-testid="links-empty">
            This user has linked no device of this product.
          </p>
        ) : (
          <table className="grid" data-testid="links-result">
            <thead>
              <tr>
                <th scope="col">Device ID</th>
                <th scope="col">PSDI</th>
                <th scope="col">Display name</th>
                <th scope="col">User ID</th>
              </tr>
            </thead>
            <tbody>
              {links.items.map((item) => (
                <tr key={item.device.id}>
                  <td>
                    <CopyableId value={item.device.id} label="device ID" />
                  </td>
                  <td className="mono">{item.device.productSpecificDeviceId}</td>
                  <td>{item.deviceDisplayName}</td>
                  <td className="mono">{item.userId}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
