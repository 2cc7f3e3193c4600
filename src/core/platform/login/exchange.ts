// One HTTP request and its answer as the login console shows them, recorded by wrapping the
// client's fetch; secrets masked for display and for "copy as curl" unless asked for.
import { REQUEST_ID_HEADER } from '../http';
import { maskBody, maskHeaders, maskTarget, namesSecret } from '../secret-mask';
import type { Exchange } from './schema';

/** The exchange with every credential in its URL, headers and both bodies masked. */
export function maskExchange(exchange: Exchange): Exchange {
  const headers = maskHeaders(exchange.request.headers);
  const { response } = exchange;
  return {
    ...exchange,
    request: {
      ...exchange.request,
      url: maskTarget(exchange.request.url),
      headers,
      body: exchange.request.body && maskBody(exchange.request.body, headers['content-type']),
    },
    response: response && { ...response, body: maskBody(response.body, response.contentType) },
  };
}

/**
 * The credentials an answer carries at its top level (`access_token`, `refresh_token`,
 * `id_token`…), unmasked, by their JSON name: what a "Copy" button copies and the guided flow
 * sends next, never what is drawn.
 */
export function credentialsOf(body: unknown): Record<string, string> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  return Object.fromEntries(
    Object.entries(body).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && namesSecret(entry[0]),
    ),
  );
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command line; pass an already masked exchange to hide secrets. */
export function toCurl(exchange: Exchange): string {
  const { method, url, headers, body } = exchange.request;
  const explicit = method !== 'GET' || body !== undefined ? ` -X ${method}` : '';
  const lines = [`curl -i${explicit} ${shellQuote(url)}`];
  for (const [name, value] of Object.entries(headers))
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (body !== undefined) lines.push(`--data-raw ${shellQuote(body)}`);
  return lines.join(' \\\n  ');
}

/**
 * A fetch that hands every request and answer to `record` (the answer's body is read from a
 * clone, so the caller still gets the original).
 */
export function recordingFetch(
  record: (exchange: Exchange) => void,
  now: () => number = Date.now,
  inner: typeof fetch = globalThis.fetch,
): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const exchange: Exchange = {
      id: crypto.randomUUID(),
      at: now(),
      request: {
        method: init?.method ?? 'GET',
        url,
        headers,
        body: typeof init?.body === 'string' ? init.body : undefined,
      },
    };
    const started = performance.now();
    try {
      const res = await inner(input, init);
      exchange.response = {
        status: res.status,
        requestId: res.headers.get(REQUEST_ID_HEADER) ?? undefined,
        contentType: res.headers.get('content-type') ?? undefined,
        body: await res.clone().text(),
        durationMs: Math.round(performance.now() - started),
      };
      return res;
    } finally {
      record(exchange);
    }
  };
}
