// JSON request bodies for the app's listeners (emulator, bench server): nesting is bounded before
// anything is parsed, so a body nested thousands of levels deep is a 400 instead of a stack
// overflow in a schema or a serialiser later. Fastify's own parser does the rest.
import type { FastifyInstance } from 'fastify';

/** Deepest nesting of objects and arrays a JSON body may have (docs/decisions.md, "Hardening"). */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` nests objects and arrays deeper than `limit`; brackets in strings do not count. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

class JsonTooDeepError extends Error {
  readonly statusCode = 400;
  readonly code = 'DEVICEBENCH_JSON_TOO_DEEP';
  constructor() {
    super(`Request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * Replaces the instance's `application/json` parser with the depth-bounded one, which reads an
 * empty body as none. Prototype keys
 * (`__proto__`, `constructor.prototype`) are refused by the parser (`error`), or kept as plain data for a
 * later check that can name the field (`keep`; JSON.parse never sets a prototype from them).
 */
export function boundJsonDepth(
  app: FastifyInstance,
  prototypeKeys: 'error' | 'keep' = 'error',
): void {
  const action = prototypeKeys === 'keep' ? 'ignore' : 'error';
  const parse = app.getDefaultJsonParser(action, action);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // `parseAs: 'string'` always hands over a string.
    const text = body as string;
    // The documents give some calls the JSON headers and no body (release control) or a body
    // whose every field is optional (acquire control): an empty body is no body, and each
    // route's schema decides whether it needs one (docs/decisions.md, "Emulator fidelity").
    if (text === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(new JsonTooDeepError());
    parse(request, text, done);
  });
}
