// ID tokens through HTTP: the claims and omission rules of docs/platform-api.md#login-endpoints,
// and every `error_description` (docs/platform-api.md#login-errors) from POST /oauth2/v2.1/verify,
// in the documented order of checks.
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';
import { advance, form, login, newChannel, newUser, oauth } from './helpers';

const emu = useEmulator();

function verifyId(fields: Record<string, string | undefined>) {
  return form(emu(), '/oauth2/v2.1/verify', fields);
}

async function sign(claims: Record<string, unknown>, secret: string) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(secret));
}

describe('ID token claims', () => {
  it('is an HS256 JWT with iss, sub, aud, exp, iat, amr and, with profile, name', async () => {
    const channel = await newChannel(emu());
    const userId = await newUser(emu(), 'Grace');
    const tokens = await login(emu(), channel, { userId, scopes: ['openid', 'profile'] });
    expect(decodeProtectedHeader(tokens.id_token!)).toMatchObject({ alg: 'HS256' });
    const claims = decodeJwt(tokens.id_token!);
    expect(claims).toEqual({
      iss: emu().emulator.url,
      sub: userId,
      aud: channel.channelId,
      exp: expect.any(Number),
      iat: expect.any(Number),
      amr: ['pwd'],
      name: 'Grace',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    const res = await verifyId({ id_token: tokens.id_token, client_id: channel.channelId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(claims);
  });

  it('adds picture and email only with their scopes, auth_time only with max_age, nonce only when given', async () => {
    const channel = await newChannel(emu());
    const userId = await newUser(emu(), 'Lin');
    const saved = await emu().admin('PUT', `/login/users/${userId}/profile`, {
      pictureUrl: 'https://cdn.example/lin',
      email: 'lin@example.com',
      statusMessage: 'hi',
    });
    expect(saved.status).toBe(200);

    const full = await login(emu(), channel, {
      userId,
      scopes: ['openid', 'profile', 'email'],
      nonce: 'n-123',
      maxAge: 600,
      amr: ['lineqr', 'mfa'],
    });
    expect(full.scope).toBe('openid profile');
    const claims = decodeJwt(full.id_token!);
    expect(claims).toMatchObject({
      name: 'Lin',
      picture: 'https://cdn.example/lin',
      email: 'lin@example.com',
      nonce: 'n-123',
      amr: ['lineqr', 'mfa'],
      auth_time: Math.floor(full.code.issuedAt / 1000),
    });

    const bare = await login(emu(), channel, { userId, scopes: ['openid'], amr: [] });
    expect(bare.scope).toBe('openid');
    const minimal = decodeJwt(bare.id_token!);
    for (const key of ['name', 'picture', 'email', 'nonce', 'auth_time', 'amr'])
      expect(minimal).not.toHaveProperty(key);

    const emailOnly = await login(emu(), channel, { userId, scopes: ['openid', 'email'] });
    expect(emailOnly.scope).toBe('openid');
    expect(decodeJwt(emailOnly.id_token!)).toMatchObject({ email: 'lin@example.com' });
    expect(decodeJwt(emailOnly.id_token!)).not.toHaveProperty('name');
  });

  it('has no ID token without openid, and refuses email without openid at the code', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, { scopes: ['profile'] });
    expect(tokens).not.toHaveProperty('id_token');
    expect(tokens.scope).toBe('profile');
    const res = await emu().admin('POST', '/login/codes', {
      channelId: channel.channelId,
      scopes: ['profile', 'email'],
      redirectUri: 'https://app.example/cb',
    });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain('scopes: email needs openid');
  });

  it('leaves picture out when the user has none, in the ID token and in userinfo', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel, { scopes: ['openid', 'profile'] });
    expect(decodeJwt(tokens.id_token!)).not.toHaveProperty('picture');
    const info = await emu().call('POST', '/oauth2/v2.1/userinfo', undefined, tokens.access_token);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({ sub: tokens.code.userId, name: 'Login user' });
  });
});

describe('ID token verification failures', () => {
  it("answers each of the six error_description values, in the platform's order", async () => {
    const channel = await newChannel(emu());
    const other = await newChannel(emu());
    const tokens = await login(emu(), channel, { nonce: 'abc' });
    const good = decodeJwt(tokens.id_token!);
    const expectError = async (fields: Record<string, string | undefined>, description: string) => {
      const res = await verifyId({ client_id: channel.channelId, ...fields });
      expect(res.status, description).toBe(400);
      expect(res.body).toEqual(oauth('invalid_request', description));
    };

    await expectError({ id_token: 'not.a.jwt' }, 'Invalid IdToken.');
    await expectError({ id_token: 'abc' }, 'Invalid IdToken.');
    await expectError({ id_token: await sign(good, other.channelSecret) }, 'Invalid IdToken.');
    // A tampered payload keeps the old signature.
    const [h, , s] = tokens.id_token!.split('.');
    const tampered = Buffer.from(JSON.stringify({ ...good, sub: 'Uevil' })).toString('base64url');
    await expectError({ id_token: `${h}.${tampered}.${s}` }, 'Invalid IdToken.');
    // Issuer is checked before expiry: a token wrong on both names the issuer.
    const past = Math.floor(Date.now() / 1000) - 10 * 86_400;
    await expectError(
      {
        id_token: await sign(
          { ...good, iss: 'https://elsewhere.example', exp: past },
          channel.channelSecret,
        ),
      },
      'Invalid IdToken Issuer.',
    );
    await expectError(
      { id_token: await sign({ ...good, exp: past }, channel.channelSecret) },
      'IdToken expired.',
    );
    await expectError(
      { id_token: tokens.id_token, client_id: other.channelId },
      'Invalid IdToken Audience.',
    );
    await expectError({ id_token: tokens.id_token, nonce: 'xyz' }, 'Invalid IdToken Nonce.');
    await expectError(
      { id_token: tokens.id_token, nonce: 'abc', user_id: `U${'0'.repeat(32)}` },
      'Invalid IdToken Subject Identifier.',
    );
    const ok = await verifyId({
      id_token: tokens.id_token,
      client_id: channel.channelId,
      nonce: 'abc',
      user_id: tokens.code.userId,
    });
    expect(ok.status).toBe(200);
  });

  it('expires an issued ID token after one hour on the virtual clock', async () => {
    const channel = await newChannel(emu());
    const tokens = await login(emu(), channel);
    await advance(emu(), 3_600_000);
    const res = await verifyId({ id_token: tokens.id_token, client_id: channel.channelId });
    expect(res.body).toEqual(oauth('invalid_request', 'IdToken expired.'));
  });

  it('names a missing field', async () => {
    const channel = await newChannel(emu());
    expect((await verifyId({ client_id: channel.channelId })).body).toEqual(
      oauth('invalid_request', 'id_token is required'),
    );
    expect((await verifyId({ id_token: 'x' })).body).toEqual(
      oauth('invalid_request', 'client_id is required'),
    );
  });
});
