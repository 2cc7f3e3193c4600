// OAuth client authentication on the emulator's form endpoints (login's token, revoke and ID
// token verification; module attach): `client_id` and `client_secret` in the form, an
// `Authorization: Basic` header, or both where they agree (docs/decisions.md, "Client
// authentication").
import type { FastifyReply, FastifyRequest } from 'fastify';

const BASIC = /^Basic +(\S+)$/i;

type ClientCredentials = { clientId?: string; clientSecret?: string } | { problem: string };

/** Basic credentials are each form-encoded before they are joined; a stray `%` stays as sent. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, '%20'));
  } catch {
    return text;
  }
}

/** The client's ID and secret from the Basic header and the form, or the problem with them. */
export function clientCredentials(
  request: FastifyRequest,
  fields: Record<string, string>,
): ClientCredentials {
  const basic = BASIC.exec(request.headers.authorization ?? '')?.[1];
  if (basic === undefined)
    return { clientId: fields.client_id, clientSecret: fields.client_secret };
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1)
    return {
      problem: 'the Authorization: Basic header must carry BASE64(channel ID:channel secret)',
    };
  const fromHeader = {
    client_id: formDecoded(decoded.slice(0, colon)),
    client_secret: formDecoded(decoded.slice(colon + 1)),
  };
  for (const name of ['client_id', 'client_secret'] as const) {
    const inForm = fields[name];
    if (inForm !== undefined && inForm !== fromHeader[name])
      return {
        problem: `${name} in the form differs from the Authorization: Basic header's: send one client authentication`,
      };
  }
  return { clientId: fromHeader.client_id, clientSecret: fromHeader.client_secret };
}

/**
 * Refuses credentials the client got wrong: in a Basic header that is 401 with a Basic
 * challenge (the header is what was wrong); in the form, the endpoint's usual 400.
 */
export function refuseClient(reply: FastifyReply, body: unknown, formRefusal: () => void): void {
  if (!BASIC.test(reply.request.headers.authorization ?? '')) return formRefusal();
  void reply.code(401).header('www-authenticate', 'Basic realm="platform"').send(body);
}
