// The one mask every shown request goes through: query, path, headers, form and JSON bodies.
import { describe, expect, it } from 'vitest';
import {
  maskBody,
  maskHeaders,
  maskSecret,
  maskTarget,
} from '../../../src/core/platform/secret-mask';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.Fjr8xQ2nrV_';

describe('secret mask', () => {
  it('shows the last four characters after the mask, and none of a short secret', () => {
    expect(maskSecret(TOKEN)).toBe('•••• nrV_');
    expect(maskSecret('abc12345')).toBe('••••');
  });

  it('masks secret query values and keeps the rest as written, never percent-encoded', () => {
    const masked = maskTarget(
      `http://127.0.0.1:1/oauth2/v2.1/verify?access_token=${encodeURIComponent(TOKEN)}&q=a%20b`,
    );
    expect(masked).toBe('http://127.0.0.1:1/oauth2/v2.1/verify?access_token=•••• nrV_&q=a%20b');
    expect(maskTarget(`/x?continuationToken=abcdefghijk&token_type=Bearer`)).toBe(
      '/x?continuationToken=abcdefghijk&token_type=Bearer',
    );
  });

  it('masks a path segment that follows a secret’s name', () => {
    expect(maskTarget(`/__admin/login/tokens/${TOKEN}?x=1`)).toBe(
      '/__admin/login/tokens/•••• nrV_?x=1',
    );
    expect(maskTarget('/oauth2/v2.1/token')).toBe('/oauth2/v2.1/token');
  });

  it('masks the Authorization header and secret-named headers', () => {
    expect(maskHeaders({ authorization: `Bearer ${TOKEN}`, accept: 'json' })).toEqual({
      authorization: 'Bearer •••• nrV_',
      accept: 'json',
    });
  });

  it('masks form fields and JSON keys, nested ones too', () => {
    expect(
      maskBody(
        `grant_type=authorization_code&code=${TOKEN}&client_secret=${TOKEN}&code_verifier=${TOKEN}`,
        'application/x-www-form-urlencoded',
      ),
    ).toBe(
      'grant_type=authorization_code&code=•••• nrV_&client_secret=•••• nrV_&code_verifier=•••• nrV_',
    );
    expect(
      JSON.parse(
        maskBody(
          JSON.stringify({ to: 'u1', auth: { notificationToken: TOKEN, channelSecret: TOKEN } }),
          'application/json',
        ),
      ),
    ).toEqual({ to: 'u1', auth: { notificationToken: '•••• nrV_', channelSecret: '•••• nrV_' } });
    expect(maskBody('not json', undefined)).toBe('not json');
  });
});
