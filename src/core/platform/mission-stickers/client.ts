// Typed client for mission stickers (`POST /shop/v3/mission`,
// docs/platform-api.md#mission-stickers).
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';

export class MissionStickersClient {
  private readonly http: PlatformHttp;

  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  /** Lets the user download the sticker set; the platform answers 200 with an empty body. */
  async send(to: string, productId: string): Promise<void> {
    await this.http.request('POST', '/shop/v3/mission', {
      body: { to, productType: 'STICKER', productId, sendPresentMessage: false },
    });
  }
}
