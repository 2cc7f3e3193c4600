// A setup file of the unit projects (vitest.config.ts): what the sources start beside them,
// the SQLite log's worker thread and the BLE process, starts from the run's bundle
// (test/cli/cli-bundle.ts), the same entries built from the same sources, instead of loading
// the sources through tsx each time (a worker thread about 0.8 s an open at load 6, against
// 0.2 s; docs/decisions/tooling.md, "Eighth round"). The files about those two starts keep the
// tsx path tested: test/core/audit/sqlite-worker.test.ts and
// test/core/ble/host/ble-host.test.ts, through `startChildrenFromSources`.
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { startWorkersFromSourcesWith } from '../../src/core/audit/sqlite-worker-store';
import { forkHostsFromSourcesWith } from '../../src/core/ble/host/ble-host';

/** The bundle's entries of their own beside the programs (test/cli/cli-bundle.ts). */
const BUNDLED_WORKER = join(inject('bundleDir'), 'sqlite-worker.js');
const BUNDLED_HOST = join(inject('bundleDir'), 'host-main.js');

function fromBundle(): void {
  startWorkersFromSourcesWith(BUNDLED_WORKER);
  forkHostsFromSourcesWith(BUNDLED_HOST);
}

fromBundle();

/**
 * For a file about how the sources start their children: its SQLite workers and BLE processes
 * load the sources through tsx, as under the package's launcher (`bin/devicebench.mjs`).
 */
export function startChildrenFromSources(): void {
  beforeAll(() => {
    startWorkersFromSourcesWith(undefined);
    forkHostsFromSourcesWith(undefined);
  });
  afterAll(fromBundle);
}
