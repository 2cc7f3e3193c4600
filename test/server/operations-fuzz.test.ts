// Every contract operation over the bench server's HTTP, with bodies generated from its own input
// schema: valid ones, invalid ones (another JSON type, a number out of range or not whole, text
// too short or too long, a field missing or wrong) and bodies that are no object at all, which a
// void operation gets too. The property (docs/decisions/security-and-hardening.md, "No 500 from
// any operation"): the answer is a 2xx, a 4xx whose message names the field (a 400) or says why
// (a 409), or the 502 of a device or platform that refused, never a 500. A fixed seed and a few
// runs per operation keep it deterministic and short.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type OperationName } from '../../src/core/app/contract';
import { parseInput } from '../../src/core/app/contracts/op';
import { startBenchServer, type BenchServer } from '../../src/server/bench-server';
import { invalidFor, validFor } from '../helpers/zod-arbitrary';

const SEED = Number(process.env.FUZZ_SEED ?? 44);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 6);
/** A request still unanswered after this is a failure: an operation must answer bounded. */
const ANSWER_WITHIN_MS = 15_000;

/**
 * Operations that start radio work, a firmware transfer, a dry run or a provisioning batch: a
 * valid body would start it (and their own tests drive those). They get only bodies their schema
 * refuses, which must be refused before anything starts.
 */
const STARTS_WORK =
  /^(ble:(startScan|connect|pair|reconnect|read|write|subscribe|unsubscribe|updateConnection|setPhy|readRssi|restartHost|setAdapters)|firmware:(upload|test|confirm|reset|echo|slots)|scenarios:(start|readBoard)|provisioning:(provisionOne|startBatch))$/;

/** What a void operation, or any, may be sent that is no object: its schema answers it. */
const NOT_AN_OBJECT = fc.constantFrom<unknown>('x', 7, -1, true, null, [], ['a'], { extra: 1 });

let server: BenchServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'bench-fuzz-'));
  server = await startBenchServer({ dataDir, staticDir: join(dataDir, 'no-renderer') });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: {
    ok: boolean;
    error?: { code: string; message: string; fields?: { field: string; message: string }[] };
  };
}

async function post(name: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${server.url}/api/ops/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** Why `answer` breaks the property, or undefined. */
function broken(answer: Answer): string | undefined {
  const { status, body } = answer;
  if (status >= 200 && status < 300) return body.ok ? undefined : 'a 2xx without ok';
  if (status === 400) {
    const named = body.error?.fields?.[0];
    if (body.error?.code !== 'invalid_input') return 'a 400 that is not invalid_input';
    if (!named?.field) return 'a 400 naming no field';
    // "name: is required", or a file's refusal led by the file's name.
    return body.error.message.includes(named.field) || body.error.message.includes(named.message)
      ? undefined
      : 'a 400 whose message says neither its field nor its problem';
  }
  if (status === 409) return body.error?.message ? undefined : 'a 409 without a reason';
  // The platform's or a board's own refusal, passed on with its words.
  if (status === 502)
    return ['platform', 'device', 'unreachable'].includes(body.error?.code ?? '')
      ? undefined
      : 'a 502 that is no device, platform or reachability error';
  return `status ${status}`;
}

describe('every contract operation over the bench server', () => {
  it('answers bodies made from its own schema with a 2xx or a 4xx naming the field, never a 500', async () => {
    const names = Object.keys(operations) as OperationName[];
    expect(names.length).toBeGreaterThan(150);
    const failures: string[] = [];
    for (const name of names) {
      const spec = operations[name];
      const startsWork = STARTS_WORK.test(name);
      const bodies = startsWork
        ? fc.oneof(invalidFor(spec.input), NOT_AN_OBJECT)
        : fc.oneof(validFor(spec.input), invalidFor(spec.input), NOT_AN_OBJECT);
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          if (startsWork) fc.pre(!parseInput(spec, body).ok);
          let answer: Answer;
          try {
            answer = await post(name, body);
          } catch (err) {
            failures.push(`${name} ${JSON.stringify(body)}: ${String(err)}`);
            return;
          }
          const why = broken(answer);
          if (why)
            failures.push(
              `${name} ${JSON.stringify(body)?.slice(0, 200)} → ${answer.status} ${JSON.stringify(answer.body.error)}: ${why}`,
            );
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION },
      );
    }
    expect(failures).toEqual([]);
    // And the server still answers.
    expect((await post('app:getStatus', {})).status).toBe(200);
  }, 120_000);
});
