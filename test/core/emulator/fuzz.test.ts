// The emulator's input bounds (docs/decisions.md, "Hardening"), as a property: whatever a careless
// or hostile client sends to any route the emulator serves (taken from the Fastify instance, not
// listed by hand), the answer is never a 5xx, every error is JSON with a `message`, and the
// emulator still answers afterwards. A fixed seed and a bounded count keep it deterministic and
// well under a minute.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EmulatorRoute } from '../../../src/core/emulator/server';
import { useEmulator } from '../../helpers/emulator';

const emu = useEmulator();

const SEED = 15;
const RUNS_PER_ROUTE = 25;

/** Field and parameter names the emulator's routes read, so generated input gets past the door. */
const NAMES = [
  'name',
  'channelId',
  'userId',
  'productId',
  'deviceId',
  'ms',
  'kind',
  'status',
  'limit',
  'access_token',
  'id_token',
  'client_id',
  'client_secret',
  'refresh_token',
  'grant_type',
  'code',
  'redirect_uri',
  'to',
  'messages',
  'templateKey',
  'items',
  'url',
  'displayName',
  'scenarios',
  'autoClose',
  'suppressionInterval',
  'country',
  'platformChannelId',
  'module',
  'page',
  'countPerPage',
  'query',
  'date',
  'target',
  'chatId',
  'ttl',
  'orderId',
  'view',
  'scope',
  'productSpecificDeviceId',
  'result',
  '__proto__',
  'constructor',
];

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '0', '-1', '1e309', 'null', '2000000001', '3000000001', 'th', 'JP'),
  fc.constantFrom(`U${'0'.repeat(32)}`, 'Uffffffffffffffffffffffffffffffff', '%00', '../..', 'é'),
  // Lone surrogates and Object.prototype's member names, as IDs and values.
  fc.constantFrom('\ud800', 'a\udc00', '\udfff\ud800', '__proto__', 'constructor', 'toString'),
  fc.constantFrom('hasOwnProperty', 'valueOf'),
);

/**
 * One path segment as a client that does not check would send it: a lone surrogate as the three
 * bytes UTF-8 would give it (encodeURIComponent refuses it).
 */
function segment(value: string): string {
  return [...value]
    .map((ch) => {
      if (!/\p{Cs}/u.test(ch)) return encodeURIComponent(ch);
      const unit = ch.charCodeAt(0);
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    })
    .join('');
}
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, true, false, null),
  fc.jsonValue({ maxDepth: 3 }),
);
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...NAMES), value, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.integer({ min: 65, max: 3_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.constantFrom('', '{', 'not json', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
  undefined,
);
/** Names routes read from the query string; half the time every one is given twice. */
const QUERY_NAMES = [
  'access_token',
  'id_token',
  'channelId',
  'userId',
  'productId',
  'orderId',
  'limit',
  'kind',
  'date',
  'page',
  'countPerPage',
  'country',
  'platformChannelId',
  'module',
  'query',
  'target',
];
const query = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...QUERY_NAMES), text), { maxLength: 4 }), fc.boolean())
  .map(([pairs, twice]) =>
    twice ? [...pairs, ...pairs.map(([k, v]): [string, string] => [k, `${v}2`])] : pairs,
  );

interface Attempt {
  path: string;
  auth: 'valid' | 'invalid' | 'none';
  body?: string;
  contentType?: string;
}

function attempt(route: EmulatorRoute): fc.Arbitrary<Attempt> {
  const params = route.url.split('/').filter((part) => part.startsWith(':'));
  return fc
    .record({
      params: fc.array(text, { minLength: params.length, maxLength: params.length }),
      query,
      auth: fc.constantFrom('valid' as const, 'invalid' as const, 'none' as const),
      body: ['GET', 'DELETE'].includes(route.method) ? fc.constant(undefined) : body,
      contentType,
    })
    .map(({ params: values, query: pairs, auth, body: b, contentType: type }) => {
      let i = 0;
      const path = route.url.replace(/:[A-Za-z]+/g, () => segment(values[i++] || 'x'));
      const search = new URLSearchParams(pairs).toString();
      return { path: search ? `${path}?${search}` : path, auth, body: b, contentType: type };
    });
}

describe('emulator fuzz', () => {
  it('no route answers 5xx, every error is JSON with a message, and it keeps answering', async () => {
    const { emulator, token } = emu();
    // Fault injection answers 5xx on purpose; the property is about what clients can cause.
    const routes = emulator.routes.filter(
      (r) => r.method !== 'HEAD' && !(r.method === 'POST' && r.url === '/__admin/faults'),
    );
    expect(routes.length).toBeGreaterThan(100);

    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(attempt(route), async ({ path, auth, body: b, contentType: type }) => {
          const headers: Record<string, string> = {};
          if (type && b !== undefined) headers['content-type'] = type;
          if (auth !== 'none')
            headers['authorization'] = `Bearer ${auth === 'valid' ? token : 'x'}`;
          const res = await fetch(emulator.url + path, { method: route.method, headers, body: b });
          const answer = await res.text();
          expect(res.status, `${route.method} ${path}`).toBeLessThan(500);
          if (res.status >= 400) {
            const parsed = JSON.parse(answer) as { message?: unknown };
            expect(typeof parsed.message, `${route.method} ${path}: ${answer}`).toBe('string');
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    }

    const state = await fetch(`${emulator.adminUrl}/state`);
    expect(state.status).toBe(200);
  }, 60_000);
});
