// Console for in-app purchase (docs/platform-api.md#iap): the emulator's store and buyer, the whole
// purchase path (SDK steps, server reserve, payment, refund), the events arriving at this
// app's receiver, and the webhook history.
import { useState } from 'react';
import { Panel } from '../../components/Panel';
import { ReceivedWebhooks } from '../../components/ReceivedWebhooks';
import { useApi } from '../../lib/api-context';
import { useLoad } from '../../lib/use-load';
import { useReceivedWebhooks } from '../../lib/use-webhooks';
import { Buyer, type BuyerState } from './Buyer';
import { History } from './History';
import { Orders } from './Orders';
import { PurchaseFlow } from './PurchaseFlow';
import { StoreSetup } from './StoreSetup';

const PURCHASE_EVENTS = ['purchaseComplete', 'refundComplete'];

export function Iap() {
  const api = useApi();
  const setup = useLoad((api) => api.iap.getSetup({}), []);
  const orders = useLoad((api) => api.iap.listOrders({}), []);
  const [buyer, setBuyer] = useState<BuyerState>();
  const receiver = useReceivedWebhooks();

  return (
    <div className="page">
      <header className="page-header">
        <h1>In-app purchase</h1>
        <p className="muted">Products, consent, reserve, payment, purchase and refund events.</p>
      </header>
      <div className="columns">
        <StoreSetup setup={setup} />
        <Buyer buyer={buyer} onChange={setBuyer} />
      </div>
      {setup.value && (
        <PurchaseFlow
          key={setup.value.products.length}
          buyer={buyer}
          products={setup.value.products}
          onChanged={() => {
            orders.reload();
            if (buyer)
              void api.iap
                .getUser({ userId: buyer.state.userId })
                .then((state) => setBuyer({ ...buyer, state }));
          }}
        />
      )}
      <Orders orders={orders} onChanged={orders.reload} />
      <Panel title="Received at this app's receiver" testId="iap-received">
        <p className="muted">
          Receiver: <code className="mono">{receiver.url ?? '…'}</code>
        </p>
        <ReceivedWebhooks
          received={receiver.received}
          filter={(w) => w.eventTypes.some((t) => PURCHASE_EVENTS.includes(t))}
          emptyText="No purchase event received yet. Point the channel at this app's receiver, then complete an order."
        />
      </Panel>
      <History />
    </div>
  );
}
