// The HTTP edges of the login emulator: the OAuth error answers, required
// field checks, the issuer it signs ID tokens with, and the user access token a request carries.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf, refuseBearer, type BearerError } from '../bearer';
import { clientCredentials } from '../client-auth';
import { FORM_TYPE, FormBody } from '../form-body';
import type { UserAccessToken, UserTokens } from '../user-tokens';

/** An OAuth error body, with `message` as on every other emulator error (docs/decisions.md). */
export function oauthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): void {
  void reply.code(status).send(oauthBody(error, description));
}

/** The OAuth error object, with `message` as on every other emulator error. */
export function oauthBody(error: string, description: string) {
  return { error, error_description: description, message: description };
}

/** A refused user access token: the OAuth error body with its `WWW-Authenticate` challenge. */
export function refuseUserToken(reply: FastifyReply, error: BearerError, description: string) {
  refuseBearer(reply, error, description, oauthBody(error, description));
}

/** The form's fields, or undefined after answering 400 for a body that is not a proper form. */
export function readForm(
  request: FastifyRequest,
  reply: FastifyReply,
): Record<string, string> | undefined {
  const body = request.body;
  if (!(body instanceof FormBody)) {
    oauthError(reply, 400, 'invalid_request', `the body must be ${FORM_TYPE}`);
    return undefined;
  }
  if (body.repeated.length) {
    oauthError(reply, 400, 'invalid_request', `${body.repeated[0]} is given more than once`);
    return undefined;
  }
  return body.fields;
}

/**
 * A form that may authenticate its client: its fields, with `client_id` and `client_secret`
 * taken from an `Authorization: Basic` header when one is sent; or undefined after a 400.
 */
export function readClientForm(
  request: FastifyRequest,
  reply: FastifyReply,
): Record<string, string> | undefined {
  const fields = readForm(request, reply);
  if (!fields) return undefined;
  const client = clientCredentials(request, fields);
  if ('problem' in client) {
    oauthError(reply, 400, 'invalid_request', client.problem);
    return undefined;
  }
  if (client.clientId !== undefined) fields.client_id = client.clientId;
  if (client.clientSecret !== undefined) fields.client_secret = client.clientSecret;
  return fields;
}

/** True when every named field is present and non-empty; otherwise answers 400 for the first. */
export function requireFields(
  fields: Record<string, string>,
  names: readonly string[],
  reply: FastifyReply,
): boolean {
  const missing = names.find((name) => !fields[name]);
  if (missing) oauthError(reply, 400, 'invalid_request', `${missing} is required`);
  return missing === undefined;
}

/**
 * The emulator's own base URL, from the socket it listens on rather than the Host header, so
 * every caller of one emulator sees the same `iss`.
 */
export function issuerOf(request: FastifyRequest): string {
  const address = request.server.server.address();
  if (!address || typeof address === 'string') return `http://${request.host}`;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

const STATE_WORDS = {
  expired: 'The access token expired',
  revoked: 'The access token was revoked',
  deauthorized: 'The access token was deauthorized by the user or the channel',
} as const;

/**
 * The valid user access token of `Authorization: Bearer`, or undefined after answering 401
 * (header missing or malformed, token unknown, expired, revoked or deauthorized).
 */
export function userTokenOr401(
  request: FastifyRequest,
  reply: FastifyReply,
  tokens: UserTokens,
): UserAccessToken | undefined {
  const given = bearerTokenOf(request);
  if (!given) {
    refuseUserToken(
      reply,
      'invalid_request',
      'an Authorization: Bearer <access token> header is required',
    );
    return undefined;
  }
  const token = tokens.get(given);
  if (!token) {
    refuseUserToken(reply, 'invalid_token', 'The access token is not known');
    return undefined;
  }
  const state = tokens.state(token);
  if (state === 'valid') return token;
  refuseUserToken(reply, 'invalid_token', STATE_WORDS[state]);
  return undefined;
}

/**
 * Scopes as the token set and verify list them: `email` is never shown
 * (docs/platform-api.md#login-endpoints).
 */
export function scopeString(scopes: readonly string[]): string {
  return scopes.filter((s) => s !== 'email').join(' ');
}

/** v2.0's `P` grants what v2.1's `profile` does. */
export function hasProfileScope(token: UserAccessToken): boolean {
  return token.scopes.includes('profile') || token.scopes.includes('P');
}
