// fast-check arbitraries read off a zod schema, for fuzzing a boundary with its own contract:
// `validFor` aims at values the schema takes (best effort: a refinement or a pattern may still
// refuse one), `invalidFor` at values it refuses: another JSON type, a number out of its range or
// not whole, text too short or too long, a required field missing, one field wrong. Only JSON
// values come out (no undefined inside arrays, no NaN or Infinity), as a request body carries.
// URLs are loopback ones on the discard port, so nothing a fuzz saves sends traffic off this
// machine or waits on a name lookup.
import fc from 'fast-check';
import type { z } from 'zod';

interface Def {
  type: string;
  [key: string]: unknown;
}

interface Bounds {
  min?: number;
  max?: number;
  int?: boolean;
  format?: string;
  pattern?: RegExp;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;
const isOptional = (schema: unknown) =>
  (schema as { _zod: { optin?: string } })._zod.optin === 'optional';

/** How deep objects and arrays go before only the smallest value of each is made. */
const MAX_DEPTH = 4;
/** The longest text or array made; a schema's own bounds win where they are lower. */
const MAX_MADE = 24;
/** Text longer than this is not made too long: the body limit would answer, not the schema. */
const MAX_OVERLONG = 10_000;

const LOOPBACK_URLS = ['http://127.0.0.1:9/', 'https://127.0.0.1:9/hook', 'http://localhost:9/x'];
const JSON_JUNK = fc.constantFrom<unknown>('x', 0, -1, 1.5, true, null, [], {}, [1, 'a'], {
  unexpected: 1,
});

function boundsOf(def: Def): Bounds {
  const bounds: Bounds = {};
  if (typeof def.format === 'string') bounds.format = def.format;
  for (const check of (def.checks as { _zod: { def: Record<string, unknown> } }[] | undefined) ??
    []) {
    const c = check._zod.def;
    if (c.check === 'min_length' || c.check === 'length_equals')
      bounds.min = Number(c.minimum ?? c.length);
    if (c.check === 'max_length' || c.check === 'length_equals')
      bounds.max = Number(c.maximum ?? c.length);
    if (c.check === 'greater_than') bounds.min = Number(c.value) + (c.inclusive ? 0 : 1e-9);
    if (c.check === 'less_than') bounds.max = Number(c.value) - (c.inclusive ? 0 : 1e-9);
    if (c.check === 'number_format' && String(c.format).includes('int')) bounds.int = true;
    if (c.check === 'string_format') {
      bounds.format = String(c.format);
      if (c.pattern instanceof RegExp && c.format === 'regex') bounds.pattern = c.pattern;
    }
  }
  return bounds;
}

function validString(b: Bounds): fc.Arbitrary<string> {
  if (b.format === 'url' || b.format === 'uri') return fc.constantFrom(...LOOPBACK_URLS);
  if (b.format === 'uuid' || b.format === 'guid') return fc.uuid();
  if (b.format === 'email') return fc.emailAddress();
  const minLength = Math.min(b.min ?? 0, MAX_MADE);
  const plain = fc.string({
    minLength,
    maxLength: Math.max(minLength, Math.min(b.max ?? MAX_MADE, MAX_MADE)),
  });
  return b.pattern ? fc.oneof(fc.stringMatching(b.pattern, { size: 'xsmall' }), plain) : plain;
}

function validNumber(b: Bounds): fc.Arbitrary<number> {
  const min = Math.max(b.min ?? -1e6, -1e6);
  const max = Math.min(b.max ?? 1e6, 1e6);
  if (b.int)
    return fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) });
  return fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true });
}

/** Values `schema` aims to take. */
export function validFor(schema: z.ZodType | unknown, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const inner = (key: string) => validFor(def[key], depth);
  switch (def.type) {
    case 'string':
      return validString(boundsOf(def));
    case 'number':
      return validNumber(boundsOf(def));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'undefined':
    case 'void':
      return fc.constant(undefined);
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
    case 'optional':
    case 'default':
    case 'prefault':
      return fc.option(inner('innerType'), { nil: undefined });
    case 'nullable':
      return fc.option(inner('innerType'), { nil: null });
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return inner('innerType');
    case 'pipe':
      return inner('in');
    case 'lazy':
      return depth > MAX_DEPTH ? JSON_JUNK : validFor((def.getter as () => unknown)(), depth + 1);
    case 'array': {
      const b = boundsOf(def);
      const minLength = b.min ?? 0;
      const maxLength =
        depth > MAX_DEPTH ? minLength : Math.max(minLength, Math.min(b.max ?? 3, 3));
      return fc.array(validFor(def.element, depth + 1), { minLength, maxLength });
    }
    case 'tuple':
      return fc.tuple(...(def.items as unknown[]).map((item) => validFor(item, depth + 1)));
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const required = Object.keys(shape).filter((key) => !isOptional(shape[key]));
      if (depth > MAX_DEPTH && required.length === 0) return fc.constant({});
      return fc.record(
        Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, validFor(v, depth + 1)])),
        { requiredKeys: required },
      );
    }
    case 'record':
      return fc.dictionary(
        fc.string({ minLength: 1, maxLength: 8 }),
        validFor(def.valueType, depth + 1),
        {
          maxKeys: depth > MAX_DEPTH ? 0 : 3,
        },
      );
    case 'union':
      return fc.oneof(...(def.options as unknown[]).map((option) => validFor(option, depth)));
    case 'intersection':
      return fc
        .tuple(inner('left'), inner('right'))
        .map(([l, r]) =>
          typeof l === 'object' && typeof r === 'object' && l && r ? { ...l, ...r } : l,
        );
    default:
      // any, unknown, custom, transform: whatever JSON.
      return JSON_JUNK;
  }
}

/** Values `schema` should refuse (mostly: a union may take what one option refuses). */
export function invalidFor(schema: z.ZodType | unknown, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const notA = (...kinds: unknown[]) => fc.constantFrom(...kinds);
  switch (def.type) {
    case 'string': {
      const b = boundsOf(def);
      const wrong: fc.Arbitrary<unknown>[] = [notA(7, true, null, [], { a: 1 })];
      if (b.min !== undefined && b.min > 0) wrong.push(fc.constant('x'.repeat(b.min - 1)));
      if (b.max !== undefined && b.max < MAX_OVERLONG)
        wrong.push(fc.constant('x'.repeat(b.max + 1)));
      if (b.format !== undefined) wrong.push(notA('not-a-' + b.format, ' ', '::'));
      return fc.oneof(...wrong);
    }
    case 'number': {
      const b = boundsOf(def);
      const wrong: fc.Arbitrary<unknown>[] = [notA('12', true, null, [], {}), notA(1e300, -1e300)];
      if (b.min !== undefined) wrong.push(fc.constantFrom(b.min - 1, b.min - 0.5, 0, -1));
      if (b.max !== undefined) wrong.push(fc.constant(b.max + 1));
      if (b.int) wrong.push(fc.constant(1.5));
      return fc.oneof(...wrong);
    }
    case 'boolean':
      return notA('true', 1, 0, null, []);
    case 'literal':
    case 'enum':
      return notA('not-one-of-them', 12, null, []);
    case 'optional':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return invalidFor(def.innerType, depth);
    case 'nullable':
      return invalidFor(def.innerType, depth).filter((v) => v !== null);
    case 'pipe':
      return fc.oneof(invalidFor(def.in, depth), invalidFor(def.out, depth));
    case 'lazy':
      return depth > MAX_DEPTH ? JSON_JUNK : invalidFor((def.getter as () => unknown)(), depth + 1);
    case 'array': {
      const b = boundsOf(def);
      const wrong: fc.Arbitrary<unknown>[] = [notA('x', 3, {}, null)];
      if (depth <= MAX_DEPTH)
        wrong.push(fc.array(invalidFor(def.element, depth + 1), { minLength: 1, maxLength: 2 }));
      if (b.max !== undefined && b.max < 200 && depth <= MAX_DEPTH)
        wrong.push(
          fc.array(validFor(def.element, depth + 1), {
            minLength: b.max + 1,
            maxLength: b.max + 1,
          }),
        );
      return fc.oneof(...wrong);
    }
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const keys = Object.keys(shape);
      const wrong: fc.Arbitrary<unknown>[] = [notA('x', 3, [], null, true)];
      if (depth > MAX_DEPTH || keys.length === 0) return fc.oneof(...wrong);
      const whole = validFor(schema, depth) as fc.Arbitrary<Record<string, unknown>>;
      // One field wrong, the others as valid as they come.
      wrong.push(
        fc
          .tuple(whole, fc.constantFrom(...keys))
          .chain(([value, key]) =>
            invalidFor(shape[key], depth + 1).map((bad) => ({ ...value, [key]: bad })),
          ),
      );
      const required = keys.filter((key) => !isOptional(shape[key]));
      if (required.length)
        wrong.push(
          fc.tuple(whole, fc.constantFrom(...required)).map(([value, key]) => {
            const rest = { ...value };
            delete rest[key];
            return rest;
          }),
        );
      return fc.oneof(...wrong);
    }
    default:
      return JSON_JUNK;
  }
}
