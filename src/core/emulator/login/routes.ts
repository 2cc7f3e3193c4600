// Login emulator (docs/platform-api.md#login): issue, refresh, verify and revoke in v2.1 and v2.0,
// ID token verification, deauthorize, userinfo, profile and friendship, with the token lifecycle of
// docs/platform-api.md#login-lifecycle on the virtual clock. The admin API (admin-routes.ts) stands
// in for the authorization request.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorArea, EmulatorContext } from '../area';
import { acceptForms, FormBody } from '../form-body';
import { adminRoutes } from './admin-routes';
import { refuseClient } from '../client-auth';
import { openIdConfiguration } from './discovery';
import { checkIdToken, signIdToken } from '../../platform/login/id-token';
import {
  hasProfileScope,
  issuerOf,
  oauthBody,
  oauthError,
  readClientForm,
  readForm,
  refuseUserToken,
  requireFields,
  scopeString,
  userTokenOr401,
} from './oauth-reply';
import {
  ACCESS_TOKEN_TTL_MS,
  CODE_VERIFIER_PATTERN,
  ID_TOKEN_TTL_MS,
  REFRESH_TOKEN_V20_GRACE_MS,
  REFRESH_TOKEN_V21_TTL_MS,
  secretRequired,
  V20_SCOPE,
  type ApiVersion,
  type IdTokenPayload,
  type MintedCode,
} from '../../platform/login/schema';
import { LoginState, migrateLogin, randomToken } from './state';

const NONE = { config: { auth: 'none' as const } };
const seconds = (ms: number) => Math.floor(ms / 1000);

/** Revoke's answer to RFC 7009's `token` alone: what to send instead (docs/platform-api.md). */
const REVOKE_TAKES_ACCESS_TOKEN =
  "access_token is required (this endpoint does not read RFC 7009's token: send the access token as access_token)";

function routes(app: FastifyInstance, ctx: EmulatorContext): void {
  // An encapsulated scope, so the form parser applies to these routes and no other area's.
  void app.register(async (scope) => {
    acceptForms(scope);
    loginRoutes(scope, ctx);
  });
}

function loginRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { clock, userTokens } = ctx;
  const state = new LoginState(ctx.db, ctx.directory, () => clock.now());

  /** The channel named by client_id, checking client_secret when `secret` says so. */
  function client(fields: Record<string, string>, reply: FastifyReply, secret: 'always' | 'rule') {
    const wrongClient = (description: string) =>
      refuseClient(reply, oauthBody('invalid_client', description), () =>
        oauthError(reply, 400, 'invalid_client', description),
      );
    const channel = state.channel(fields.client_id ?? '');
    if (!channel) {
      wrongClient(`client_id ${fields.client_id} is not a channel`);
      return undefined;
    }
    const needed = secret === 'always' || secretRequired(state.settings(channel).appType);
    if (!needed) return channel;
    if (!fields.client_secret) {
      oauthError(
        reply,
        400,
        'invalid_request',
        secret === 'always'
          ? 'client_secret is required'
          : 'client_secret is required: the channel is a Web app only channel',
      );
      return undefined;
    }
    if (fields.client_secret !== channel.channelSecret) {
      wrongClient('client_secret does not match the channel');
      return undefined;
    }
    return channel;
  }

  function pkceProblem(code: MintedCode, verifier: string | undefined): string | undefined {
    if (!code.codeChallenge)
      return verifier === undefined
        ? undefined
        : 'code_verifier was given but the authorization request had no code_challenge';
    if (verifier === undefined)
      return 'code_verifier is required: the authorization request had a code_challenge';
    const derived =
      code.codeChallengeMethod === 'plain'
        ? verifier
        : createHash('sha256').update(verifier).digest('base64url');
    return derived === code.codeChallenge
      ? undefined
      : `code_verifier does not match the code_challenge (${code.codeChallengeMethod ?? 'S256'})`;
  }

  async function issue(version: ApiVersion, fields: Record<string, string>, reply: FastifyReply) {
    if (!requireFields(fields, ['code', 'redirect_uri', 'client_id', 'client_secret'], reply))
      return;
    const channel = client(fields, reply, 'always');
    if (!channel) return;
    const verifier = fields.code_verifier;
    if (verifier !== undefined && !CODE_VERIFIER_PATTERN.test(verifier))
      return oauthError(
        reply,
        400,
        'invalid_request',
        `code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (got ${verifier.length})`,
      );
    const found = state.code(fields.code as string);
    if (!found || found.code.channelId !== channel.channelId)
      return oauthError(reply, 400, 'invalid_grant', 'code is not a code issued to this channel');
    const { code } = found;
    if (found.usedAt !== undefined)
      return oauthError(reply, 400, 'invalid_grant', 'code has already been used');
    if (clock.now() >= code.expiresAt)
      return oauthError(reply, 400, 'invalid_grant', 'code expired (codes live 10 minutes)');
    if (fields.redirect_uri !== code.redirectUri)
      return oauthError(
        reply,
        400,
        'invalid_grant',
        'redirect_uri does not match the authorization request',
      );
    const pkce = pkceProblem(code, verifier);
    if (pkce) return oauthError(reply, 400, 'invalid_grant', pkce);
    const user = state.profile(code.userId);
    if (!user) return oauthError(reply, 400, 'invalid_grant', 'the code’s user no longer exists');

    state.useCode(code.code);
    const scopes = version === '2.0' ? [V20_SCOPE] : code.scopes;
    const access = userTokens.mint({
      userId: code.userId,
      channelId: channel.channelId,
      scopes,
      version,
    });
    const refreshToken = randomToken(32);
    state.saveRefresh({
      token: refreshToken,
      version,
      channelId: channel.channelId,
      userId: code.userId,
      scopes,
      accessToken: access.accessToken,
      expiresAt:
        version === '2.0'
          ? access.expiresAt + REFRESH_TOKEN_V20_GRACE_MS
          : access.issuedAt + REFRESH_TOKEN_V21_TTL_MS,
    });
    const expiresIn = seconds(ACCESS_TOKEN_TTL_MS);
    if (version === '2.0')
      return {
        access_token: access.accessToken,
        expires_in: expiresIn,
        refresh_token: refreshToken,
        scope: V20_SCOPE,
        token_type: 'Bearer',
      };

    let idToken: string | undefined;
    if (scopes.includes('openid')) {
      const iat = seconds(access.issuedAt);
      const claims: IdTokenPayload = {
        iss: issuerOf(reply.request),
        sub: code.userId,
        aud: channel.channelId,
        exp: seconds(access.issuedAt + ID_TOKEN_TTL_MS),
        iat,
      };
      if (code.maxAge !== undefined) claims.auth_time = seconds(code.issuedAt);
      if (code.nonce !== undefined) claims.nonce = code.nonce;
      if (code.amr.length) claims.amr = code.amr;
      if (scopes.includes('profile')) {
        claims.name = user.displayName;
        if (user.pictureUrl) claims.picture = user.pictureUrl;
      }
      if (scopes.includes('email') && user.email) claims.email = user.email;
      idToken = await signIdToken(claims, channel.channelSecret);
    }
    return {
      access_token: access.accessToken,
      expires_in: expiresIn,
      ...(idToken && { id_token: idToken }),
      refresh_token: refreshToken,
      scope: scopeString(scopes),
      token_type: 'Bearer',
    };
  }

  function refresh(version: ApiVersion, fields: Record<string, string>, reply: FastifyReply) {
    const required = [
      'refresh_token',
      'client_id',
      ...(version === '2.0' ? ['client_secret'] : []),
    ];
    if (!requireFields(fields, required, reply)) return;
    const channel = client(fields, reply, version === '2.0' ? 'always' : 'rule');
    if (!channel) return;
    const old = state.refresh(fields.refresh_token as string);
    if (
      !old ||
      old.channelId !== channel.channelId ||
      old.version !== version ||
      state.refreshState(old) !== 'valid'
    )
      return oauthError(reply, 400, 'invalid_grant', 'invalid refresh_token');

    const access = userTokens.mint({
      userId: old.userId,
      channelId: old.channelId,
      scopes: old.scopes,
      version,
    });
    // Counted from this call: the new token was minted now.
    const expiresIn = seconds(access.expiresAt - access.issuedAt);
    if (version === '2.1') {
      state.moveRefresh(old.token, access.accessToken);
      return {
        access_token: access.accessToken,
        token_type: 'Bearer',
        refresh_token: old.token,
        expires_in: expiresIn,
        scope: scopeString(old.scopes),
      };
    }
    const next = randomToken(32);
    state.markReplaced(old.token);
    state.saveRefresh({
      ...old,
      token: next,
      accessToken: access.accessToken,
      expiresAt: access.expiresAt + REFRESH_TOKEN_V20_GRACE_MS,
    });
    return {
      token_type: 'Bearer',
      scope: V20_SCOPE,
      access_token: access.accessToken,
      expires_in: expiresIn,
      refresh_token: next,
    };
  }

  function tokenEndpoint(version: ApiVersion) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const fields = readClientForm(request, reply);
      if (!fields) return;
      const grant = fields.grant_type;
      if (!grant) return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
      if (grant === 'authorization_code') return issue(version, fields, reply);
      if (grant === 'refresh_token') return refresh(version, fields, reply);
      return oauthError(
        reply,
        400,
        'unsupported_grant_type',
        `grant_type must be authorization_code or refresh_token, not ${grant}`,
      );
    };
  }

  function verifyAccess(accessToken: string | undefined, reply: FastifyReply) {
    if (!accessToken) return oauthError(reply, 400, 'invalid_request', 'access_token is required');
    const token = userTokens.active(accessToken);
    if (!token) return oauthError(reply, 400, 'invalid_request', 'access_token invalid');
    return {
      scope: scopeString(token.scopes),
      client_id: token.channelId,
      expires_in: seconds(token.expiresAt - clock.now()),
    };
  }

  /** Revokes an access token and the login session (refresh token) it belongs to. */
  function revokeSession(accessToken: string) {
    userTokens.revoke(accessToken);
    const session = state.refreshFor(accessToken);
    if (session) state.revokeRefresh(session.token);
  }

  app.get('/.well-known/openid-configuration', NONE, async (request) =>
    openIdConfiguration(issuerOf(request)),
  );
  app.post('/oauth2/v2.1/token', NONE, tokenEndpoint('2.1'));
  app.post('/v2/oauth/accessToken', NONE, tokenEndpoint('2.0'));

  app.get<{ Querystring: { access_token?: string } }>(
    '/oauth2/v2.1/verify',
    NONE,
    async (request, reply) => verifyAccess(request.query.access_token, reply),
  );
  app.post('/v2/oauth/verify', NONE, async (request, reply) => {
    const fields = readForm(request, reply);
    if (fields) return verifyAccess(fields.access_token, reply);
  });

  app.post('/oauth2/v2.1/verify', NONE, async (request, reply) => {
    const fields = readClientForm(request, reply);
    if (!fields || !requireFields(fields, ['id_token', 'client_id'], reply)) return;
    const report = await checkIdToken(
      fields.id_token as string,
      (aud) => state.channel(aud)?.channelSecret,
      {
        issuer: issuerOf(request),
        clientId: fields.client_id as string,
        nonce: fields.nonce || undefined,
        userId: fields.user_id || undefined,
        nowSeconds: seconds(clock.now()),
      },
    );
    if (report.error) return oauthError(reply, 400, 'invalid_request', report.error);
    return report.payload;
  });

  app.post('/oauth2/v2.1/revoke', NONE, async (request, reply) => {
    const fields = readClientForm(request, reply);
    if (!fields) return;
    // The seed's revoke takes `access_token` and `client_id`. RFC 7009's `token`, which standard
    // OAuth clients send, is not read, so a client sending only it is refused here as it would
    // be by the platform (docs/decisions/platform-contract.md, "Revocation takes access_token").
    if (!fields.access_token && fields.token)
      return oauthError(reply, 400, 'invalid_request', REVOKE_TAKES_ACCESS_TOKEN);
    if (!requireFields(fields, ['access_token', 'client_id'], reply)) return;
    const channel = client(fields, reply, 'rule');
    if (!channel) return;
    const token = userTokens.get(fields.access_token as string);
    if (token && token.channelId !== channel.channelId)
      return oauthError(
        reply,
        400,
        'invalid_request',
        'access_token was issued to another channel than client_id',
      );
    // RFC 7009 §2.2: an unknown or already invalid token is not an error.
    if (token) revokeSession(token.accessToken);
    return reply.code(200).send();
  });

  app.post('/v2/oauth/revoke', NONE, async (request, reply) => {
    const fields = readForm(request, reply);
    if (!fields || !requireFields(fields, ['refresh_token'], reply)) return;
    const session = state.refresh(fields.refresh_token as string);
    if (session && session.version === '2.0') {
      state.revokeRefresh(session.token);
      userTokens.revoke(session.accessToken);
    }
    return reply.code(200).send();
  });

  app.post('/user/v1/deauthorize', async (request, reply) => {
    const body = request.body instanceof FormBody ? request.body.fields : request.body;
    const value = (body as { userAccessToken?: unknown } | undefined)?.userAccessToken;
    const problem = (message: string) =>
      reply.code(400).send({
        message: `userAccessToken: ${message}`,
        details: [{ property: 'userAccessToken', message }],
      });
    if (typeof value !== 'string' || !value) return problem('is required (a string)');
    const token = userTokens.get(value);
    const channelId = request.channel?.channelId;
    if (!token || token.channelId !== channelId)
      return problem('is not a user access token issued to this channel');
    const current = userTokens.state(token);
    if (current === 'deauthorized')
      return reply.code(400).send({ message: 'The app is already deauthorized for this user.' });
    if (current !== 'valid') return problem(`the access token is ${current}`);
    userTokens.deauthorize(token);
    state.revokeUserRefresh(token.channelId, token.userId);
    return reply.code(204).send();
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/oauth2/v2.1/userinfo',
    config: { auth: 'none' },
    handler: async (request, reply) => {
      const token = userTokenOr401(request, reply, userTokens);
      if (!token) return;
      if (!token.scopes.includes('openid'))
        return refuseUserToken(
          reply,
          'insufficient_scope',
          'The access token lacks the openid scope',
        );
      const user = state.profile(token.userId);
      if (!user)
        return refuseUserToken(reply, 'invalid_token', 'The token’s user no longer exists');
      if (!token.scopes.includes('profile')) return { sub: token.userId };
      return {
        sub: token.userId,
        name: user.displayName,
        ...(user.pictureUrl && { picture: user.pictureUrl }),
      };
    },
  });

  /** The caller's valid user access token with the profile scope, or undefined after 401/403. */
  const profileTokenOr4xx = (request: FastifyRequest, reply: FastifyReply) => {
    const token = userTokenOr401(request, reply, userTokens);
    if (token && !hasProfileScope(token)) {
      refuseUserToken(reply, 'insufficient_scope', 'The access token lacks the profile scope');
      return undefined;
    }
    return token;
  };

  app.get('/v2/profile', NONE, async (request, reply) => {
    const token = profileTokenOr4xx(request, reply);
    if (!token) return;
    const user = state.profile(token.userId);
    if (!user) return refuseUserToken(reply, 'invalid_token', 'The token’s user no longer exists');
    return {
      userId: user.userId,
      displayName: user.displayName,
      ...(user.pictureUrl && { pictureUrl: user.pictureUrl }),
      ...(user.statusMessage && { statusMessage: user.statusMessage }),
    };
  });

  app.get('/friendship/v1/status', NONE, async (request, reply) => {
    const token = profileTokenOr4xx(request, reply);
    if (!token) return;
    const channel = state.channel(token.channelId);
    if (!channel || !state.settings(channel).linkedAccount)
      return oauthError(
        reply,
        403,
        'access_denied',
        `The channel ${token.channelId} has no linked official account`,
      );
    const friendship = state.friendship(token.channelId, token.userId);
    return { friendFlag: friendship.friend && !friendship.blocked };
  });
}

export const loginArea: EmulatorArea = {
  name: 'login',
  migrate({ db }) {
    migrateLogin(db);
  },
  routes,
  admin: adminRoutes,
};
