// The unused-export check `npm run lint` runs (knip.jsonc), over a planted project
// (test/lint/fixtures/unused-export): an export nothing imports fails the lint, by name.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

it('fails the lint on an export nothing imports, naming it and its file', async () => {
  const knip = join(ROOT, 'node_modules/knip/bin/knip.js');
  const fixture = join(ROOT, 'test/lint/fixtures/unused-export');
  const failed = await run(process.execPath, [knip, '--directory', fixture, '--no-progress']).then(
    () => undefined,
    (err: { code?: number; stdout?: string }) => err,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.stdout).toMatch(/forgotten\s+function\s+src\/shapes\.ts/);
  // The export the entry imports is not reported.
  expect(failed?.stdout).not.toMatch(/\bused\s+function/);
}, 60_000);
