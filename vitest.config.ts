import { defineConfig } from 'vitest/config';

// Workers: Vitest's default on a 2-core machine is one, which ran every file in turn although
// most of them wait (on child processes, servers, Chromium, a board's latencies) rather than
// compute. The numbers behind these: docs/decisions.md, "Test suite time".
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          environment: 'node',
          maxWorkers: 3,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Each file has its own bench server, data folder and browser context in the one
          // shared Chromium (test/e2e/chromium-server.ts), so two files can run at once.
          globalSetup: ['test/e2e/chromium-server.ts'],
          maxWorkers: 2,
          // After the unit project when both run in one `vitest run`: Vitest runs projects
          // with different worker counts one after the other.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
