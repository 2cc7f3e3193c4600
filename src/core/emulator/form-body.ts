// `application/x-www-form-urlencoded` bodies, for the OAuth-style routes (login, module
// attach). Registered per scope so the rest of the emulator stays JSON-only; `parseAs: 'string'`
// reads through Fastify's body limit, so a form over 2 MB still ends in the server's 413.
import type { FastifyInstance } from 'fastify';
import { keyedRecord } from '../keyed-record';

export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A parsed form; repeated parameters are kept aside because OAuth refuses them. */
export class FormBody {
  constructor(
    readonly fields: Record<string, string>,
    readonly repeated: string[],
  ) {}
}

export function acceptForms(scope: FastifyInstance): void {
  scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    const fields = keyedRecord<string>();
    const repeated: string[] = [];
    for (const [key, value] of new URLSearchParams(body as string)) {
      if (key in fields && !repeated.includes(key)) repeated.push(key);
      fields[key] = value;
    }
    done(null, new FormBody(fields, repeated));
  });
}
