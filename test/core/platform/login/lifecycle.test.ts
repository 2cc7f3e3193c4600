// The token lifecycle of docs/platform-api.md#login-lifecycle, row by row, through HTTP on the
// virtual clock, and the v2.0 differences (docs/platform-api.md#login).
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';
import { advance, DAY, form, login, newChannel, oauth, verify } from './helpers';

const emu = useEmulator();

describe('token lifecycle (v2.1)', () => {
  it('(none) → issue → valid: the token set carries access and refresh tokens', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 30 * 86_400 });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const res = await verify(emu(), tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      scope: 'openid profile',
      client_id: channel.channelId,
      expires_in: expect.any(Number),
    });
    expect((res.body as { expires_in: number }).expires_in).toBeGreaterThan(30 * 86_400 - 5);
  });

  it('valid → 30 days pass → expired: verify answers 400 access_token invalid', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    await advance(emu(), 30 * DAY - 60_000);
    expect((await verify(emu(), tokens.access_token)).status).toBe(200);
    await advance(emu(), 60_000);
    const res = await verify(emu(), tokens.access_token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(oauth('invalid_request', 'access_token invalid'));
    const state = await emu().admin('GET', `/login/tokens/${tokens.access_token}`);
    expect(state.body).toMatchObject({ state: 'expired', refreshToken: { state: 'valid' } });
  });

  it('expired → refresh with a valid refresh token → valid; same refresh token, expires_in from the call', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    await advance(emu(), 31 * DAY);
    const res = await form(emu(), '/oauth2/v2.1/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: channel.channelId,
      client_secret: channel.channelSecret,
    });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
    );
    expect(body).toMatchObject({
      token_type: 'Bearer',
      refresh_token: tokens.refresh_token,
      scope: 'openid profile',
      expires_in: 30 * 86_400,
    });
    expect(body.access_token).not.toBe(tokens.access_token);
    expect((await verify(emu(), body.access_token as string)).status).toBe(200);
    expect((await verify(emu(), tokens.access_token)).status).toBe(400);
  });

  it('a v2.1 refresh token lives 90 days from the first issue and refreshing does not extend it', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    const refresh = () =>
      form(emu(), '/oauth2/v2.1/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: channel.channelId,
        client_secret: channel.channelSecret,
      });
    await advance(emu(), 60 * DAY);
    expect((await refresh()).status).toBe(200);
    await advance(emu(), 30 * DAY - 60_000);
    expect((await refresh()).status).toBe(200);
    await advance(emu(), 60_000);
    // expired → refresh with an expired refresh token → still expired, 400 invalid_grant.
    const res = await refresh();
    expect(res.status).toBe(400);
    expect(res.body).toEqual(oauth('invalid_grant', 'invalid refresh_token'));
  });

  it('valid → revoke → revoked: 200 with an empty body; the token and its refresh token stop working', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    const res = await form(emu(), '/oauth2/v2.1/revoke', {
      access_token: tokens.access_token,
      client_id: channel.channelId,
      client_secret: channel.channelSecret,
    });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect((await verify(emu(), tokens.access_token)).body).toEqual(
      oauth('invalid_request', 'access_token invalid'),
    );
    const refreshed = await form(emu(), '/oauth2/v2.1/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: channel.channelId,
      client_secret: channel.channelSecret,
    });
    expect(refreshed.body).toEqual(oauth('invalid_grant', 'invalid refresh_token'));
    expect((await emu().admin('GET', `/login/tokens/${tokens.access_token}`)).body).toMatchObject({
      state: 'revoked',
      refreshToken: { state: 'revoked' },
    });
  });

  it('valid → deauthorize → deauthorized (204); deauthorizing again answers 400', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    const deauthorize = () =>
      emu().call(
        'POST',
        '/user/v1/deauthorize',
        { userAccessToken: tokens.access_token },
        channel.channelAccessToken,
      );
    const first = await deauthorize();
    expect(first.status).toBe(204);
    expect(first.body).toBeUndefined();
    const userinfo = await emu().call(
      'GET',
      '/oauth2/v2.1/userinfo',
      undefined,
      tokens.access_token,
    );
    expect(userinfo.status).toBe(401);
    const again = await deauthorize();
    expect(again.status).toBe(400);
    expect((again.body as { message: string }).message).toMatch(/already deauthorized/);
    expect((await emu().admin('GET', `/login/tokens/${tokens.access_token}`)).body).toMatchObject({
      state: 'deauthorized',
      refreshToken: { state: 'revoked' },
    });
  });

  it('deauthorize takes a form body too, and refuses tokens of other channels or missing fields', async () => {
    const channel = await newChannel(emu());
    const other = await newChannel(emu());
    const tokens = await login(emu(), channel);
    const missing = await emu().call(
      'POST',
      '/user/v1/deauthorize',
      {},
      channel.channelAccessToken,
    );
    expect(missing.status).toBe(400);
    expect((missing.body as { message: string }).message).toMatch(/^userAccessToken: is required/);
    const foreign = await emu().call(
      'POST',
      '/user/v1/deauthorize',
      { userAccessToken: tokens.access_token },
      other.channelAccessToken,
    );
    expect(foreign.status).toBe(400);
    expect((await verify(emu(), tokens.access_token)).status).toBe(200);
    const wrongHeader = await emu().call(
      'POST',
      '/user/v1/deauthorize',
      { userAccessToken: tokens.access_token },
      'not-a-channel-token',
    );
    expect(wrongHeader.status).toBe(401);
    const viaForm = await form(
      emu(),
      '/user/v1/deauthorize',
      { userAccessToken: tokens.access_token },
      { authorization: `Bearer ${channel.channelAccessToken}` },
    );
    expect(viaForm.status).toBe(204);
  });
});

describe('version 2.0', () => {
  const refresh20 = (channel: { channelId: string; channelSecret: string }, token: string) =>
    form(emu(), '/v2/oauth/accessToken', {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: channel.channelId,
      client_secret: channel.channelSecret,
    });

  it('issues with scope P and no ID token, even when openid was requested', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, { scopes: ['openid', 'profile', 'email'] }, '2.0');
    expect(
      Object.keys(tokens)
        .filter((k) => k !== 'code')
        .sort(),
    ).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'].sort());
    expect(tokens).toMatchObject({ scope: 'P', token_type: 'Bearer', expires_in: 30 * 86_400 });
    const verified = await form(emu(), '/v2/oauth/verify', { access_token: tokens.access_token });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ scope: 'P', client_id: channel.channelId });
    // P grants the profile; it is no openid scope.
    expect((await emu().call('GET', '/v2/profile', undefined, tokens.access_token)).status).toBe(
      200,
    );
    expect(
      (await emu().call('GET', '/oauth2/v2.1/userinfo', undefined, tokens.access_token)).status,
    ).toBe(403);
  });

  it('refresh returns a new refresh token and retires the old one', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, {}, '2.0');
    const res = await refresh20(channel, tokens.refresh_token);
    expect(res.status).toBe(200);
    const body = res.body as { refresh_token: string; access_token: string; scope: string };
    expect(body.refresh_token).not.toBe(tokens.refresh_token);
    expect(body.scope).toBe('P');
    expect((await refresh20(channel, tokens.refresh_token)).body).toEqual(
      oauth('invalid_grant', 'invalid refresh_token'),
    );
    expect((await refresh20(channel, body.refresh_token)).status).toBe(200);
  });

  it('a refresh token lives until 10 days after its access token expires', async () => {
    const channel = await newChannel(emu());
    const early = await login(emu(), channel, {}, '2.0');
    const late = await login(emu(), channel, {}, '2.0');
    await advance(emu(), 30 * DAY);
    const expired = await form(emu(), '/v2/oauth/verify', { access_token: early.access_token });
    expect(expired.status).toBe(400);
    expect(expired.body).toEqual(oauth('invalid_request', 'access_token invalid'));
    await advance(emu(), 10 * DAY - 60_000);
    expect((await refresh20(channel, early.refresh_token)).status).toBe(200);
    await advance(emu(), 60_000);
    const res = await refresh20(channel, late.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(oauth('invalid_grant', 'invalid refresh_token'));
  });

  it('revokes by refresh_token, which also ends its access token', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, {}, '2.0');
    const missing = await form(emu(), '/v2/oauth/revoke', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(oauth('invalid_request', 'refresh_token is required'));
    const res = await form(emu(), '/v2/oauth/revoke', { refresh_token: tokens.refresh_token });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(
      (await form(emu(), '/v2/oauth/verify', { access_token: tokens.access_token })).status,
    ).toBe(400);
    expect((await refresh20(channel, tokens.refresh_token)).status).toBe(400);
  });

  it('v2.0 refresh needs client_secret whatever the app type; v2.1 refresh tokens are refused', async () => {
    const channel = await newChannel(emu(), { appType: 'mobile' });
    const v20 = await login(emu(), channel, {}, '2.0');
    const v21 = await login(emu(), channel);
    const noSecret = await form(emu(), '/v2/oauth/accessToken', {
      grant_type: 'refresh_token',
      refresh_token: v20.refresh_token,
      client_id: channel.channelId,
    });
    expect(noSecret.body).toEqual(oauth('invalid_request', 'client_secret is required'));
    expect((await refresh20(channel, v21.refresh_token)).body).toEqual(
      oauth('invalid_grant', 'invalid refresh_token'),
    );
    expect((await refresh20(channel, v20.refresh_token)).status).toBe(200);
  });
});
