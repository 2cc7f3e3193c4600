// Every contract operation against odd text in every field it names: lone surrogates, which no
// URL can carry, and the names of Object.prototype's members, which a plain object store would
// confuse with its own keys. The property: never an `internal` error (the bench server's 500),
// and the app still answers afterwards. A fixed seed and a bounded count keep it deterministic.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/core/app/contract';
import { useApp } from '../../helpers/app';

const get = useApp('app-contract-fuzz');

const SEED = 26;
const RUNS_PER_OPERATION = 6;

/** Operations that drive the radio, the simulated bench or long runs: their fuzz is elsewhere. */
const SKIPPED = /^(ble|sim|scenarios):|^provisioning:(provisionOne|startBatch)$/;

const METHOD_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const odd = fc.oneof(
  fc.constantFrom(...METHOD_NAMES),
  fc.constantFrom('\ud800', 'a\udc00b', '\udfff\ud800', 'x\ud83d', '😀', 'é', '', ' '),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }))
    .map(([s, unit]) => s + String.fromCharCode(unit)),
  fc.string({ maxLength: 12 }),
);

/** The field names an operation's input schema declares (none for non-object inputs). */
function fieldsOf(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

describe('contract fuzz', () => {
  it('no operation answers internal for lone surrogates or Object.prototype names in any field', async () => {
    const names = Object.keys(operations).filter((name) => !SKIPPED.test(name));
    expect(names.length).toBeGreaterThan(100);
    for (const name of names) {
      const fields = fieldsOf(operations[name as keyof typeof operations].input);
      const input = fields.length
        ? fc.record(Object.fromEntries(fields.map((f) => [f, odd])), { requiredKeys: [] })
        : fc.constant({});
      await fc.assert(
        fc.asyncProperty(input, async (value) => {
          const result = await get().app.invoke(name, value);
          if (!result.ok)
            expect(
              result.error.code,
              `${name} ${JSON.stringify(value)}: ${result.error.message}`,
            ).not.toBe('internal');
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION },
      );
    }
    expect((await get().app.invoke('app:getStatus', {})).ok).toBe(true);
  });
});
