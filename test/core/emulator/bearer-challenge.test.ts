// Every 401 of every route that takes a Bearer token carries a `WWW-Authenticate: Bearer`
// challenge naming the error and its description (docs/decisions.md, "Bearer challenges"),
// found by calling each route the emulator registered without a token and with a wrong one.
import { describe, expect, it } from 'vitest';
import { request, useEmulator } from '../../helpers/emulator';

const emu = useEmulator();
const CHALLENGE =
  /^Bearer error="(invalid_request|invalid_token)", error_description="[\x20\x21\x23-\x5b\x5d-\x7e]+"$/;

describe('Bearer challenges', () => {
  it('answers each 401 of a platform route with the challenge, for a missing and a wrong token', async () => {
    const routes = emu().emulator.routes.filter(
      (r) => !r.url.startsWith('/__admin') && r.method !== 'HEAD',
    );
    const refused = new Set<string>();
    for (const { method, url } of routes) {
      const path = url.replace(/:[A-Za-z]+/g, 'x').replace('*', 'x');
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-token' }];
      for (const headers of attempts) {
        const res = await request(emu().emulator.url + path, method, body, headers);
        if (res.status !== 401) continue;
        refused.add(`${method} ${url}`);
        const challenge = res.headers.get('www-authenticate') ?? '';
        expect(challenge, `${method} ${url}`).toMatch(CHALLENGE);
        const error = 'authorization' in headers ? 'invalid_token' : 'invalid_request';
        expect(challenge, `${method} ${url}`).toContain(`error="${error}"`);
      }
    }
    // Channel-token routes, user-token routes and the mini-app areas' own checks are all there.
    for (const route of [
      'POST /v2/bot/channel/detach',
      'GET /things/v1/trial/products',
      'GET /oauth2/v2.1/userinfo',
      'POST /oauth2/v2.1/userinfo',
      'GET /v2/profile',
      'GET /friendship/v1/status',
      'POST /iap/v1/product/reserve',
      'POST /embed/v1/apps',
      'POST /message/v3/notifier/token',
    ])
      expect(refused).toContain(route);
  });

  it('keeps each area’s body beside the challenge', async () => {
    const userinfo = await request(emu().emulator.url + '/oauth2/v2.1/userinfo', 'GET');
    expect(userinfo.body).toMatchObject({ error: 'invalid_request' });
    const reserve = await request(
      emu().emulator.url + '/iap/v1/product/reserve',
      'POST',
      {},
      {
        authorization: 'Bearer nope',
      },
    );
    expect(reserve.body).toMatchObject({ errorCode: 'UNAUTHORIZED' });
    expect(reserve.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const things = await emu().call('GET', '/things/v1/trial/products', undefined, 'nope');
    expect(things.body).toEqual({
      message: 'Authentication failed: the channel access token is not valid.',
    });
  });
});
