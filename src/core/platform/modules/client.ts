// Typed client for module channels (docs/platform-api.md#modules): attach on the manager URL (form
// body, Basic auth or client_secret), and detach, chat control and the bot list with the module
// channel's token. The bot-user-ID header's name is an option because the platform omits it.
import { z } from 'zod';
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import { pathSegment } from '../url-text';
import {
  attachResponseSchema,
  botListSchema,
  DEFAULT_BOT_USER_ID_HEADER,
  type AcquireInput,
  type AttachResponse,
  type BotList,
} from './schema';

export interface ModulesClientOptions extends HttpOptions {
  /** Where `/module/auth/v1/token` lives; the platform's base URL when omitted. */
  managerBaseUrl?: string;
  botUserIdHeader?: string;
}

export interface AttachInput {
  code: string;
  redirectUri: string;
  codeVerifier?: string;
  region?: string;
  basicSearchId?: string;
  scope?: string;
  brandType?: string;
}

export interface ModuleCredentials {
  channelId: string;
  channelSecret: string;
  /** `basic`: Authorization: Basic header; `form`: client_id and client_secret in the body. */
  via: 'basic' | 'form';
}

export class ModulesClient {
  private readonly http: PlatformHttp;
  private readonly manager: PlatformHttp;
  private readonly header: string;

  constructor(target: PlatformTarget, options: ModulesClientOptions = {}) {
    const { managerBaseUrl, botUserIdHeader, ...http } = options;
    this.http = new PlatformHttp(target, http);
    this.manager = new PlatformHttp({ baseUrl: managerBaseUrl ?? target.baseUrl }, http);
    this.header = botUserIdHeader ?? DEFAULT_BOT_USER_ID_HEADER;
  }

  attach(input: AttachInput, credentials: ModuleCredentials): Promise<AttachResponse> {
    const form: Record<string, string> = {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
    };
    const optional = {
      code_verifier: input.codeVerifier,
      region: input.region,
      basic_search_id: input.basicSearchId,
      scope: input.scope,
      brand_type: input.brandType,
    };
    for (const [k, v] of Object.entries(optional)) if (v) form[k] = v;
    const headers: Record<string, string> = {};
    if (credentials.via === 'basic')
      headers.authorization = `Basic ${btoa(`${credentials.channelId}:${credentials.channelSecret}`)}`;
    else
      Object.assign(form, {
        client_id: credentials.channelId,
        client_secret: credentials.channelSecret,
      });
    return this.manager.request('POST', '/module/auth/v1/token', {
      form,
      headers,
      schema: attachResponseSchema,
    });
  }

  async detach(botId: string): Promise<void> {
    await this.http.request('POST', '/v2/bot/channel/detach', {
      body: { botId },
      schema: z.unknown(),
    });
  }

  async acquireControl(chatId: string, botId: string, input: AcquireInput = {}): Promise<void> {
    await this.http.request(
      'POST',
      `/v2/bot/chat/${pathSegment(chatId, 'chatId')}/control/acquire`,
      {
        body: input,
        headers: { [this.header]: botId },
        schema: z.unknown(),
      },
    );
  }

  async releaseControl(chatId: string, botId: string): Promise<void> {
    await this.http.request(
      'POST',
      `/v2/bot/chat/${pathSegment(chatId, 'chatId')}/control/release`,
      {
        // docs/platform-api.md#modules-endpoints: acquire's headers, and no body.
        headers: { 'content-type': 'application/json', [this.header]: botId },
        schema: z.unknown(),
      },
    );
  }

  listBots(options: { limit?: number; start?: string } = {}): Promise<BotList> {
    const query: Record<string, string> = {};
    if (options.limit !== undefined) query.limit = String(options.limit);
    if (options.start) query.start = options.start;
    return this.http.request('GET', '/v2/bot/list', { query, schema: botListSchema });
  }
}
