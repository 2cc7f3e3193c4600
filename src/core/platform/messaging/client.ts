// Typed client for the old mark-as-read call (`POST /v2/bot/message/markAsRead`,
// docs/platform-api.md#messaging).
import { z } from 'zod';
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';

export class MessagingClient {
  private readonly http: PlatformHttp;

  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  /** Shows "Read" on every message the user sent the channel. */
  async markAsRead(userId: string): Promise<void> {
    await this.http.request('POST', '/v2/bot/message/markAsRead', {
      body: { chat: { userId } },
      schema: z.object({}),
    });
  }
}
