// Zod issues in plain words, and field paths as a person names them: no JSON path and no
// validator text reaches a user.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldErrors, plainIssue } from '../../../src/core/platform/field-errors';
import { fieldInWords, fieldSentence, labelSentence } from '../../../src/core/platform/field-names';
import { rssiSchema, sleepMillisSchema } from '../../../src/core/bounds';

function messagesOf(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a refusal');
  return fieldErrors(parsed.error).map((e) => `${e.field}: ${e.message}`);
}

describe('plain issue words', () => {
  it.each<[string, z.ZodType, unknown, string]>([
    ['missing', z.object({ a: z.string() }), {}, 'a: is required'],
    ['wrong type (number)', z.object({ a: z.number() }), { a: 'x' }, 'a: must be a number'],
    ['wrong type (string)', z.object({ a: z.string() }), { a: 1 }, 'a: must be text'],
    ['wrong type (boolean)', z.object({ a: z.boolean() }), { a: 1 }, 'a: must be true or false'],
    ['wrong type (array)', z.object({ a: z.array(z.number()) }), { a: 1 }, 'a: must be a list'],
    ['wrong type (object)', z.object({ a: z.object({}) }), { a: 1 }, 'a: must be an object'],
    ['not an integer', z.object({ a: z.number().int() }), { a: 1.5 }, 'a: must be a whole number'],
    [
      'an integer past 2^53',
      z.object({ a: z.number().int() }),
      { a: 1e23 },
      'a: must be a whole number small enough to be exact (±9007199254740991)',
    ],
    ['too big', z.object({ a: z.number().max(20) }), { a: 21 }, 'a: must be at most 20'],
    [
      'too big, exclusive',
      z.object({ a: z.number().lt(20) }),
      { a: 20 },
      'a: must be less than 20',
    ],
    ['too small', z.object({ a: z.number().min(-127) }), { a: -128 }, 'a: must be at least -127'],
    [
      'too small, exclusive',
      z.object({ a: z.number().positive() }),
      { a: 0 },
      'a: must be more than 0',
    ],
    ['empty string', z.object({ a: z.string().min(1) }), { a: '' }, 'a: must not be empty'],
    [
      'short string',
      z.object({ a: z.string().min(3) }),
      { a: 'ab' },
      'a: must be at least 3 characters long',
    ],
    [
      'long string',
      z.object({ a: z.string().max(1) }),
      { a: 'ab' },
      'a: must be at most 1 character long',
    ],
    [
      'long list',
      z.object({ a: z.array(z.number()).max(2) }),
      { a: [1, 2, 3] },
      'a: must have at most 2 items',
    ],
    [
      'empty list',
      z.object({ a: z.array(z.number()).nonempty() }),
      { a: [] },
      'a: must not be empty',
    ],
    [
      'regex',
      z.object({ a: z.string().regex(/^x$/) }),
      { a: 'y' },
      'a: is not in the expected form',
    ],
    ['uuid', z.object({ a: z.uuid() }), { a: 'y' }, 'a: must be a UUID'],
    ['email', z.object({ a: z.email() }), { a: 'y' }, 'a: must be an email address'],
    ['url', z.object({ a: z.url() }), { a: 'y' }, 'a: must be a URL'],
    [
      'multiple of',
      z.object({ a: z.number().multipleOf(5) }),
      { a: 7 },
      'a: must be a multiple of 5',
    ],
    ['enum', z.object({ a: z.enum(['X', 'Y']) }), { a: 'Z' }, 'a: must be one of X, Y'],
    ['literal', z.object({ a: z.literal('X') }), { a: 'Z' }, 'a: must be "X"'],
    ['unknown keys', z.object({}).strict(), { b: 1 }, '(body): has a field it does not take: b'],
    [
      'union',
      z.object({ a: z.union([z.number(), z.boolean()]) }),
      { a: 'x' },
      'a: is not any of the accepted forms',
    ],
    [
      'custom refine',
      z.object({ a: z.number().refine((n) => n > 1) }),
      { a: 0 },
      'a: is not valid',
    ],
  ])('%s', (_, schema, value, expected) => {
    const [first] = messagesOf(schema, value);
    expect(first).toBe(expected);
    // Never zod's own wording.
    expect(first).not.toMatch(/Too (big|small)|Invalid input|expected .* to be|received/);
  });

  it("keeps a schema's own message over the plain default", () => {
    expect(messagesOf(z.object({ a: z.number().max(1, 'is too loud') }), { a: 2 })).toEqual([
      'a: is too loud',
    ]);
  });

  it('is the translation behind every parse, exported for parse-level use', () => {
    expect(
      plainIssue({
        code: 'too_big',
        origin: 'number',
        maximum: 20,
        inclusive: true,
        input: 21,
        path: [],
      }),
    ).toBe('must be at most 20');
  });

  it('gives the bounds of the bench in one rule per field', () => {
    expect(messagesOf(z.object({ minRssi: rssiSchema }), { minRssi: 20 })).toEqual([
      'minRssi: must be between −127 and 0 dBm',
    ]);
    expect(messagesOf(z.object({ s: sleepMillisSchema }), { s: 1000 * 86_400_000 })).toEqual([
      's: must be between 0 and 3600000 milliseconds',
    ]);
    expect(messagesOf(z.object({ s: sleepMillisSchema }), { s: 1.5 })).toEqual([
      's: must be a whole number of milliseconds',
    ]);
  });
});

describe('field names in words', () => {
  it.each([
    ['scenarios[0].actions[1].sleepMillis', 'Sleep time (scenario 1, action 2)'],
    ['scenarios[2].trigger.serviceUuid', 'Service UUID (scenario 3)'],
    ['scenarios[0].actions[1]', 'Action 2 (scenario 1)'],
    ['scenarios[2]', 'Scenario 3'],
    ['scenarios[0].actions[0].data', 'Data (scenario 1, action 1)'],
    ['suppressionInterval', 'Suppression interval'],
    ['minRssi', 'Minimum RSSI'],
    ['(body)', 'The request'],
    ['psdiStartValue', 'Psdi start value'],
  ])('%s → %s', (path, words) => {
    expect(fieldInWords(path)).toBe(words);
    expect(fieldInWords(path)).not.toMatch(/[[\].]/);
  });

  it('takes a zod path as well as a string', () => {
    expect(fieldInWords(['scenarios', 0, 'actions', 1, 'sleepMillis'])).toBe(
      'Sleep time (scenario 1, action 2)',
    );
  });

  it('makes a sentence of a name and a rule, keeping a message that is one already', () => {
    expect(fieldSentence('Data (scenario 1, action 1)', 'must be non-empty base64')).toBe(
      'Data (scenario 1, action 1) must be non-empty base64',
    );
    expect(fieldSentence('Data', 'Unexpected token')).toBe('Unexpected token');
    expect(labelSentence('Minimum RSSI (dBm)', 'must be between −127 and 0 dBm')).toBe(
      'Minimum RSSI must be between −127 and 0 dBm',
    );
  });

  it('makes a sentence of a label and a rule', () => {
    expect(fieldSentence('Minimum RSSI', 'must be between −127 and 0 dBm')).toBe(
      'Minimum RSSI must be between −127 and 0 dBm',
    );
  });
});
