// Typed client for notification messages by phone number (docs/platform-api.md#notifications):
// template and flexible sends to a hashed number, with an optional delivery tag, and the daily
// counts.
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import {
  countSchema,
  DELIVERY_TAG_HEADER,
  type DeliveryCount,
  type FlexibleBody,
  type NotificationKind,
  type TemplateBody,
} from './schema';
import { z } from 'zod';

const COUNT_PATHS: Record<NotificationKind, string> = {
  template: '/v2/bot/message/delivery/pnp/templated',
  flexible: '/v2/bot/message/delivery/pnp',
};

export class NotificationsClient {
  private readonly http: PlatformHttp;

  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  private headers(deliveryTag: string | undefined): Record<string, string> {
    return deliveryTag ? { [DELIVERY_TAG_HEADER]: deliveryTag } : {};
  }

  /** 202 on success. */
  async sendTemplate(body: TemplateBody, deliveryTag?: string): Promise<void> {
    await this.http.request('POST', '/v2/bot/message/pnp/templated/push', {
      body,
      headers: this.headers(deliveryTag),
      schema: z.unknown(),
    });
  }

  async sendFlexible(body: FlexibleBody, deliveryTag?: string): Promise<void> {
    await this.http.request('POST', '/bot/pnp/push', {
      body,
      headers: this.headers(deliveryTag),
      schema: z.unknown(),
    });
  }

  /** `date` is yyyyMMdd in UTC+9. */
  count(kind: NotificationKind, date: string): Promise<DeliveryCount> {
    return this.http.request('GET', COUNT_PATHS[kind], { query: { date }, schema: countSchema });
  }
}
