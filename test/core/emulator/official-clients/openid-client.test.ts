// Login v2.1 under a standard OpenID Connect client nobody here wrote: openid-client configures
// itself from the emulator's discovery document alone and runs the authorization code flow with
// PKCE, refresh, userinfo and revocation (docs/decisions.md, "OpenID Provider discovery").
// The emulator speaks plain http on loopback, which openid-client refuses unless told:
// `allowInsecureRequests`, its documented switch, is the only option given.
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../../src/core/emulator/channels';
import { useEmulator } from '../../../helpers/emulator';
import { mintCode, newChannel, newUser, REDIRECT } from '../../platform/login/helpers';

const emu = useEmulator();
const insecure = { execute: [oidc.allowInsecureRequests] };

async function configure(channel: Channel, auth?: oidc.ClientAuth) {
  return oidc.discovery(
    new URL(emu().emulator.url),
    channel.channelId,
    channel.channelSecret,
    auth,
    insecure,
  );
}

/** The admin API stands in for the authorization request; the callback is what it would reach. */
async function logIn(config: oidc.Configuration, channel: Channel, scopes: string[]) {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const userId = await newUser(emu(), 'Grace');
  const { code } = await mintCode(emu(), channel, {
    userId,
    scopes,
    nonce,
    codeChallenge: await oidc.calculatePKCECodeChallenge(verifier),
    codeChallengeMethod: 'S256',
  });
  const tokens = await oidc.authorizationCodeGrant(config, new URL(`${REDIRECT}?code=${code}`), {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return { tokens, userId };
}

describe('openid-client against the emulator', () => {
  it('configures itself from /.well-known/openid-configuration at the issuer the ID tokens carry', async () => {
    const config = await configure(emu().emulator.channels()[0]!);
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(emu().emulator.url);
    expect(meta.token_endpoint).toBe(`${emu().emulator.url}/oauth2/v2.1/token`);
    expect(meta.id_token_signing_alg_values_supported).toEqual(['HS256']);
    expect(meta.code_challenge_methods_supported).toContain('S256');
    expect(meta.supportsPKCE()).toBe(true);
  });

  it('runs code + PKCE, userinfo, refresh and revoke from discovery alone (client_secret_post)', async () => {
    const channel = await newChannel(emu());
    const config = await configure(channel);
    const { tokens, userId } = await logIn(config, channel, ['openid', 'profile']);
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: emu().emulator.url, sub: userId, aud: channel.channelId });
    expect(claims?.name).toBe('Grace');

    const info = await oidc.fetchUserInfo(config, tokens.access_token, userId);
    expect(info).toEqual({ sub: userId, name: 'Grace' });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toBe(tokens.refresh_token);
    expect(await oidc.fetchUserInfo(config, refreshed.access_token, userId)).toMatchObject({
      sub: userId,
    });

    // The client sends RFC 7009's `token`; the platform's revoke takes `access_token` (seed 000),
    // and so does the emulator: refused, naming it, where the platform would refuse it too.
    const alone = await oidc.tokenRevocation(config, refreshed.access_token).catch((e) => e);
    expect(alone).toBeInstanceOf(oidc.ResponseBodyError);
    expect(alone).toMatchObject({
      status: 400,
      error: 'invalid_request',
      error_description: expect.stringMatching(/^access_token is required /),
    });
    expect((await oidc.fetchUserInfo(config, refreshed.access_token, userId)).sub).toBe(userId);
    // What docs/platform-api.md tells a standard client's user: the token as access_token too.
    await oidc.tokenRevocation(config, refreshed.access_token, {
      access_token: refreshed.access_token,
    });
    // Revoked: userinfo refuses with a Bearer challenge the client reads.
    const refused = await oidc
      .fetchUserInfo(config, refreshed.access_token, userId)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    const challenge = (refused as oidc.WWWAuthenticateChallengeError).cause[0]!;
    expect(challenge.scheme).toBe('bearer');
    expect(challenge.parameters.error).toBe('invalid_token');
    expect(challenge.parameters.error_description).toBe('The access token was revoked');
    // Revoking the access token ended its session: the refresh token is gone too.
    const stale = await oidc.refreshTokenGrant(config, tokens.refresh_token!).catch((e) => e);
    expect(stale).toBeInstanceOf(oidc.ResponseBodyError);
    expect((stale as oidc.ResponseBodyError).error).toBe('invalid_grant');
  });

  it('authenticates with HTTP Basic (client_secret_basic) on issue, refresh and revoke (by access_token)', async () => {
    const channel = await newChannel(emu());
    const config = await configure(channel, oidc.ClientSecretBasic(channel.channelSecret));
    const { tokens, userId } = await logIn(config, channel, ['openid']);
    expect(tokens.claims()?.sub).toBe(userId);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    // The refresh token is no access token: the platform's revoke takes only the latter.
    const byRefresh = await oidc
      .tokenRevocation(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' })
      .catch((e) => e);
    expect(byRefresh).toMatchObject({ status: 400, error: 'invalid_request' });
    await oidc.tokenRevocation(config, refreshed.access_token, {
      access_token: refreshed.access_token,
    });
    const refused = await oidc
      .fetchUserInfo(config, refreshed.access_token, userId)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
  });

  it('reads the emulator’s refusals: a wrong secret, and a userinfo call without the openid scope', async () => {
    const channel = await newChannel(emu());
    const wrong = await configure({ ...channel, channelSecret: 'not-the-secret' });
    const failed = await logIn(wrong, channel, ['openid']).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(oidc.ResponseBodyError);
    expect((failed as oidc.ResponseBodyError).error).toBe('invalid_client');

    const config = await configure(channel);
    const userId = await newUser(emu());
    const { code } = await mintCode(emu(), channel, { userId, scopes: ['profile'] });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(`${REDIRECT}?code=${code}`));
    const refused = await oidc
      .fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    expect((refused as oidc.WWWAuthenticateChallengeError).status).toBe(403);
    expect((refused as oidc.WWWAuthenticateChallengeError).cause[0]!.parameters.error).toBe(
      'insufficient_scope',
    );
  });
});
