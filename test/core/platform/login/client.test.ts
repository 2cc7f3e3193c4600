// The typed login client against the emulator: a whole v2.1 and v2.0 life, OAuthError with
// error, description, status and request id, and the recorded exchange with secrets masked.
import { describe, expect, it } from 'vitest';
import { PlatformError, RequestTooLargeError } from '../../../../src/core/platform/http';
import { LoginAdminClient } from '../../../../src/core/platform/login/admin-client';
import { LoginClient, OAuthError } from '../../../../src/core/platform/login/client';
import {
  credentialsOf,
  maskExchange,
  recordingFetch,
  toCurl,
} from '../../../../src/core/platform/login/exchange';
import type { Exchange } from '../../../../src/core/platform/login/schema';
import { useEmulator } from '../../../helpers/emulator';
import { DAY, newChannel, REDIRECT } from './helpers';

const emu = useEmulator();

async function setup() {
  const channel = await newChannel(emu(), { linkedAccount: 'Bench OA' });
  const admin = new LoginAdminClient(emu().emulator.adminUrl);
  const client = new LoginClient(emu().emulator.url, { maxRetries: 0 });
  return { channel, admin, client };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('LoginClient', () => {
  it('covers a v2.1 login from code to revoke', async () => {
    const { channel, admin, client } = await setup();
    const code = await admin.mintCode({
      channelId: channel.channelId,
      scopes: ['openid', 'profile'],
      redirectUri: REDIRECT,
      nonce: 'n1',
    });
    const creds = { clientId: channel.channelId, clientSecret: channel.channelSecret };
    const tokens = await client.issueToken({ ...creds, code: code.code, redirectUri: REDIRECT });
    expect(tokens.id_token).toBeDefined();
    expect(await client.verifyAccessToken(tokens.access_token)).toMatchObject({
      client_id: channel.channelId,
      scope: 'openid profile',
    });
    const claims = await client.verifyIdToken({
      idToken: tokens.id_token!,
      clientId: channel.channelId,
      nonce: 'n1',
    });
    expect(claims).toMatchObject({ sub: code.userId, nonce: 'n1' });
    expect(await client.userInfo(tokens.access_token, 'POST')).toMatchObject({ sub: code.userId });
    expect(await client.profile(tokens.access_token)).toEqual({
      userId: code.userId,
      displayName: 'Login user',
    });
    await admin.setFriendship({
      channelId: channel.channelId,
      userId: code.userId,
      friend: true,
      blocked: false,
    });
    expect(await client.friendship(tokens.access_token)).toEqual({ friendFlag: true });

    await emu().admin('POST', '/clock/advance', { ms: 31 * DAY });
    const expired = await rejection(client.verifyAccessToken(tokens.access_token));
    expect(expired).toBeInstanceOf(OAuthError);
    const e = expired as OAuthError;
    expect([e.status, e.error, e.errorDescription]).toEqual([
      400,
      'invalid_request',
      'access_token invalid',
    ]);
    expect(e.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(e).toBeInstanceOf(PlatformError);

    const refreshed = await client.refreshToken({ ...creds, refreshToken: tokens.refresh_token });
    expect(refreshed.refresh_token).toBe(tokens.refresh_token);
    expect((await client.verifyAccessToken(refreshed.access_token)).expires_in).toBeGreaterThan(0);
    expect(await admin.tokenState(refreshed.access_token)).toMatchObject({ state: 'valid' });
    await client.revokeAccessToken({ ...creds, accessToken: refreshed.access_token });
    expect(await admin.tokenState(refreshed.access_token)).toMatchObject({ state: 'revoked' });
  });

  it('covers v2.0 and deauthorize', async () => {
    const { channel, admin, client } = await setup();
    const code = await admin.mintCode({
      channelId: channel.channelId,
      scopes: ['profile'],
      redirectUri: REDIRECT,
    });
    const creds = { clientId: channel.channelId, clientSecret: channel.channelSecret };
    const tokens = await client.issueTokenV20({ ...creds, code: code.code, redirectUri: REDIRECT });
    expect(tokens).toMatchObject({ scope: 'P' });
    expect(await client.verifyAccessTokenV20(tokens.access_token)).toMatchObject({ scope: 'P' });
    const next = await client.refreshTokenV20({ ...creds, refreshToken: tokens.refresh_token });
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    await client.deauthorize(next.access_token, channel.channelAccessToken);
    const again = await rejection(
      client.deauthorize(next.access_token, channel.channelAccessToken),
    );
    // Deauthorize answers the messaging API's shape, not an OAuth error.
    expect(again).toBeInstanceOf(PlatformError);
    expect(again).not.toBeInstanceOf(OAuthError);
    expect((again as PlatformError).status).toBe(400);
    const revoked = await rejection(
      client.refreshTokenV20({ ...creds, refreshToken: next.refresh_token }),
    );
    expect((revoked as OAuthError).error).toBe('invalid_grant');
    await client.revokeV20(next.refresh_token);
  });

  it('records each exchange; the masked copy and its curl hide every credential', async () => {
    const { channel, admin } = await setup();
    const exchanges: Exchange[] = [];
    const client = new LoginClient(emu().emulator.url, {
      maxRetries: 0,
      fetch: recordingFetch((e) => exchanges.push(e)),
    });
    const code = await admin.mintCode({
      channelId: channel.channelId,
      scopes: ['openid'],
      redirectUri: REDIRECT,
    });
    const tokens = await client.issueToken({
      clientId: channel.channelId,
      clientSecret: channel.channelSecret,
      code: code.code,
      redirectUri: REDIRECT,
    });
    const issued = exchanges[0]!;
    expect(issued.request.method).toBe('POST');
    expect(issued.request.body).toContain(`client_secret=${channel.channelSecret}`);
    expect(issued.response).toMatchObject({ status: 200 });
    expect(issued.response!.requestId).toBeTruthy();

    const masked = maskExchange(issued);
    expect(masked.request.body).not.toContain(channel.channelSecret);
    expect(masked.request.body).toContain(`client_secret=•••• ${channel.channelSecret.slice(-4)}`);
    expect(masked.request.body).toContain(`client_id=${channel.channelId}`);
    // The answer's tokens are masked too; credentialsOf keeps them for a copy, unmasked.
    for (const token of [tokens.access_token, tokens.refresh_token, tokens.id_token!]) {
      expect(issued.response!.body).toContain(token);
      expect(masked.response!.body).not.toContain(token);
    }
    expect(JSON.parse(masked.response!.body)).toMatchObject({
      access_token: `•••• ${tokens.access_token.slice(-4)}`,
      token_type: 'Bearer',
    });
    expect(credentialsOf(JSON.parse(issued.response!.body))).toEqual({
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      id_token: tokens.id_token,
    });
    const curl = toCurl(masked);
    expect(curl).toMatch(/^curl -i -X POST 'http:\/\/[^']+\/oauth2\/v2.1\/token' \\\n {2}-H /);
    expect(curl).not.toContain(channel.channelSecret);
    expect(toCurl(issued)).toContain(channel.channelSecret);

    await client.profile(tokens.access_token).catch(() => undefined);
    const profileCall = maskExchange(exchanges[1]!);
    expect(profileCall.request.headers.authorization).toBe(
      `Bearer •••• ${tokens.access_token.slice(-4)}`,
    );
    await client.verifyAccessToken(tokens.access_token);
    expect(maskExchange(exchanges[2]!).request.url).not.toContain(tokens.access_token);
  });
});

describe('LoginClient limits', () => {
  it('refuses a form over 2 MB before sending it', async () => {
    const exchanges: Exchange[] = [];
    const client = new LoginClient(emu().emulator.url, {
      fetch: recordingFetch((e) => exchanges.push(e)),
    });
    const err = await rejection(client.verifyAccessTokenV20('x'.repeat(2 * 1024 * 1024)));
    expect(err).toBeInstanceOf(RequestTooLargeError);
    expect(exchanges).toEqual([]);
  });
});
