// Typed client for login and tokens (docs/platform-api.md#login-endpoints), v2.1 and v2.0. OAuth
// error bodies become OAuthError (error, error_description, status, request id); other failures
// stay PlatformError.
import { z } from 'zod';
import { PlatformError, PlatformHttp, type HttpOptions } from '../http';
import {
  friendshipSchema,
  idTokenPayloadSchema,
  oauthErrorSchema,
  profileSchema,
  tokenSetSchema,
  userInfoSchema,
  verifyResultSchema,
  type Friendship,
  type IdTokenPayload,
  type Profile,
  type TokenSet,
  type UserInfo,
  type VerifyResult,
} from './schema';

export class OAuthError extends PlatformError {
  readonly error: string;
  readonly errorDescription: string | undefined;

  constructor(cause: PlatformError, body: z.infer<typeof oauthErrorSchema>) {
    super(cause.method, cause.path, cause.status, body, cause.requestId);
    this.name = 'OAuthError';
    this.error = body.error;
    this.errorDescription = body.error_description;
    this.message = `${cause.method} ${cause.path} answered ${cause.status}: ${body.error}${
      body.error_description ? ` (${body.error_description})` : ''
    }`;
  }
}

const refreshSetSchema = tokenSetSchema.omit({ id_token: true });
export type RefreshedTokens = z.infer<typeof refreshSetSchema>;

interface ClientCredentials {
  clientId: string;
  /** Omit to send no `client_secret` (Mobile app channels on refresh and revoke). */
  clientSecret?: string;
}

/** Fields with a value; undefined ones are not sent at all. */
function defined(fields: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export class LoginClient {
  private readonly http: PlatformHttp;

  /** Login calls carry their own credentials, so no channel token is sent by default. */
  constructor(baseUrl: string, options?: HttpOptions) {
    this.http = new PlatformHttp({ baseUrl }, options);
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof PlatformError) {
        const body = oauthErrorSchema.safeParse(err.body);
        if (body.success) throw new OAuthError(err, body.data);
      }
      throw err;
    }
  }

  private post<T>(path: string, form: Record<string, string | undefined>, schema?: z.ZodType<T>) {
    return this.call(() => this.http.request<T>('POST', path, { form: defined(form), schema }));
  }

  // ---- v2.1 ----

  issueToken(
    input: ClientCredentials & { code: string; redirectUri: string; codeVerifier?: string },
  ): Promise<TokenSet> {
    return this.post(
      '/oauth2/v2.1/token',
      {
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        client_id: input.clientId,
        client_secret: input.clientSecret,
        code_verifier: input.codeVerifier,
      },
      tokenSetSchema,
    );
  }

  refreshToken(input: ClientCredentials & { refreshToken: string }): Promise<RefreshedTokens> {
    return this.post(
      '/oauth2/v2.1/token',
      {
        grant_type: 'refresh_token',
        refresh_token: input.refreshToken,
        client_id: input.clientId,
        client_secret: input.clientSecret,
      },
      refreshSetSchema,
    );
  }

  verifyAccessToken(accessToken: string): Promise<VerifyResult> {
    return this.call(() =>
      this.http.request('GET', '/oauth2/v2.1/verify', {
        query: { access_token: accessToken },
        schema: verifyResultSchema,
      }),
    );
  }

  revokeAccessToken(input: ClientCredentials & { accessToken: string }): Promise<void> {
    return this.post('/oauth2/v2.1/revoke', {
      access_token: input.accessToken,
      client_id: input.clientId,
      client_secret: input.clientSecret,
    });
  }

  verifyIdToken(input: {
    idToken: string;
    clientId: string;
    nonce?: string;
    userId?: string;
  }): Promise<IdTokenPayload> {
    return this.post(
      '/oauth2/v2.1/verify',
      {
        id_token: input.idToken,
        client_id: input.clientId,
        nonce: input.nonce,
        user_id: input.userId,
      },
      idTokenPayloadSchema,
    );
  }

  userInfo(accessToken: string, method: 'GET' | 'POST' = 'GET'): Promise<UserInfo> {
    return this.call(() =>
      this.http.request(method, '/oauth2/v2.1/userinfo', {
        headers: bearer(accessToken),
        schema: userInfoSchema,
      }),
    );
  }

  /** Deauthorize is the one call made with the channel access token. */
  deauthorize(userAccessToken: string, channelAccessToken: string): Promise<void> {
    return this.call(() =>
      this.http.request('POST', '/user/v1/deauthorize', {
        body: { userAccessToken },
        headers: bearer(channelAccessToken),
      }),
    );
  }

  /** `/v2/profile`, the same path in v2.1 and v2.0. */
  profile(accessToken: string): Promise<Profile> {
    return this.call(() =>
      this.http.request('GET', '/v2/profile', {
        headers: bearer(accessToken),
        schema: profileSchema,
      }),
    );
  }

  friendship(accessToken: string): Promise<Friendship> {
    return this.call(() =>
      this.http.request('GET', '/friendship/v1/status', {
        headers: bearer(accessToken),
        schema: friendshipSchema,
      }),
    );
  }

  // ---- v2.0 (deprecated) ----

  issueTokenV20(
    input: Required<ClientCredentials> & { code: string; redirectUri: string },
  ): Promise<TokenSet> {
    return this.post(
      '/v2/oauth/accessToken',
      {
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        client_id: input.clientId,
        client_secret: input.clientSecret,
      },
      tokenSetSchema,
    );
  }

  refreshTokenV20(
    input: Required<ClientCredentials> & { refreshToken: string },
  ): Promise<RefreshedTokens> {
    return this.post(
      '/v2/oauth/accessToken',
      {
        grant_type: 'refresh_token',
        refresh_token: input.refreshToken,
        client_id: input.clientId,
        client_secret: input.clientSecret,
      },
      refreshSetSchema,
    );
  }

  verifyAccessTokenV20(accessToken: string): Promise<VerifyResult> {
    return this.post('/v2/oauth/verify', { access_token: accessToken }, verifyResultSchema);
  }

  revokeV20(refreshToken: string): Promise<void> {
    return this.post('/v2/oauth/revoke', { refresh_token: refreshToken });
  }
}
