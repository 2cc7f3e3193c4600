// The edges of `Authorization: Bearer` for every emulator route that takes a channel or a user
// access token: reading the token, and the one refusal, which names what went wrong in a
// `WWW-Authenticate: Bearer` challenge as well as in the body (docs/decisions.md, "Bearer
// challenges").
import type { FastifyReply, FastifyRequest } from 'fastify';

/** `invalid_request`: no usable header; `invalid_token`: the token is not valid now. */
export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case), if any. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  return /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * A challenge parameter is a quoted string of printable ASCII without `"` or `\`: anything else
 * in a description (a typographic apostrophe, say) is replaced rather than sent malformed.
 */
function quoted(text: string): string {
  return `"${text.replace(/[’‘]/g, "'").replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?')}"`;
}

function bearerChallenge(error: BearerError, description: string): string {
  return `Bearer error=${quoted(error)}, error_description=${quoted(description)}`;
}

/**
 * Answers a refused Bearer request: 401 (403 for `insufficient_scope`) with the challenge and
 * `body`, which defaults to the emulator's `{ message }` shape.
 */
export function refuseBearer(
  reply: FastifyReply,
  error: BearerError,
  description: string,
  body: unknown = { message: description },
): void {
  void reply
    .code(error === 'insufficient_scope' ? 403 : 401)
    .header('www-authenticate', bearerChallenge(error, description))
    .send(body);
}

/** The emulator's two channel-token refusals, by whether a Bearer token was given at all. */
export function refuseChannelToken(reply: FastifyReply, given: boolean): void {
  if (given)
    refuseBearer(
      reply,
      'invalid_token',
      'Authentication failed: the channel access token is not valid.',
    );
  else
    refuseBearer(
      reply,
      'invalid_request',
      'Authentication failed: an Authorization: Bearer <channel access token> header is required.',
    );
}
