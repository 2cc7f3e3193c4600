// Typed clients for the embedded-app server API (`/embed/v1/apps`, docs/platform-api.md#embed) and
// for the emulator's admin routes of the mini-app channel (settings, channel tokens of each kind).
import { PlatformHttp, PlatformError, type HttpOptions, type PlatformTarget } from '../http';
import { pathSegment } from '../url-text';
import {
  addEmbedAppResultSchema,
  channelSettingsSchema,
  channelTokenSchema,
  embedAppListSchema,
  type AddEmbedApp,
  type ChannelSettings,
  type ChannelToken,
  type ChannelTokenKind,
  type EmbedApp,
  type UpdateEmbedApp,
} from './schema';

export class EmbedClient {
  private readonly http: PlatformHttp;

  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  async addApp(app: AddEmbedApp): Promise<string> {
    const { embedId } = await this.http.request('POST', '/embed/v1/apps', {
      body: app,
      schema: addEmbedAppResultSchema,
    });
    return embedId;
  }

  updateApp(embedId: string, changes: UpdateEmbedApp): Promise<void> {
    return this.http.request('PUT', `/embed/v1/apps/${pathSegment(embedId, 'embedId')}`, {
      body: changes,
    });
  }

  /** The channel's apps; the platform's 404 for a channel with none comes back as []. */
  async listApps(): Promise<EmbedApp[]> {
    try {
      return (await this.http.request('GET', '/embed/v1/apps', { schema: embedAppListSchema }))
        .apps;
    } catch (err) {
      if (err instanceof PlatformError && err.status === 404) return [];
      throw err;
    }
  }

  deleteApp(embedId: string): Promise<void> {
    return this.http.request('DELETE', `/embed/v1/apps/${pathSegment(embedId, 'embedId')}`);
  }
}

/** The emulator's `/__admin/embed` routes. */
export class EmbedAdminClient {
  private readonly http: PlatformHttp;

  constructor(adminUrl: string, options?: HttpOptions) {
    this.http = new PlatformHttp({ baseUrl: `${adminUrl}/embed` }, { maxRetries: 0, ...options });
  }

  channel(channelId: string): Promise<ChannelSettings> {
    return this.http.request('GET', `/channels/${pathSegment(channelId, 'channelId')}`, {
      schema: channelSettingsSchema,
    });
  }

  updateChannel(
    channelId: string,
    changes: Partial<Omit<ChannelSettings, 'channelId'>>,
  ): Promise<ChannelSettings> {
    return this.http.request('PUT', `/channels/${pathSegment(channelId, 'channelId')}`, {
      body: changes,
      schema: channelSettingsSchema,
    });
  }

  issueChannelToken(
    channelId: string,
    kind: ChannelTokenKind,
    expiresIn?: number,
  ): Promise<ChannelToken> {
    return this.http.request('POST', '/channel-tokens', {
      body: { channelId, kind, expiresIn },
      schema: channelTokenSchema,
    });
  }
}
