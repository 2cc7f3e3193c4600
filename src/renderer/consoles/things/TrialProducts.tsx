// Trial products of the active channel: create, list with copyable UUIDs, pick one to edit its
// scenario set, delete (after confirming).
import { useState, type FormEvent } from 'react';
import {
  PRODUCT_NAME_MAX,
  TRIAL_PRODUCT_LIMIT,
  type TrialProduct,
} from '../../../core/platform/things/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyableId, IdFact } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import type { Resource } from '../../lib/use-resource';
import { LoadFailure } from '../../components/LoadFailure';

interface TrialProductsProps {
  products: Resource<TrialProduct[]>;
  selectedId: string | undefined;
  onSelect: (productId: string | undefined) => void;
}

export function TrialProducts({ products, selectedId, onSelect }: TrialProductsProps) {
  const api = useApi();
  const [pendingDelete, setPendingDelete] = useState<TrialProduct>();
  const list = products.value;

  return (
    <Panel
      title="Trial products"
      actions={
        <>
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
        </>
      }
    >
      <CreateProductForm
        onCreated={(product) => {
          products.reload();
          onSelect(product.id);
        }}
      />

      {products.error !== undefined && (
        <LoadFailure error={products.error} onRetry={products.reload} />
      )}
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
            <TableHead columns={['Name and product ID', 'UUIDs']} rowActions />
            <tbody>
              {list.map((product) => (
                <tr
                  key={product.id}
                  data-testid="product-row"
                  data-product-id={product.id}
                  aria-selected={product.id === selectedId}
                  className={product.id === selectedId ? 'selected' : undefined}
                >
                  <td className="name">
                    <div className="stack">
                      <span>{product.name}</span>
                      <CopyableId value={product.id} label={`product ID of ${product.name}`} />
                    </div>
                  </td>
                  <td>
                    {/* One column, each UUID named, so the table fits a 1024 px window. */}
                    <dl className="facts uuid-facts">
                      <IdFact
                        term="Service"
                        value={product.serviceUuid}
                        label={`service UUID of ${product.name}`}
                      />
                      <IdFact
                        term="PSDI service"
                        value={product.psdiServiceUuid}
                        label={`PSDI service UUID of ${product.name}`}
                      />
                      <IdFact
                        term="PSDI characteristic"
                        value={product.psdiCharacteristicUuid}
                        label={`PSDI characteristic UUID of ${product.name}`}
                      />
                    </dl>
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
        <ConfirmDialog
          title="Delete trial product?"
          confirmLabel="Delete product"
          onConfirm={async () => {
            await api.things.deleteTrialProduct({ productId: pendingDelete.id });
            setPendingDelete(undefined);
            if (pendingDelete.id === selectedId) onSelect(undefined);
            products.reload();
          }}
          onCancel={() => setPendingDelete(undefined)}
        >
          <p>
            <strong>{pendingDelete.name}</strong> (<code className="mono">{pendingDelete.id}</code>)
            will be deleted from the platform with its scenario set, devices and links. This cannot
            be undone.
          </p>
        </ConfirmDialog>
      )}
    </Panel>
  );
}

function CreateProductForm({ onCreated }: { onCreated: (product: TrialProduct) => void }) {
  const api = useApi();
  const create = useAction();
  const fields = useFields({ name: '' }, create.error, {
    name: (text) => (text.trim() === '' ? 'is required' : undefined),
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!fields.check()) return;
    await create.run(async () => {
      const product = await api.things.createTrialProduct({ name: fields.values.name });
      fields.clear();
      onCreated(product);
    });
  }

  return (
    <form
      className="inline-form"
      onSubmit={submit}
      aria-label="Create trial product"
      id={fields.id}
      noValidate
    >
      <TextField
        label="New product name"
        {...fields.bind('name')}
        placeholder="e.g. Thermostat rev B"
        maxLength={PRODUCT_NAME_MAX}
      />
      <button type="submit" className="primary" disabled={create.busy}>
        {create.busy ? 'Creating…' : 'Create product'}
      </button>
      <ErrorNotice error={create.error} shownFields={fields.names} testId="create-product-error" />
    </form>
  );
}
