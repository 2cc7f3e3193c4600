// The import rules `npm run lint` runs (.dependency-cruiser.cjs), run once over planted trees
// (test/lint/fixtures/<case>/src): each broken tree must fail naming its rule, and the tree that
// keeps the rules must pass.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = 'test/lint/fixtures';

let exitCode = -1;
let violations: string[] = [];

/** The violations reported for one fixture tree, as "<rule>: <from> → …" lines. */
function violationsIn(fixture: string): string[] {
  return violations.filter((line) => line.includes(`${FIXTURES}/${fixture}/`));
}

beforeAll(async () => {
  const args = [
    'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
    FIXTURES,
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'err',
  ];
  let report = '';
  try {
    report = (await run(process.execPath, args, { cwd: ROOT })).stdout;
    exitCode = 0;
  } catch (err) {
    const failed = err as { code?: number; stdout?: string };
    exitCode = failed.code ?? -1;
    report = failed.stdout ?? '';
  }
  // A cycle is reported over several lines; join each violation onto one.
  violations = report
    .split(/\n(?=\s*error )/)
    .map((block) => block.replace(/\s+/g, ' ').trim())
    .filter((block) => block.startsWith('error '));
}, 120_000);

describe('import rules', () => {
  it('fail the run, one error per planted violation', () => {
    expect(exitCode).toBe(18);
    expect(violations).toHaveLength(18);
  });

  it('pass a tree where the emulator imports the platform', () => {
    expect(violationsIn('clean')).toEqual([]);
  });

  it('fail on an import cycle', () => {
    expect(violationsIn('cycle')).toEqual([expect.stringMatching(/^error no-cycle: /)]);
  });

  it('fail when the platform imports the emulator', () => {
    expect(violationsIn('upward')).toEqual([
      expect.stringMatching(/^error platform-not-to-emulator: /),
    ]);
  });

  it("fail when one console's folder imports another's", () => {
    expect(violationsIn('consoles')).toEqual([
      expect.stringMatching(/^error console-not-to-other-console: /),
    ]);
  });

  it('fail when the core imports the renderer', () => {
    expect(violationsIn('downward')).toEqual([
      expect.stringMatching(/^error core-framework-free: /),
    ]);
  });

  it("fail when the renderer imports the emulator's internals", () => {
    expect(violationsIn('internals')).toEqual([
      expect.stringMatching(/^error renderer-not-to-emulator-internals: /),
    ]);
  });

  it('fail when a layer below the app imports core/app', () => {
    expect(violationsIn('below-app')).toEqual([expect.stringMatching(/^error core-not-to-app: /)]);
  });

  it('fail when a layer below the use cases imports core/usecases', () => {
    expect(violationsIn('below-usecases')).toEqual([
      expect.stringMatching(/^error core-not-to-usecases: /),
    ]);
  });

  it('fail when the BLE layer (the simulated bench) imports provisioning', () => {
    expect(violationsIn('ble-upward')).toEqual([
      expect.stringMatching(/^error ble-not-to-provisioning: /),
    ]);
  });

  it('fail when the radio imports the BLE process, or the HCI layer and the bench the radio', () => {
    const found = violationsIn('radio-order');
    expect(found).toHaveLength(2);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error radio-under-host: .*\/radio\/open-central\.ts/),
        expect.stringMatching(/^error hci-and-sim-under-radio: .*\/hci\/tap\.ts/),
      ]),
    );
  });

  it('fail when the core imports an entry point', () => {
    expect(violationsIn('entry')).toEqual([
      expect.stringMatching(/^error core-not-to-entry-points: /),
    ]);
  });

  it('fail when the platform imports a core module outside its foundation', () => {
    expect(violationsIn('platform-reach')).toEqual([
      expect.stringMatching(/^error platform-foundation: /),
    ]);
  });

  it('fail when the CLI reaches into core/app or past the use cases, or a handler past the use cases and its own client', () => {
    const found = violationsIn('front-ends');
    expect(found).toHaveLength(4);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error cli-not-to-app: .*\/cli\/commands\/trace\.ts/),
        expect.stringMatching(
          /^error cli-over-usecases: .*\/cli\/commands\/scenario\.ts → .*\/scenario\/rules\.ts/,
        ),
        expect.stringMatching(
          /^error handlers-over-usecases: .*\/handlers\/audit\.ts → .*\/audit\/store\.ts/,
        ),
        expect.stringMatching(
          /^error handlers-over-usecases: .*\/handlers\/things\.ts → .*\/platform\/things\/events\.ts/,
        ),
      ]),
    );
  });

  it('fail when a provisioning command reaches under the use-case floor', () => {
    expect(violationsIn('cli-floor')).toEqual([
      expect.stringMatching(
        /^error cli-over-usecases: .*\/cli\/commands\/provision\.ts → .*\/provisioning\/workflow\.ts/,
      ),
    ]);
  });

  it('fail when the webhooks import the platform above them', () => {
    expect(violationsIn('webhooks-reach')).toEqual([
      expect.stringMatching(/^error webhooks-foundation: /),
    ]);
  });
});
