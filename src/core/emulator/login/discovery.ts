// The OpenID Provider configuration of login v2.1, served at the issuer's
// `/.well-known/openid-configuration` so a standard OpenID Connect client configures itself from
// it: only the endpoints the emulator serves and only what they accept (docs/decisions.md,
// "OpenID Provider discovery").
import { ID_TOKEN_ALG } from '../../platform/login/id-token';

const CLIENT_AUTH_METHODS = ['client_secret_post', 'client_secret_basic'];

export function openIdConfiguration(issuer: string) {
  return {
    issuer,
    token_endpoint: `${issuer}/oauth2/v2.1/token`,
    userinfo_endpoint: `${issuer}/oauth2/v2.1/userinfo`,
    revocation_endpoint: `${issuer}/oauth2/v2.1/revoke`,
    scopes_supported: ['openid', 'profile', 'email'],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ID_TOKEN_ALG],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ['S256', 'plain'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'amr',
      'name',
      'picture',
      'email',
    ],
  };
}
