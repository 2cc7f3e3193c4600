// Turns zod issues into the field-named errors every boundary answers with
// (`scenarios[0].actions[1].data: must be base64`), so the emulator, the contract and the
// editor all name fields the same way. The rule of an issue is said in plain words here, once:
// a schema's own message wins, and any issue it leaves to zod is put in words by `plainIssue`
// instead of zod's "Too big: expected number to be <=20" (docs/decisions.md, "Validation that
// reads like a person").
import { z } from 'zod';

export interface FieldError {
  field: string;
  message: string;
}

type Issue = z.core.$ZodRawIssue;

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  date: 'a date',
  null: 'empty (null)',
};

const FORMAT_WORDS: Record<string, string> = {
  uuid: 'a UUID',
  guid: 'a UUID',
  email: 'an email address',
  url: 'a URL',
  datetime: 'a date and time (ISO 8601)',
  date: 'a date (YYYY-MM-DD)',
  base64: 'base64',
  base64url: 'base64url',
  jwt: 'a JSON Web Token',
};

function count(n: number | bigint, one: string): string {
  return `${n} ${one}${Number(n) === 1 ? '' : 's'}`;
}

function bound(issue: { origin?: string; inclusive?: boolean }, n: number | bigint, big: boolean) {
  const limit = big ? 'at most' : 'at least';
  const strict = big ? 'less than' : 'more than';
  const word = issue.inclusive === false ? strict : limit;
  switch (issue.origin) {
    case 'string':
      return `must be ${word} ${count(n, 'character')} long`;
    case 'array':
    case 'set':
      return `must have ${word} ${count(n, 'item')}`;
    case 'file':
      return `must be ${word} ${count(n, 'byte')}`;
    case 'int':
      return 'must be a whole number small enough to be exact (±9007199254740991)';
    default:
      return `must be ${word} ${n}`;
  }
}

/** An issue's rule in plain words, for the issues a schema leaves to zod's default text. */
export function plainIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'too_big':
      return bound(issue, issue.maximum, true);
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1 && issue.inclusive !== false)
        return 'must not be empty';
      if ((issue.origin === 'array' || issue.origin === 'set') && Number(issue.minimum) === 1)
        return 'must not be empty';
      return bound(issue, issue.minimum, false);
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the expected form';
      if (issue.format === 'starts_with') return `must start with "${String(issue.prefix)}"`;
      if (issue.format === 'ends_with') return `must end with "${String(issue.suffix)}"`;
      if (issue.format === 'includes') return `must contain "${String(issue.includes)}"`;
      return `must be ${FORMAT_WORDS[issue.format] ?? issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} it does not take: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return 'is not any of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not valid';
    case 'invalid_element':
      return 'has an element that is not valid';
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    default:
      return 'is not valid';
  }
}

// Every parse in the process (emulator, contract, CLI, renderer) falls back on plain words.
z.config({ customError: (issue) => plainIssue(issue) });

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: fieldPath(issue.path) || '(body)',
    message: issue.message,
  }));
}

export function describeFieldErrors(errors: FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
