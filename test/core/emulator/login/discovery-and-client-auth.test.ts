// Login v2.1 through HTTP as a standard client meets it: the discovery document and the
// endpoints it names, HTTP Basic client authentication beside the form's credentials, and
// revocation by RFC 7009's `token` (docs/decisions.md, "OpenID Provider discovery", "Client
// authentication").
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../../src/core/emulator/channels';
import { useEmulator } from '../../../helpers/emulator';
import {
  form,
  issueFields,
  login,
  mintCode,
  newChannel,
  oauth,
  verify,
} from '../../platform/login/helpers';

const emu = useEmulator();
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});
const basicOf = (c: Channel) => basic(c.channelId, c.channelSecret);
/** A code's issue fields without the client's credentials, which then travel only in the header. */
function withoutCredentials(fields: Record<string, string>): Record<string, string> {
  const rest = { ...fields };
  delete rest.client_id;
  delete rest.client_secret;
  return rest;
}

describe('GET /.well-known/openid-configuration', () => {
  it('names the issuer the ID tokens carry and only endpoints the emulator serves', async () => {
    const res = await emu().call('GET', '/.well-known/openid-configuration', undefined, null);
    expect(res.status).toBe(200);
    const doc = res.body as Record<string, unknown>;
    const issuer = emu().emulator.url;
    expect(doc).toMatchObject({
      issuer,
      token_endpoint: `${issuer}/oauth2/v2.1/token`,
      userinfo_endpoint: `${issuer}/oauth2/v2.1/userinfo`,
      revocation_endpoint: `${issuer}/oauth2/v2.1/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      id_token_signing_alg_values_supported: ['HS256'],
      code_challenge_methods_supported: ['S256', 'plain'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    });
    expect(doc).not.toHaveProperty('authorization_endpoint');
    expect(doc).not.toHaveProperty('jwks_uri');
    const served = new Set(emu().emulator.routes.map((r) => r.url));
    for (const [key, value] of Object.entries(doc))
      if (key.endsWith('_endpoint'))
        expect(served, key).toContain(String(value).slice(issuer.length));

    const channel = await newChannel(emu());
    const { id_token } = await login(emu(), channel, { scopes: ['openid'] });
    const payload = JSON.parse(Buffer.from(id_token!.split('.')[1]!, 'base64url').toString());
    expect(payload.iss).toBe(issuer);
  });
});

describe('client_secret_basic', () => {
  it('issues with the credentials in a Basic header only, and refreshes and revokes so too', async () => {
    const channel = await newChannel(emu());
    const code = await mintCode(emu(), channel);
    const rest = withoutCredentials(issueFields(channel, code));
    const issued = await form(emu(), '/oauth2/v2.1/token', rest, basicOf(channel));
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const tokens = issued.body as { access_token: string; refresh_token: string };
    const refreshed = await form(
      emu(),
      '/oauth2/v2.1/token',
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      basicOf(channel),
    );
    expect(refreshed.status).toBe(200);
    const revoked = await form(
      emu(),
      '/oauth2/v2.1/revoke',
      { access_token: tokens.access_token },
      basicOf(channel),
    );
    expect(revoked.status).toBe(200);
    expect((await verify(emu(), tokens.access_token)).status).toBe(400);
  });

  it('takes the header and the form together when they agree; 400 naming the field when they differ', async () => {
    const channel = await newChannel(emu());
    const same = await form(
      emu(),
      '/oauth2/v2.1/token',
      issueFields(channel, await mintCode(emu(), channel)),
      basicOf(channel),
    );
    expect(same.status).toBe(200);

    const code = await mintCode(emu(), channel);
    const otherSecret = await form(
      emu(),
      '/oauth2/v2.1/token',
      issueFields(channel, code),
      basic(channel.channelId, 'another-secret'),
    );
    expect([otherSecret.status, otherSecret.body]).toEqual([
      400,
      oauth(
        'invalid_request',
        "client_secret in the form differs from the Authorization: Basic header's: send one client authentication",
      ),
    ]);
    const otherId = await form(emu(), '/oauth2/v2.1/token', issueFields(channel, code), {
      ...basic('2999999999', channel.channelSecret),
    });
    expect((otherId.body as { error_description: string }).error_description).toMatch(
      /^client_id in the form differs/,
    );
    // Neither refusal used the code.
    expect((await form(emu(), '/oauth2/v2.1/token', issueFields(channel, code))).status).toBe(200);
  });

  it('refuses a Basic header that is not BASE64(id:secret) (400) and wrong credentials in one (401)', async () => {
    const channel = await newChannel(emu());
    const code = await mintCode(emu(), channel);
    const rest = withoutCredentials(issueFields(channel, code));
    const malformed = await form(emu(), '/oauth2/v2.1/token', rest, {
      authorization: `Basic ${Buffer.from('no-colon').toString('base64')}`,
    });
    expect([malformed.status, (malformed.body as { error: string }).error]).toEqual([
      400,
      'invalid_request',
    ]);
    // Wrong credentials in the header: 401 with a Basic challenge; in the form they stay 400.
    const wrong = await form(emu(), '/oauth2/v2.1/token', rest, basic(channel.channelId, 'x'));
    expect([wrong.status, wrong.body]).toEqual([
      401,
      oauth('invalid_client', 'client_secret does not match the channel'),
    ]);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="platform"');
    const stranger = await form(emu(), '/oauth2/v2.1/token', rest, basic('2999999999', 'x'));
    expect(stranger.status).toBe(401);
    const inForm = await form(emu(), '/oauth2/v2.1/token', {
      ...issueFields(channel, code),
      client_secret: 'x',
    });
    expect([inForm.status, (inForm.body as { error: string }).error]).toEqual([
      400,
      'invalid_client',
    ]);
  });

  it('names the expected channel of ID token verification from the Basic header', async () => {
    const channel = await newChannel(emu());
    const { id_token } = await login(emu(), channel, { scopes: ['openid'] });
    const res = await form(emu(), '/oauth2/v2.1/verify', { id_token }, basicOf(channel));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ aud: channel.channelId });
  });
});

describe('POST /oauth2/v2.1/revoke with `token`', () => {
  it('refuses RFC 7009’s token without access_token, naming access_token, as the seed requires it', async () => {
    const channel = await newChannel(emu());
    const fields = { client_id: channel.channelId, client_secret: channel.channelSecret };
    const tokens = await login(emu(), channel);
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      const refused = await form(emu(), '/oauth2/v2.1/revoke', {
        ...fields,
        token,
        token_type_hint: token === tokens.access_token ? 'access_token' : 'refresh_token',
      });
      expect([refused.status, refused.body]).toEqual([
        400,
        oauth(
          'invalid_request',
          "access_token is required (this endpoint does not read RFC 7009's token: send the access token as access_token)",
        ),
      ]);
    }
    // Nothing was revoked: the session goes on.
    expect((await verify(emu(), tokens.access_token)).status).toBe(200);

    // With access_token beside it, `token` is one more field the endpoint does not read.
    const both = await form(emu(), '/oauth2/v2.1/revoke', {
      ...fields,
      token: 'anything',
      access_token: tokens.access_token,
    });
    expect(both.status).toBe(200);
    expect((await verify(emu(), tokens.access_token)).status).toBe(400);
    const refresh = await form(emu(), '/oauth2/v2.1/token', {
      ...fields,
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refresh.body).toMatchObject({ error: 'invalid_grant' });

    // A refresh token is no access token: an unknown one, answered 200, and nothing revoked.
    const next = await login(emu(), channel);
    const byRefresh = await form(emu(), '/oauth2/v2.1/revoke', {
      ...fields,
      access_token: next.refresh_token,
    });
    expect(byRefresh.status).toBe(200);
    expect((await verify(emu(), next.access_token)).status).toBe(200);
  });
});
