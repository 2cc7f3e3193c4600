// The HTTP edges of the login emulator: the OAuth error answers, required
// field checks, the issuer it signs ID tokens with, and the user access token a request carries.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FORM_TYPE, FormBody } from '../form-body';
import type { UserAccessToken, UserTokens } from '../user-tokens';

/** An OAuth error body, with `message` as on every other emulator error (docs/decisions.md). */
export function oauthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): void {
  void reply.code(status).send({ error, error_description: description, message: description });
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
  const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
  if (!match?.[1]) {
    oauthError(
      reply,
      401,
      'invalid_request',
      'an Authorization: Bearer <access token> header is required',
    );
    return undefined;
  }
  const token = tokens.get(match[1]);
  if (!token) {
    oauthError(reply, 401, 'invalid_token', 'The access token is not known');
    return undefined;
  }
  const state = tokens.state(token);
  if (state === 'valid') return token;
  oauthError(reply, 401, 'invalid_token', STATE_WORDS[state]);
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
