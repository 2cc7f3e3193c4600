// The one way a credential is shown anywhere a request or an answer is shown (status bar, the
// emulator's activity log, the login console, copy as curl, exports): the mask and the last four
// characters, "•••• nrV_", never percent-encoded (docs/decisions.md, "Secrets in requests").
const MASK = '••••';

/** Shorter than this, even four characters give too much of a secret away. */
const SHORTEST_WITH_HINT = 9;

/** A secret's hint as it is shown: `•••• nrV_`, or the mask alone when there is no hint. */
export function maskedHint(hint: string | undefined): string {
  return hint ? `${MASK} ${hint}` : MASK;
}

/** A secret as it is shown. */
export function maskSecret(value: string): string {
  return maskedHint(value.length >= SHORTEST_WITH_HINT ? value.slice(-4) : undefined);
}

/**
 * Whether a query parameter, form field, JSON key, header or path word names a credential:
 * tokens (`access_token`, `notificationToken`, `userAccessToken`…), secrets, an authorization
 * code and its PKCE verifier, passwords. A pagination `continuationToken` and `token_type` are
 * not secrets.
 */
export function namesSecret(name: string): boolean {
  const key = name.toLowerCase().replace(/[-_]/g, '');
  if (key === 'continuationtoken' || key === 'tokentype') return false;
  return /tokens?$|secrets?$|^codes?$|verifier$|password$|^authorization$/.test(key);
}

/** `k=v&…` with the credentials' values masked; other pairs are kept exactly as written. */
function maskPairs(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 0) return pair;
      const key = pair.slice(0, at);
      if (!namesSecret(decodeText(key))) return pair;
      return `${key}=${maskSecret(decodeText(pair.slice(at + 1)))}`;
    })
    .join('&');
}

function decodeText(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * A URL or a request target (`/path?query`) with credentials masked: query values of secret
 * names, and a path segment that follows a secret's name (`/tokens/<token>`, `/codes/<code>`).
 */
export function maskTarget(target: string): string {
  const hashAt = target.indexOf('#');
  const withoutHash = hashAt < 0 ? target : target.slice(0, hashAt);
  const queryAt = withoutHash.indexOf('?');
  const path = queryAt < 0 ? withoutHash : withoutHash.slice(0, queryAt);
  const segments = path.split('/');
  const masked = segments.map((segment, i) =>
    i > 0 && segment !== '' && namesSecret(segments[i - 1] ?? '')
      ? maskSecret(decodeText(segment))
      : segment,
  );
  return masked.join('/') + (queryAt < 0 ? '' : `?${maskPairs(withoutHash.slice(queryAt + 1))}`);
}

/** Headers with an `Authorization` credential (and any secret-named header) masked. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!namesSecret(name)) out[name] = value;
    else {
      const scheme = /^(\S+) (\S+)$/.exec(value);
      out[name] = scheme ? `${scheme[1]} ${maskSecret(scheme[2] ?? '')}` : maskSecret(value);
    }
  }
  return out;
}

/** A parsed JSON document (a request's or an answer's) with its credentials masked, nested too. */
export function maskJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskJson);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      typeof inner === 'string' && namesSecret(key) ? maskSecret(inner) : maskJson(inner),
    ]),
  );
}

/** A body with credentials masked: a form's fields or a JSON document's keys, nested too. */
export function maskBody(body: string, contentType: string | undefined): string {
  if (contentType?.startsWith('application/x-www-form-urlencoded')) return maskPairs(body);
  try {
    return JSON.stringify(maskJson(JSON.parse(body)));
  } catch {
    return body;
  }
}
