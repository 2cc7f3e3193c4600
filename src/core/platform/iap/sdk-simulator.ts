// A stand-in for the embedded browser's in-app purchase methods (docs/platform-api.md#iap-client):
// getPlatformProducts, requestConsentAgreement and createPayment, rejecting with the SDK's
// EmbedError messages. The store and the platform behind it are a backend (the emulator's
// admin API in the app); the consent and payment screens are callbacks (dialogs in the UI).
// Browser-safe.
import { EmbedError } from '../embed/embed-error';
import type { Product } from './schema';

export const IAP_SDK_MESSAGES = {
  notLoggedIn: 'Need access_token for api call, Please login first',
  externalBrowser: 'In-App Purchase is not allowed in external browser',
  notAllowed: 'In-App Purchase is not allowed in this embedded app',
  declined: 'The user did not agree to the terms.',
  // Not in the platform's table: the emulator's words for a cancelled or impossible payment.
  canceled: 'The payment was canceled by the user.',
  unknownProduct: 'The product does not exist in the store.',
} as const;

export interface IapSdkEnvironment {
  /** The user is logged in: the SDK has an access token. */
  loggedIn: boolean;
  /** Inside the messaging client, not an external browser. */
  inClient: boolean;
  /** The embedded app supports in-app purchase. */
  iapAllowed: boolean;
}

export interface IapSdkBackend {
  /** The store's catalogue for the app's channel. */
  products(): Promise<Product[]>;
  termsAgreed(): Promise<boolean>;
  agreeToTerms(): Promise<void>;
  /** The store took the money: the platform settles the order and sends purchaseComplete. */
  completePayment(orderId: string): Promise<void>;
}

export interface IapSdkScreens {
  /** The consent screen: true when the user agrees. */
  consent(): Promise<boolean>;
  /** The app store's payment screen: true when the user pays. */
  payment(product: Product, orderId: string): Promise<boolean>;
}

export type PlatformProducts = Record<
  string,
  { currency: string; price: number; productName: string }
>;

export class IapSdkSimulator {
  constructor(
    private readonly environment: IapSdkEnvironment,
    private readonly backend: IapSdkBackend,
    private readonly screens: IapSdkScreens,
  ) {}

  private check(): void {
    if (!this.environment.loggedIn)
      throw new EmbedError('UNAUTHORIZED', IAP_SDK_MESSAGES.notLoggedIn);
    if (!this.environment.inClient)
      throw new EmbedError('FORBIDDEN', IAP_SDK_MESSAGES.externalBrowser);
    if (!this.environment.iapAllowed)
      throw new EmbedError('FORBIDDEN', IAP_SDK_MESSAGES.notAllowed);
  }

  /** Products the store knows, keyed by ID; IDs it does not know are left out. */
  async getPlatformProducts({ productIds }: { productIds: string[] }): Promise<PlatformProducts> {
    this.check();
    const wanted = new Set(productIds);
    const out: PlatformProducts = {};
    for (const p of await this.backend.products())
      if (wanted.has(p.productId))
        out[p.productId] = { currency: p.currency, price: p.price, productName: p.productName };
    return out;
  }

  async requestConsentAgreement(): Promise<void> {
    this.check();
    if (await this.backend.termsAgreed()) return;
    if (!(await this.screens.consent()))
      throw new EmbedError('FORBIDDEN', IAP_SDK_MESSAGES.declined);
    await this.backend.agreeToTerms();
  }

  async createPayment({
    productId,
    orderId,
  }: {
    productId: string;
    orderId: string;
  }): Promise<void> {
    this.check();
    const product = (await this.backend.products()).find((p) => p.productId === productId);
    if (!product) throw new EmbedError('INVALID_ARGUMENT', IAP_SDK_MESSAGES.unknownProduct);
    if (!(await this.screens.payment(product, orderId)))
      throw new EmbedError('CANCELED', IAP_SDK_MESSAGES.canceled);
    await this.backend.completePayment(orderId);
  }
}
