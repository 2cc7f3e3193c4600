// A test program bundled once for the run (test/cli/cli-bundle.ts), to start with plain `node`
// where the test is about what the program does rather than how it is launched.
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProgram } from '../cli/cli-bundle';

/** The bundle's file: `spawn(process.execPath, [bundled(name), ...args])`. */
export function bundled(name: TestProgram): string {
  return join(inject('bundleDir'), `${name}.js`);
}
