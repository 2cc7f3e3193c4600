// The in-app purchase SDK simulator: its EmbedError messages for each precondition, consent,
// products and a payment that settles through the backend.
import { describe, expect, it } from 'vitest';
import { EmbedError } from '../../../../src/core/platform/embed/embed-error';
import {
  IAP_SDK_MESSAGES,
  IapSdkSimulator,
  type IapSdkEnvironment,
} from '../../../../src/core/platform/iap/sdk-simulator';

const ok: IapSdkEnvironment = { loggedIn: true, inClient: true, iapAllowed: true };

function sdk(
  environment = ok,
  answers: { consent?: boolean; pay?: boolean; agreed?: boolean } = {},
) {
  const calls: string[] = [];
  let agreed = answers.agreed ?? false;
  const sim = new IapSdkSimulator(
    environment,
    {
      products: async () => [
        { productId: 'gems_100', currency: 'JPY', price: 160, productName: '100 gems' },
        { productId: 'gems_500', currency: 'JPY', price: 700, productName: '500 gems' },
      ],
      termsAgreed: async () => agreed,
      agreeToTerms: async () => {
        agreed = true;
        calls.push('agree');
      },
      completePayment: async (orderId) => void calls.push(`complete ${orderId}`),
    },
    {
      consent: async () => {
        calls.push('consent screen');
        return answers.consent ?? true;
      },
      payment: async (product) => {
        calls.push(`pay ${product.productId}`);
        return answers.pay ?? true;
      },
    },
  );
  return { sim, calls };
}

describe('in-app purchase SDK simulator', () => {
  it.each([
    [{ ...ok, loggedIn: false }, IAP_SDK_MESSAGES.notLoggedIn],
    [{ ...ok, inClient: false }, IAP_SDK_MESSAGES.externalBrowser],
    [{ ...ok, iapAllowed: false }, IAP_SDK_MESSAGES.notAllowed],
  ])('rejects all three methods with the SDK message %#', async (environment, message) => {
    const { sim, calls } = sdk(environment);
    for (const call of [
      () => sim.getPlatformProducts({ productIds: ['gems_100'] }),
      () => sim.requestConsentAgreement(),
      () => sim.createPayment({ productId: 'gems_100', orderId: 'o1' }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbedError);
      expect((error as Error).message).toBe(message);
    }
    expect(calls).toEqual([]);
  });

  it('lists the asked-for products the store knows, keyed by ID', async () => {
    expect(await sdk().sim.getPlatformProducts({ productIds: ['gems_500', 'nope'] })).toEqual({
      gems_500: { currency: 'JPY', price: 700, productName: '500 gems' },
    });
  });

  it('shows the consent screen only when consent is missing, and rejects a refusal', async () => {
    const first = sdk();
    await first.sim.requestConsentAgreement();
    await first.sim.requestConsentAgreement();
    expect(first.calls).toEqual(['consent screen', 'agree']);
    const refused = sdk(ok, { consent: false });
    await expect(refused.sim.requestConsentAgreement()).rejects.toThrow(IAP_SDK_MESSAGES.declined);
    expect(refused.calls).toEqual(['consent screen']);
  });

  it('settles a paid order through the backend and rejects a cancelled one', async () => {
    const paid = sdk(ok, { agreed: true });
    await paid.sim.createPayment({ productId: 'gems_100', orderId: 'o1' });
    expect(paid.calls).toEqual(['pay gems_100', 'complete o1']);
    const cancelled = sdk(ok, { pay: false });
    await expect(
      cancelled.sim.createPayment({ productId: 'gems_100', orderId: 'o2' }),
    ).rejects.toThrow(IAP_SDK_MESSAGES.canceled);
    expect(cancelled.calls).toEqual(['pay gems_100']);
    await expect(paid.sim.createPayment({ productId: 'nope', orderId: 'o3' })).rejects.toThrow(
      IAP_SDK_MESSAGES.unknownProduct,
    );
  });
});
