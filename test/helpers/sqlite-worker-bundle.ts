// A setup file of the unit projects (vitest.config.ts): stores opened from the sources start
// the run's bundled SQLite worker (test/cli/cli-bundle.ts), the same entry esbuild builds as
// tsx would load it, instead of registering tsx in every worker thread (about 0.8 s an open;
// docs/decisions/tooling.md, "Eighth round"). test/core/audit/sqlite-worker.test.ts keeps the
// sources' path through tsx tested with `startSqliteWorkersFromSources`.
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { startWorkersFromSourcesWith } from '../../src/core/audit/sqlite-worker-store';

/** The bundle's worker, an entry of its own beside the programs. */
const BUNDLED_WORKER = join(inject('bundleDir'), 'sqlite-worker.js');

startWorkersFromSourcesWith(BUNDLED_WORKER);

/** For a file about the worker's tsx path: its stores register tsx, as `bin/devicebench.mjs`'s do. */
export function startSqliteWorkersFromSources(): void {
  beforeAll(() => startWorkersFromSourcesWith(undefined));
  afterAll(() => startWorkersFromSourcesWith(BUNDLED_WORKER));
}
