// Trial products of the active channel: create, list with copyable UUIDs, pick one to edit its
// scenario set, delete (after confirming).
import { useState, type FormEvent } from 'react';
import { TRIAL_PRODUCT_LIMIT, type TrialProduct } from '../../../core/platform/things/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import type { Resource } from '../../lib/use-resource';

export interface TrialProductsProps {
  products: Resource<TrialProduct[]>;
  selectedId: string | undefined;
  onSelect: (productId: string | undefined) => void;
}

export function TrialProducts({ products, selectedId, onSelect }: TrialProductsProps) {
  const [pendingDelete, setPendingDelete] = useState<TrialProduct>();
  const list = products.value;

  return (
    <section className="panel" aria-labelledby="products-title">
      <header className="panel-header">
        <h2 id="products-title">Trial products</h2>
        {list && (
          <span className="muted" data-testid="product-count">
            {list.length} of {TRIAL_PRODUCT_LIMIT}
          </span>
        )}
        <button
          type="button"
          className="link"
          onClick={products.reload}
          disabled={products.loading}
        >
          {products.loading && list ? 'Refreshing…' : 'Refresh'}
        </button>
      </header>

      <CreateProductForm
        onCreated={(product) => {
          products.reload();
          onSelect(product.id);
        }}
      />

      {products.error !== undefined && <ErrorNotice error={products.error} />}
      {!list ? (
        products.error === undefined && (
          <p className="note" role="status">
            Loading trial products…
          </p>
        )
      ) : list.length === 0 ? (
        <p className="note empty" data-testid="products-empty">
          No trial products yet. Create one above; a channel can have up to {TRIAL_PRODUCT_LIMIT}.
        </p>
      ) : (
        <div className="table-scroll">
          <table className="grid products" data-testid="products-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Product ID</th>
                <th scope="col">Service UUID</th>
                <th scope="col">PSDI service / characteristic UUID</th>
                <th scope="col">
                  <span className="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((product) => (
                <tr
                  key={product.id}
                  data-testid="product-row"
                  data-product-id={product.id}
                  aria-selected={product.id === selectedId}
                  className={product.id === selectedId ? 'selected' : undefined}
                >
                  <td className="name">{product.name}</td>
                  <td>
                    <CopyableId value={product.id} label={`product ID of ${product.name}`} />
                  </td>
                  <td>
                    <CopyableId
                      value={product.serviceUuid}
                      label={`service UUID of ${product.name}`}
                    />
                  </td>
                  <td>
                    <div className="stack">
                      <CopyableId
                        value={product.psdiServiceUuid}
                        label={`PSDI service UUID of ${product.name}`}
                      />
                      <CopyableId
                        value={product.psdiCharacteristicUuid}
                        label={`PSDI characteristic UUID of ${product.name}`}
                      />
                    </div>
                  </td>
                  <td className="row-actions">
                    <button
                      type="button"
                      aria-pressed={product.id === selectedId}
                      onClick={() => onSelect(product.id)}
                    >
                      Scenario set
                    </button>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Delete ${product.name}`}
                      onClick={() => setPendingDelete(product)}
                    >
                      Delete…
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {pendingDelete && (
        <DeleteProductDialog
          product={pendingDelete}
          onClose={(deleted) => {
            setPendingDelete(undefined);
            if (!deleted) return;
            if (pendingDelete.id === selectedId) onSelect(undefined);
            products.reload();
          }}
        />
      )}
    </section>
  );
}

function CreateProductForm({ onCreated }: { onCreated: (product: TrialProduct) => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const product = await api.things.createTrialProduct({ name });
      setName('');
      onCreated(product);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="inline-form" onSubmit={submit} aria-label="Create trial product">
      <TextField
        label="New product name"
        name="name"
        value={name}
        onChange={setName}
        messages={messagesFor(error, 'name')}
        placeholder="e.g. Thermostat rev B"
        maxLength={200}
      />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create product'}
      </button>
      <ErrorNotice error={error} shownFields={['name']} testId="create-product-error" />
    </form>
  );
}

function DeleteProductDialog({
  product,
  onClose,
}: {
  product: TrialProduct;
  onClose: (deleted: boolean) => void;
}) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await api.things.deleteTrialProduct({ productId: product.id });
      onClose(true);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title="Delete trial product?"
      confirmLabel="Delete product"
      busy={busy}
      error={<ErrorNotice error={error} />}
      onConfirm={() => void confirm()}
      onCancel={() => onClose(false)}
    >
      <p>
        <strong>{product.name}</strong> (<code className="mono">{product.id}</code>) will be deleted
        from the platform with its scenario set, devices and links. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
