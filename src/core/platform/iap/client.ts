// Typed clients for the in-app purchase server API (`/iap/v1`, docs/platform-api.md#iap-server) and
// the emulator's admin routes of the area (catalogue, users, orders and their completion or
// refund).
import { z } from 'zod';
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import { pathSegment } from '../url-text';
import {
  historyPageSchema,
  iapUserStateSchema,
  orderSchema,
  productSchema,
  reserveResultSchema,
  settledOrderSchema,
  type HistoryPage,
  type HistoryQuery,
  type IapUserState,
  type Order,
  type Product,
  type ReserveInput,
  type SettledOrder,
} from './schema';

export class IapClient {
  /** `target.channelAccessToken` is the channel's, for the history; reserve takes a user's. */
  constructor(
    private readonly target: PlatformTarget,
    private readonly options?: HttpOptions,
  ) {}

  /**
   * Reserve purchase with the current user's access token (docs/platform-api.md#iap-client).
   * Every field is a string on the wire; the platform checks the rules and answers
   * VALIDATION_ERROR.
   */
  async reserve(
    userAccessToken: string,
    input: Record<keyof ReserveInput, string>,
  ): Promise<string> {
    const http = new PlatformHttp(
      { baseUrl: this.target.baseUrl, channelAccessToken: userAccessToken },
      this.options,
    );
    const { orderId } = await http.request('POST', '/iap/v1/product/reserve', {
      body: input,
      schema: reserveResultSchema,
    });
    return orderId;
  }

  webhookHistory(query: HistoryQuery): Promise<HistoryPage> {
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) params[key] = String(value);
    return new PlatformHttp(this.target, this.options).request('GET', '/iap/v1/webhook/events', {
      query: params,
      schema: historyPageSchema,
    });
  }
}

/** The emulator's `/__admin/iap` routes. */
export class IapAdminClient {
  private readonly http: PlatformHttp;

  constructor(adminUrl: string, options?: HttpOptions) {
    this.http = new PlatformHttp({ baseUrl: `${adminUrl}/iap` }, { maxRetries: 0, ...options });
  }

  products(channelId: string): Promise<Product[]> {
    return this.http.request('GET', '/products', {
      query: { channelId },
      schema: z.array(productSchema),
    });
  }

  putProduct(channelId: string, product: Product): Promise<Product> {
    return this.http.request('PUT', '/products', {
      body: { ...product, channelId },
      schema: productSchema,
    });
  }

  deleteProduct(channelId: string, productId: string): Promise<void> {
    return this.http.request(
      'DELETE',
      `/products/${pathSegment(channelId, 'channelId')}/${pathSegment(productId, 'productId')}`,
    );
  }

  user(userId: string): Promise<IapUserState> {
    return this.http.request('GET', `/users/${pathSegment(userId, 'userId')}`, {
      schema: iapUserStateSchema,
    });
  }

  setUser(userId: string, changes: Partial<Omit<IapUserState, 'userId'>>): Promise<IapUserState> {
    return this.http.request('PUT', `/users/${pathSegment(userId, 'userId')}`, {
      body: changes,
      schema: iapUserStateSchema,
    });
  }

  orders(channelId: string): Promise<Order[]> {
    return this.http.request('GET', '/orders', {
      query: { channelId },
      schema: z.array(orderSchema),
    });
  }

  complete(orderId: string): Promise<SettledOrder> {
    return this.http.request('POST', `/orders/${pathSegment(orderId, 'orderId')}/complete`, {
      schema: settledOrderSchema,
    });
  }

  refund(orderId: string): Promise<SettledOrder> {
    return this.http.request('POST', `/orders/${pathSegment(orderId, 'orderId')}/refund`, {
      schema: settledOrderSchema,
    });
  }
}
