// Typed client for the login emulator's admin routes (`/__admin/login`), used by the app's
// login console and by tests.
import { z } from 'zod';
import { PlatformHttp, type HttpOptions } from '../http';
import { pathSegment } from '../url-text';
import {
  channelSettingsSchema,
  friendshipStateSchema,
  mintedCodeSchema,
  profileExtrasSchema,
  tokenStateSchema,
  type AppType,
  type MintCodeInput,
} from './schema';

export class LoginAdminClient {
  private readonly http: PlatformHttp;

  constructor(adminUrl: string, options?: HttpOptions) {
    this.http = new PlatformHttp({ baseUrl: `${adminUrl}/login` }, { maxRetries: 0, ...options });
  }

  channels() {
    return this.http.request('GET', '/channels', { schema: z.array(channelSettingsSchema) });
  }

  saveChannel(channelId: string, input: { appType?: AppType; linkedAccount?: string | null }) {
    return this.http.request('PUT', `/channels/${pathSegment(channelId, 'channelId')}`, {
      body: input,
      schema: channelSettingsSchema,
    });
  }

  users() {
    return this.http.request('GET', '/users', { schema: z.array(profileExtrasSchema) });
  }

  saveProfile(
    userId: string,
    input: { pictureUrl?: string | null; statusMessage?: string | null; email?: string | null },
  ) {
    return this.http.request('PUT', `/users/${pathSegment(userId, 'userId')}/profile`, {
      body: input,
      schema: profileExtrasSchema,
    });
  }

  friendship(channelId: string, userId: string) {
    return this.http.request('GET', '/friendships', {
      query: { channelId, userId },
      schema: friendshipStateSchema,
    });
  }

  setFriendship(input: { channelId: string; userId: string; friend: boolean; blocked: boolean }) {
    return this.http.request('PUT', '/friendships', { body: input, schema: friendshipStateSchema });
  }

  mintCode(input: MintCodeInput) {
    return this.http.request('POST', '/codes', { body: input, schema: mintedCodeSchema });
  }

  tokenState(accessToken: string) {
    return this.http.request('GET', `/tokens/${pathSegment(accessToken, 'accessToken')}`, {
      schema: tokenStateSchema,
    });
  }
}
