// Runs `devicebench` as a child process, as CI would, with a temp data folder per test; and
// seeds what the command expects to find there (a trial product in the embedded emulator's
// state file) the way the app would have left it. The child is `node` on the CLI bundled once
// per run (test/cli/cli-bundle.ts); `runBin` starts the package's launcher, as users do.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { startEmulator } from '../../src/core/emulator/server';
import { ThingsClient } from '../../src/core/platform/things/client';
import type { ScenarioSetInput } from '../../src/core/platform/things/schema';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for the child: no CI platform variables leaking in from the test runner. */
function childEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of Object.keys(env))
    if (name.startsWith('DEVICEBENCH_') && !(name in extra)) delete env[name];
  return env;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [inject('cliEntry'), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: 'pipe',
  });
}

export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The package's `bin` launcher, as `npx devicebench` runs it. */
export function runBin(args: string[]): Promise<CliResult> {
  return finished(
    spawn(process.execPath, [join(ROOT, 'bin', 'devicebench.mjs'), ...args], {
      cwd: tmpdir(),
      env: childEnv({}),
      stdio: 'pipe',
    }),
  );
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return finished(startCli(args, env));
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `devicebench-cli-${prefix}-`));
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

/** A trial product in the data folder's emulator state, and optionally its saved scenario set. */
export async function seedProduct(dataDir: string, set?: ScenarioSetInput): Promise<string> {
  mkdirSync(dataDir, { recursive: true });
  const emulator = await startEmulator({ dataFile: join(dataDir, 'emulator.sqlite'), port: 0 });
  try {
    const channel = emulator.channels()[0];
    if (!channel) throw new Error('the emulator has no channel');
    const things = new ThingsClient({
      baseUrl: emulator.url,
      channelAccessToken: channel.channelAccessToken,
    });
    const product = await things.createTrialProduct('CLI test product');
    if (set) await things.putScenarioSet(product.id, set);
    return product.id;
  } finally {
    await emulator.close();
  }
}
