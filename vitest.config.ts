import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Unit files that need a process of their own, found by what they use, so a new one is found
 * too: they replace modules (`vi.mock`: Electron for main and preload), or start ble-host's
 * peripheral, which keeps its bonds in memory from its first start in a process and is driven
 * through module-level boards (test/helpers/btvirt/).
 */
const OWN_PROCESS =
  /\bvi\.mock\(|helpers\/btvirt\/(sc|provisioning)-board'|ble-host-bonds'|ble-host-peripheral'/;

function unitFilesOfTheirOwn(dir = 'test'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('test', 'e2e') ? [] : unitFilesOfTheirOwn(path);
    return path.endsWith('.test.ts') && OWN_PROCESS.test(readFileSync(path, 'utf8')) ? [path] : [];
  });
}
const ownProcess = unitFilesOfTheirOwn();

export default defineConfig({
  test: {
    // One test file more than there are cores, and at least three: most files wait on child
    // processes, sockets and the simulated bench's timers rather than compute (two files at a
    // time kept two cores about 55% busy), and Vitest's default (cores − 1) runs one file at a
    // time on a 2-core machine. Both projects share these workers: e2e files take turns with
    // unit files rather than running one by one after them (docs/decisions/tooling.md, "Test
    // suite time").
    maxWorkers: Math.max(3, availableParallelism() + 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', ...ownProcess],
          environment: 'node',
          // A worker keeps the modules it has loaded from one file to the next instead of
          // loading the app again for each: half the unit files' CPU was their imports
          // (docs/decisions/tooling.md, "Seventh round: unit files share their modules"). Each
          // file still has its own data folders, servers and bench; what is process-wide in
          // src/ is kept process-wide (src/core/ble/hci/noble-over-socket.ts).
          isolate: false,
          // The CLI and the other programs tests start, bundled once for the run
          // (test/cli/cli-bundle.ts), and the run's PostgreSQL server
          // (test/helpers/postgres-run.ts).
          globalSetup: ['test/cli/cli-bundle.ts', 'test/helpers/postgres-run.ts'],
          // The SQLite worker and the BLE process from that bundle (test/helpers/bundled-children.ts).
          setupFiles: ['test/helpers/bundled-children.ts'],
        },
      },
      {
        test: {
          name: 'unit-isolated',
          include: ownProcess,
          environment: 'node',
          globalSetup: ['test/cli/cli-bundle.ts', 'test/helpers/postgres-run.ts'],
          // The SQLite worker and the BLE process from that bundle (test/helpers/bundled-children.ts).
          setupFiles: ['test/helpers/bundled-children.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // A poll waits for the page as long as a locator does (test/e2e/fixture.ts sets the
          // page's 10 s): Vitest's 1 s default made a poll for what the bench does next (a
          // board's slots after connecting, a prompt closing after its answer) fail under load
          // where a locator waiting for the same thing would not. A poll that holds returns at
          // once, so a passing test takes no longer.
          expect: { poll: { timeout: 10_000 } },
          // One Chromium for the project; each file has its own bench server, data folder and
          // browser context in it (test/e2e/fixture.ts).
          globalSetup: [
            'test/e2e/chromium-server.ts',
            'test/helpers/postgres-run.ts',
            'test/cli/cli-bundle.ts',
          ],
          // The bundled bench server is loaded by Node as it is (test/e2e/fixture.ts).
          server: { deps: { external: [/\/out\/cli-test-/] } },
        },
      },
    ],
  },
});
