// The programs tests start as child processes (the unit project's globalSetup,
// vitest.config.ts): the `devicebench` CLI, src/cli/main.ts, and the test programs and servers
// in TEST_PROGRAMS, bundled once per run in one esbuild call, the transform tsx applies to each
// file when `bin/devicebench.mjs` runs the sources, so a test's child is plain `node` on one file
// instead of tsx compiling and loading hundreds at every start (docs/decisions/tooling.md, "Test
// suite time"). The launcher itself stays tested through `runBin` (test/cli/run-cli.ts).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled CLI's entry, to run with `node` (test/cli/run-cli.ts). */
    cliEntry: string;
    /** The folder of the bundled programs, one `<name>.js` for each of TEST_PROGRAMS. */
    bundleDir: string;
  }
}

/** The other programs tests start, by the name of their bundle (test/helpers/bundled.ts). */
const TEST_PROGRAMS = {
  'reserve-worker': 'test/core/audit/reserve-worker.ts',
  'crash-child': 'test/core/audit/crash-child.ts',
  'open-child': 'test/core/audit/open-child.ts',
  'station-child': 'test/core/provisioning/station-child.ts',
  'provision-child': 'test/core/provisioning/provision-child.ts',
  'shared-file-child': 'test/core/data-folder/shared-file-child.ts',
  'emulator-cli': 'src/core/emulator/cli.ts',
  'server-cli': 'src/server/cli.ts',
  // Not a program: the module the e2e files start their bench server from (test/e2e/fixture.ts).
  'bench-server': 'src/server/bench-server.ts',
};

export type TestProgram = keyof typeof TEST_PROGRAMS;

/** Packages with native parts (or optional ones), loaded from node_modules as users' are. */
const NATIVE_PACKAGES = [
  '@abandonware/*',
  'better-sqlite3',
  'keytar',
  'serialport',
  '@serialport/*',
  'hci-socket',
  'pg-native',
];

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const require = createRequire(import.meta.url);

export default async function setup(project: TestProject): Promise<() => void> {
  // Inside the repository: its package.json makes the output ES modules, its node_modules
  // serve the packages left outside the bundle, and its resources/ is found by walking up
  // (src/core/resources.ts).
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'out', 'cli-test-'));
  await build({
    // Beside the programs, the entries they start by path beside their own file: the SQLite
    // audit log's worker thread (sqlite-worker-store.ts) and the BLE process (ble-host.ts).
    entryPoints: {
      main: join(ROOT, 'src/cli/main.ts'),
      'sqlite-worker': join(ROOT, 'src/core/audit/sqlite-worker.ts'),
      'host-main': join(ROOT, 'src/core/ble/host/host-main.ts'),
      ...Object.fromEntries(
        Object.entries(TEST_PROGRAMS).map(([name, file]) => [name, join(ROOT, file)]),
      ),
    },
    outdir: dir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The packages go in too, but for those with native parts, which Node must load from
    // node_modules: a start then reads one file instead of resolving and loading some hundreds
    // of packages' modules (`--help`: 0.70 → 0.45 CPU-seconds). CommonJS packages inside an ES
    // module bundle still `require` Node's own modules, hence the banner's `require`.
    external: NATIVE_PACKAGES,
    banner: {
      js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
    },
    logLevel: 'warning',
    plugins: [
      {
        // A package's JSON tables (noble's SIG names) go into the bundle: Node 20 loads JSON
        // from an ES module only with an import attribute, which the sources do not carry.
        name: 'bundle-package-json',
        setup(bundler) {
          bundler.onResolve({ filter: /\.json$/ }, (args) =>
            args.path.startsWith('.')
              ? undefined
              : { path: require.resolve(args.path, { paths: [args.resolveDir] }) },
          );
        },
      },
    ],
  });
  project.provide('cliEntry', join(dir, 'main.js'));
  project.provide('bundleDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
