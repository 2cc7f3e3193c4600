// Typed clients for service messages (`/message/v3/notifier`,
// docs/platform-api.md#service-messages) and the emulator's admin routes of the area (templates,
// messages sent).
import { z } from 'zod';
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import {
  notificationTokenSchema,
  sentServiceMessageSchema,
  templateSchema,
  type NotificationToken,
  type SendServiceMessage,
  type SentServiceMessage,
  type Template,
} from './schema';

export class ServiceMessagesClient {
  private readonly http: PlatformHttp;

  /**
   * `target.channelAccessToken`: stateless or short-lived on mini app channels
   * (docs/platform-api.md#service-messages).
   */
  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  issueToken(embedAccessToken: string): Promise<NotificationToken> {
    return this.http.request('POST', '/message/v3/notifier/token', {
      body: { embedAccessToken },
      schema: notificationTokenSchema,
    });
  }

  /** Answers the renewed token; keep it, the one sent no longer works. */
  send(message: SendServiceMessage): Promise<NotificationToken> {
    return this.http.request('POST', '/message/v3/notifier/send', {
      query: { target: 'service' },
      body: message,
      schema: notificationTokenSchema,
    });
  }
}

/** The emulator's `/__admin/service-messages` routes. */
export class ServiceMessagesAdminClient {
  private readonly http: PlatformHttp;

  constructor(adminUrl: string, options?: HttpOptions) {
    this.http = new PlatformHttp(
      { baseUrl: `${adminUrl}/service-messages` },
      { maxRetries: 0, ...options },
    );
  }

  templates(): Promise<Template[]> {
    return this.http.request('GET', '/templates', { schema: z.array(templateSchema) });
  }

  sent(channelId: string): Promise<SentServiceMessage[]> {
    return this.http.request('GET', '/messages', {
      query: { channelId },
      schema: z.array(sentServiceMessageSchema),
    });
  }
}
