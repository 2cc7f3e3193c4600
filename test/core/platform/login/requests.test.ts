// Issue, PKCE, client authentication by app type, userinfo, profile, friendship, and bad input
// on every operation: the documented status, a body naming the problem, and no state changed.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';
import {
  form,
  issueFields,
  login,
  mintCode,
  newChannel,
  newUser,
  oauth,
  REDIRECT,
  verify,
} from './helpers';

const emu = useEmulator();
const VERIFIER = 'a'.repeat(20) + '-._~' + 'Z9'.repeat(10);

describe('issue (authorization_code)', () => {
  it('uses a code once; a failed attempt leaves it usable', async () => {
    const channel = await newChannel(emu());
    const code = await mintCode(emu(), channel);
    const wrongUri = await form(
      emu(),
      '/oauth2/v2.1/token',
      issueFields(channel, code, { redirect_uri: 'https://other.example/cb' }),
    );
    expect(wrongUri.status).toBe(400);
    expect(wrongUri.body).toEqual(
      oauth('invalid_grant', 'redirect_uri does not match the authorization request'),
    );
    const wrongSecret = await form(
      emu(),
      '/oauth2/v2.1/token',
      issueFields(channel, code, { client_secret: 'nope' }),
    );
    expect(wrongSecret.body).toEqual(
      oauth('invalid_client', 'client_secret does not match the channel'),
    );
    expect((await form(emu(), '/oauth2/v2.1/token', issueFields(channel, code))).status).toBe(200);
    const reuse = await form(emu(), '/oauth2/v2.1/token', issueFields(channel, code));
    expect(reuse.body).toEqual(oauth('invalid_grant', 'code has already been used'));
  });

  it('refuses a code after 10 minutes and a code of another channel', async () => {
    const channel = await newChannel(emu());
    const other = await newChannel(emu());
    const code = await mintCode(emu(), channel);
    const foreign = await form(emu(), '/oauth2/v2.1/token', {
      ...issueFields(other, code),
    });
    expect(foreign.body).toEqual(
      oauth('invalid_grant', 'code is not a code issued to this channel'),
    );
    await emu().admin('POST', '/clock/advance', { ms: 10 * 60_000 });
    const late = await form(emu(), '/oauth2/v2.1/token', issueFields(channel, code));
    expect(late.body).toEqual(oauth('invalid_grant', 'code expired (codes live 10 minutes)'));
  });

  it('names each missing field and refuses other grant types and non-form bodies', async () => {
    const channel = await newChannel(emu());
    const code = await mintCode(emu(), channel);
    const full = issueFields(channel, code);
    for (const field of ['code', 'redirect_uri', 'client_id', 'client_secret'] as const) {
      for (const path of ['/oauth2/v2.1/token', '/v2/oauth/accessToken']) {
        const res = await form(emu(), path, { ...full, [field]: undefined });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(oauth('invalid_request', `${field} is required`));
      }
    }
    expect(
      (await form(emu(), '/oauth2/v2.1/token', { ...full, grant_type: undefined })).body,
    ).toEqual(oauth('invalid_request', 'grant_type is required'));
    const wrongGrant = await form(emu(), '/oauth2/v2.1/token', {
      ...full,
      grant_type: 'client_credentials',
    });
    expect(wrongGrant.status).toBe(400);
    expect(wrongGrant.body).toEqual(
      oauth(
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token, not client_credentials',
      ),
    );
    const json = await emu().call('POST', '/oauth2/v2.1/token', full, null);
    expect(json.status).toBe(400);
    expect(json.body).toEqual(
      oauth('invalid_request', 'the body must be application/x-www-form-urlencoded'),
    );
    const repeated = await fetch(`${emu().emulator.url}/oauth2/v2.1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${new URLSearchParams(full).toString()}&code=again`,
    });
    expect(await repeated.json()).toEqual(oauth('invalid_request', 'code is given more than once'));
    expect((await form(emu(), '/oauth2/v2.1/token', { ...full, client_id: '1' })).body).toEqual(
      oauth('invalid_client', 'client_id 1 is not a channel'),
    );
    // None of that used the code.
    expect((await form(emu(), '/oauth2/v2.1/token', full)).status).toBe(200);
  });
});

describe('PKCE', () => {
  it('accepts the S256 verifier and refuses a wrong, missing, short or unexpected one', async () => {
    const channel = await newChannel(emu());
    const challenge = createHash('sha256').update(VERIFIER).digest('base64url');
    const code = await mintCode(emu(), channel, {
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    const attempt = (extra: Record<string, string>) =>
      form(emu(), '/oauth2/v2.1/token', issueFields(channel, code, extra));
    expect((await attempt({ code_verifier: 'b'.repeat(43) })).body).toEqual(
      oauth('invalid_grant', 'code_verifier does not match the code_challenge (S256)'),
    );
    expect((await attempt({})).body).toEqual(
      oauth(
        'invalid_grant',
        'code_verifier is required: the authorization request had a code_challenge',
      ),
    );
    expect((await attempt({ code_verifier: 'short' })).body).toEqual(
      oauth(
        'invalid_request',
        'code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (got 5)',
      ),
    );
    expect((await attempt({ code_verifier: 'x'.repeat(129) })).status).toBe(400);
    expect((await attempt({ code_verifier: VERIFIER })).status).toBe(200);

    const plain = await mintCode(emu(), channel, {
      codeChallenge: VERIFIER,
      codeChallengeMethod: 'plain',
    });
    const plainRes = await form(
      emu(),
      '/oauth2/v2.1/token',
      issueFields(channel, plain, { code_verifier: VERIFIER }),
    );
    expect(plainRes.status).toBe(200);

    const none = await mintCode(emu(), channel);
    const unexpected = await form(
      emu(),
      '/oauth2/v2.1/token',
      issueFields(channel, none, { code_verifier: VERIFIER }),
    );
    expect(unexpected.body).toEqual(
      oauth(
        'invalid_grant',
        'code_verifier was given but the authorization request had no code_challenge',
      ),
    );
  });
});

describe('client_secret on refresh and revoke by app type', () => {
  const refresh = (channelId: string, token: string, secret?: string) =>
    form(emu(), '/oauth2/v2.1/token', {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: channelId,
      client_secret: secret,
    });

  it('requires it for Web app only channels', async () => {
    const channel = await newChannel(emu(), { appType: 'web' });
    const tokens = await login(emu(), channel);
    expect((await refresh(channel.channelId, tokens.refresh_token)).body).toEqual(
      oauth('invalid_request', 'client_secret is required: the channel is a Web app only channel'),
    );
    expect((await refresh(channel.channelId, tokens.refresh_token, 'wrong')).body).toEqual(
      oauth('invalid_client', 'client_secret does not match the channel'),
    );
    const revoke = await form(emu(), '/oauth2/v2.1/revoke', {
      access_token: tokens.access_token,
      client_id: channel.channelId,
    });
    expect(revoke.status).toBe(400);
    expect((await verify(emu(), tokens.access_token)).status).toBe(200);
    expect(
      (await refresh(channel.channelId, tokens.refresh_token, channel.channelSecret)).status,
    ).toBe(200);
  });

  it('ignores it for Mobile app and Mobile plus Web app channels', async () => {
    for (const appType of ['mobile', 'mobile_web']) {
      const channel = await newChannel(emu(), { appType });
      const tokens = await login(emu(), channel);
      expect((await refresh(channel.channelId, tokens.refresh_token)).status).toBe(200);
      expect((await refresh(channel.channelId, tokens.refresh_token, 'anything')).status).toBe(200);
      const revoke = await form(emu(), '/oauth2/v2.1/revoke', {
        access_token: tokens.access_token,
        client_id: channel.channelId,
        client_secret: 'ignored',
      });
      expect(revoke.status).toBe(200);
    }
  });

  it('refuses to revoke another channel’s token and accepts an unknown one', async () => {
    const channel = await newChannel(emu());
    const other = await newChannel(emu());
    const tokens = await login(emu(), channel);
    const foreign = await form(emu(), '/oauth2/v2.1/revoke', {
      access_token: tokens.access_token,
      client_id: other.channelId,
      client_secret: other.channelSecret,
    });
    expect(foreign.body).toEqual(
      oauth('invalid_request', 'access_token was issued to another channel than client_id'),
    );
    expect((await verify(emu(), tokens.access_token)).status).toBe(200);
    const unknown = await form(emu(), '/oauth2/v2.1/revoke', {
      access_token: 'never-issued',
      client_id: channel.channelId,
      client_secret: channel.channelSecret,
    });
    expect(unknown.status).toBe(200);
    const missing = await form(emu(), '/oauth2/v2.1/revoke', { client_id: channel.channelId });
    expect(missing.body).toEqual(oauth('invalid_request', 'access_token is required'));
  });
});

describe('verify access token input', () => {
  it('names a missing access_token and answers access_token invalid for an unknown one', async () => {
    const missing = await emu().call('GET', '/oauth2/v2.1/verify', undefined, null);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(oauth('invalid_request', 'access_token is required'));
    expect((await verify(emu(), 'garbage')).body).toEqual(
      oauth('invalid_request', 'access_token invalid'),
    );
    expect((await form(emu(), '/v2/oauth/verify', {})).body).toEqual(
      oauth('invalid_request', 'access_token is required'),
    );
  });
});

describe('userinfo, profile and friendship', () => {
  it('userinfo answers GET and POST, needs openid, and 401 on a wrong header', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, { scopes: ['openid'] });
    const get = await emu().call('GET', '/oauth2/v2.1/userinfo', undefined, tokens.access_token);
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ sub: tokens.code.userId });
    const noOpenid = await login(emu(), channel, { scopes: ['profile'] });
    const refused = await emu().call(
      'POST',
      '/oauth2/v2.1/userinfo',
      undefined,
      noOpenid.access_token,
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(
      oauth('insufficient_scope', 'The access token lacks the openid scope'),
    );
    const none = await emu().call('GET', '/oauth2/v2.1/userinfo', undefined, null);
    expect(none.status).toBe(401);
    expect((none.body as { error: string }).error).toBe('invalid_request');
    const bad = await emu().call('GET', '/oauth2/v2.1/userinfo', undefined, 'nope');
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual(oauth('invalid_token', 'The access token is not known'));
  });

  it('profile omits pictureUrl and statusMessage when absent and needs the profile scope', async () => {
    const channel = await newChannel(emu());
    const userId = await newUser(emu(), 'Mei');
    const tokens = await login(emu(), channel, { userId, scopes: ['profile'] });
    const bare = await emu().call('GET', '/v2/profile', undefined, tokens.access_token);
    expect(bare.body).toEqual({ userId, displayName: 'Mei' });
    await emu().admin('PUT', `/login/users/${userId}/profile`, {
      pictureUrl: 'https://cdn.example/mei',
      statusMessage: 'Out for lunch',
    });
    const full = await emu().call('GET', '/v2/profile', undefined, tokens.access_token);
    expect(full.body).toEqual({
      userId,
      displayName: 'Mei',
      pictureUrl: 'https://cdn.example/mei',
      statusMessage: 'Out for lunch',
    });
    const badPicture = await emu().admin('PUT', `/login/users/${userId}/profile`, {
      pictureUrl: 'http://insecure.example/x',
    });
    expect(badPicture.status).toBe(400);
    expect((badPicture.body as { message: string }).message).toContain('pictureUrl');
    const openidOnly = await login(emu(), channel, { userId, scopes: ['openid'] });
    const refused = await emu().call('GET', '/v2/profile', undefined, openidOnly.access_token);
    expect(refused.status).toBe(403);
  });

  it('friendship needs a linked official account; friendFlag is friend and not blocked', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, { scopes: ['profile'] });
    const status = () => emu().call('GET', '/friendship/v1/status', undefined, tokens.access_token);
    const unlinked = await status();
    expect(unlinked.status).toBe(403);
    expect((unlinked.body as { error_description: string }).error_description).toMatch(
      /no linked official account/,
    );
    await emu().admin('PUT', `/login/channels/${channel.channelId}`, { linkedAccount: 'Bench OA' });
    expect((await status()).body).toEqual({ friendFlag: false });
    const set = (friend: boolean, blocked: boolean) =>
      emu().admin('PUT', '/login/friendships', {
        channelId: channel.channelId,
        userId: tokens.code.userId,
        friend,
        blocked,
      });
    await set(true, false);
    expect((await status()).body).toEqual({ friendFlag: true });
    await set(true, true);
    expect((await status()).body).toEqual({ friendFlag: false });
    const badInput = await emu().admin('PUT', '/login/friendships', {
      channelId: channel.channelId,
    });
    expect(badInput.status).toBe(400);
    expect((badInput.body as { message: string }).message).toContain('userId');
  });
});

describe('platform behaviour', () => {
  it('answers 413 over 2 MB, 429 under fault injection, and a request id on every answer', async () => {
    const channel = await newChannel(emu());
    const big = await form(emu(), '/oauth2/v2.1/token', {
      grant_type: 'authorization_code',
      code: 'x'.repeat(2 * 1024 * 1024 + 10),
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('x-platform-request-id')).toBeTruthy();

    await emu().admin('POST', '/faults', {
      kind: 'status',
      status: 429,
      count: 1,
      pathPrefix: '/oauth2/v2.1/',
    });
    const limited = await verify(emu(), 'whatever');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-platform-request-id')).toBeTruthy();

    const tokens = await login(emu(), channel);
    const ids = new Set<string>();
    for (const res of [
      await verify(emu(), tokens.access_token),
      await verify(emu(), 'bad'),
      await form(emu(), '/oauth2/v2.1/verify', { id_token: 'x', client_id: channel.channelId }),
      await emu().call('GET', '/oauth2/v2.1/userinfo', undefined, tokens.access_token),
    ]) {
      const id = res.headers.get('x-platform-request-id');
      expect(id).toBeTruthy();
      ids.add(id!);
    }
    expect(ids.size).toBe(4);
  });

  it('mints codes only for known channels and users, with a readable error', async () => {
    const res = await emu().admin('POST', '/login/codes', {
      userId: `U${'f'.repeat(32)}`,
      scopes: ['openid'],
      redirectUri: REDIRECT,
    });
    expect(res.status).toBe(404);
    const bad = await emu().admin('POST', '/login/codes', { scopes: [], redirectUri: 'nope' });
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toMatch(/scopes: .*redirectUri: /);
  });
});
