// Which of a product's devices a user has linked
// (GET /things/v1/products/{productId}/users/{userId}/links).
import type { FormEvent } from 'react';
import type { Links, TrialProduct } from '../../../core/platform/things/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

export function LinkLookup({ products }: { products: readonly TrialProduct[] }) {
  const api = useApi();
  const lookup = useAction<Links>();
  const fields = useFields({ productId: '', userId: '' }, lookup.error);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { productId, userId } = fields.values;
    await lookup.run(() => api.things.getLinks({ productId, userId }));
  }

  const links = lookup.value;
  return (
    <Panel title="Link lookup">
      <form className="inline-form" onSubmit={submit} aria-label="Look up links">
        <TextField
          label="Product ID"
          {...fields.bind('productId')}
          suggestions={products.map((p) => ({ value: p.id, label: p.name }))}
          mono
        />
        <TextField
          label="User ID"
          {...fields.bind('userId')}
          mono
          placeholder="U + 32 hex digits"
          className="grow"
        />
        <button type="submit" disabled={lookup.busy}>
          {lookup.busy ? 'Looking up…' : 'Find links'}
        </button>
      </form>
      <ErrorNotice error={lookup.error} shownFields={fields.names} testId="links-error" />
      {links &&
        (links.items.length === 0 ? (
          <p className="note empty" data-testid="links-empty">
            This user has linked no device of this product.
          </p>
        ) : (
          <table className="grid" data-testid="links-result">
            <TableHead columns={['Device ID', 'PSDI', 'Display name', 'User ID']} />
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
    </Panel>
  );
}
