// The pages that work on one trial product (provisioning, scenarios) start the same way: the
// products loading, failing to load, or none yet, with the way to the console that creates one.
import type { ReactNode } from 'react';
import type { TrialProduct } from '../../core/platform/things/schema';
import { useNavigate } from '../lib/navigation';
import type { Resource } from '../lib/use-resource';
import { LoadFailure } from './LoadFailure';
import { Panel } from './Panel';

interface TrialProductsGateProps {
  products: Resource<TrialProduct[]>;
  /** The panel shown when there are none. */
  title: string;
  testId: string;
  emptyTestId: string;
  children: (products: [TrialProduct, ...TrialProduct[]]) => ReactNode;
}

export function TrialProductsGate({
  products,
  title,
  testId,
  emptyTestId,
  children,
}: TrialProductsGateProps) {
  const navigate = useNavigate();
  const list = products.value;
  if (list === undefined)
    return products.error !== undefined ? (
      <LoadFailure error={products.error} onRetry={products.reload} />
    ) : (
      <p className="note" role="status">
        Loading trial products…
      </p>
    );
  const [first, ...rest] = list;
  if (first) return children([first, ...rest]);
  return (
    <Panel title={title} testId={testId}>
      <p className="note empty" data-testid={emptyTestId}>
        No trial products on this channel yet. Create one on the Device service console, then come
        back.
      </p>
      <div className="button-row">
        <button type="button" onClick={() => navigate('device-service')}>
          Open the Device service console
        </button>
        <button type="button" onClick={products.reload}>
          Check again
        </button>
      </div>
    </Panel>
  );
}
