// Rehearses a purchase as the mini app runs it: the SDK's getPlatformProducts and
// requestConsentAgreement, the server's reserve, then the SDK's createPayment, whose payment
// sheet settles the order on the emulator (which sends purchaseComplete).
import { useState, type ReactNode } from 'react';
import type { Product } from '../../../core/platform/iap/schema';
import { IapSdkSimulator } from '../../../core/platform/iap/sdk-simulator';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { Checkbox } from '../../components/Checkbox';
import { SelectField } from '../../components/SelectField';
import type { BuyerState } from './Buyer';
import { ErrorCode } from './error-code';
import { Prompt } from './Prompt';

interface Screen {
  title: string;
  yes: string;
  no: string;
  body: ReactNode;
  answer: (yes: boolean) => void;
}

export function PurchaseFlow({
  buyer,
  products,
  onChanged,
}: {
  buyer: BuyerState | undefined;
  products: Product[];
  onChanged: () => void;
}) {
  const api = useApi();
  const step = useAction<string>();
  const [inClient, setInClient] = useState(true);
  const [iapAllowed, setIapAllowed] = useState(true);
  const [productId, setProductId] = useState(products[0]?.productId ?? '');
  const [clientIp, setClientIp] = useState('203.0.113.10');
  const [clientOs, setClientOs] = useState<'ios' | 'android'>('ios');
  const [shopProductName, setShopProductName] = useState(products[0]?.productName ?? '');
  const [orderId, setOrderId] = useState('');
  const [screen, setScreen] = useState<Screen>();

  const ask = (s: Omit<Screen, 'answer'>) =>
    new Promise<boolean>((resolve) =>
      setScreen({
        ...s,
        answer: (yes) => {
          setScreen(undefined);
          resolve(yes);
        },
      }),
    );
  const userId = buyer?.state.userId;
  const sdk = new IapSdkSimulator(
    { loggedIn: buyer !== undefined, inClient, iapAllowed },
    {
      products: async () => (await api.iap.getSetup({})).products,
      termsAgreed: async () => (userId ? (await api.iap.getUser({ userId })).termsAgreed : false),
      agreeToTerms: async () => {
        if (userId) await api.iap.setUser({ userId, termsAgreed: true });
      },
      completePayment: async (id) => {
        await api.iap.completeOrder({ orderId: id });
      },
    },
    {
      consent: () =>
        ask({
          title: 'In-app purchase terms',
          yes: 'Agree',
          no: 'Decline',
          body: <p>Agree to the latest terms of in-app purchase to continue.</p>,
        }),
      payment: (product, id) =>
        ask({
          title: 'App store payment',
          yes: 'Pay',
          no: 'Cancel payment',
          body: (
            <p>
              {product.productName}: {product.price} {product.currency} (order{' '}
              <code className="mono">{id}</code>)
            </p>
          ),
        }),
    },
  );
  const run = (call: () => Promise<string>) =>
    void step.run(async () => {
      try {
        return await call();
      } finally {
        onChanged();
      }
    });

  return (
    <Panel title="Purchase flow">
      <div className="button-row" role="group" aria-label="SDK environment">
        <Checkbox label="Inside the messaging client" checked={inClient} onChange={setInClient} />
        <Checkbox
          label="App allows in-app purchase"
          checked={iapAllowed}
          onChange={setIapAllowed}
        />
      </div>
      <div className="inline-form">
        <TextField
          label="productId"
          value={productId}
          onChange={setProductId}
          messages={messagesFor(step.error, 'productId')}
        />
        <TextField
          label="clientIp"
          value={clientIp}
          onChange={setClientIp}
          messages={messagesFor(step.error, 'clientIp')}
        />
        <SelectField
          label="clientOs"
          value={clientOs}
          options={['ios', 'android'] as const}
          onChange={setClientOs}
        />
        <TextField
          label="shopProductName"
          value={shopProductName}
          onChange={setShopProductName}
          messages={messagesFor(step.error, 'shopProductName')}
        />
      </div>
      <ol className="iap-steps">
        <li>
          <button
            type="button"
            onClick={() =>
              run(async () =>
                JSON.stringify(await sdk.getPlatformProducts({ productIds: [productId] })),
              )
            }
          >
            getPlatformProducts
          </button>
        </li>
        <li>
          <button
            type="button"
            onClick={() =>
              run(async () => {
                await sdk.requestConsentAgreement();
                return 'Consent: agreed.';
              })
            }
          >
            requestConsentAgreement
          </button>
        </li>
        <li>
          <button
            type="button"
            disabled={!buyer}
            onClick={() =>
              run(async () => {
                const { orderId: id } = await api.iap.reserve({
                  accessToken: buyer?.accessToken ?? '',
                  clientIp,
                  clientOs,
                  productId,
                  shopProductName,
                });
                setOrderId(id);
                return `Reserved order ${id}.`;
              })
            }
          >
            Reserve (server)
          </button>
        </li>
        <li>
          <button
            type="button"
            disabled={!orderId}
            onClick={() =>
              run(async () => {
                await sdk.createPayment({ productId, orderId });
                return `Paid: order ${orderId} settled; purchaseComplete sent.`;
              })
            }
          >
            createPayment
          </button>
        </li>
      </ol>
      {step.value && !step.error && (
        <p className="note mono" role="status" data-testid="iap-step-result">
          {step.value}
        </p>
      )}
      <ErrorCode error={step.error} />
      <ErrorNotice
        error={step.error}
        shownFields={['productId', 'clientIp', 'shopProductName']}
        testId="iap-step-error"
      />
      {screen && (
        <Prompt title={screen.title} yes={screen.yes} no={screen.no} onAnswer={screen.answer}>
          {screen.body}
        </Prompt>
      )}
    </Panel>
  );
}
