// Runs `devicebench` as a child process, as CI would, with a temp data folder per test; and
// seeds what the command expects to find there (a trial product in the embedded emulator's
// state file) the way the app would have left it. The child is `node` on the CLI bundled once
// per run (test/cli/cli-bundle.ts); `runBin` starts the package's launcher, as users do.
// Every child's output is held to the CLI's first rule: words, never a stack trace
// (docs/decisions/cli.md): a test whose child prints one fails, whatever it asserts itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject, onTestFinished } from 'vitest';
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

/**
 * One frame of a JavaScript stack trace as Node prints it: `    at answerBody (/…/client.ts:310:11)`,
 * `    at file:///…/main.js:3:9`, `    at new Promise (<anonymous>)`.
 */
const STACK_FRAME = /^\s*at (?:async )?(?:\S.*\s\()?(?:\S+:\d+:\d+|<anonymous>|native)\)?$/m;

/** The first stack frame in `text`, or undefined when it holds none. */
export function stackFrameIn(text: string): string | undefined {
  return STACK_FRAME.exec(text)?.[0];
}

/** What a child printed so far, on both streams, and whether a test has looked at it. */
interface Printed {
  args: readonly string[];
  stdout: string;
  stderr: string;
  checked: boolean;
  /** The test asked for stack traces (DEVICEBENCH_DEBUG) and expects them. */
  expected: boolean;
}

export interface CliOptions {
  /** The test asks for stack traces (DEVICEBENCH_DEBUG=1) and checks them itself. */
  stackTraces?: 'expected';
}

const printed = new WeakMap<ChildProcess, Printed>();

/** The failure a child's output is, when it holds a stack trace. */
function stackTraceFailure(seen: Printed): Error | undefined {
  seen.checked = true;
  if (seen.expected) return undefined;
  for (const [name, text] of [
    ['stderr', seen.stderr],
    ['stdout', seen.stdout],
  ] as const) {
    const frame = stackFrameIn(text);
    if (frame)
      return new Error(
        `devicebench ${seen.args.join(' ')} printed a stack trace on ${name} (a person gets words, never one): ${frame.trim()}\n--- ${name} ---\n${text}`,
      );
  }
  return undefined;
}

/** Collects the child's output from its start and checks it when the test ends. */
function watched(child: ChildProcess, args: readonly string[], options: CliOptions) {
  const seen: Printed = {
    args,
    stdout: '',
    stderr: '',
    checked: false,
    expected: options.stackTraces === 'expected',
  };
  child.stdout?.on('data', (d: Buffer) => (seen.stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (seen.stderr += d.toString()));
  printed.set(child, seen);
  try {
    // A child the test never waited for (a server it killed) is checked as the test ends.
    onTestFinished(() => {
      if (seen.checked) return;
      const failure = stackTraceFailure(seen);
      if (failure) throw failure;
    });
  } catch {
    // Started outside a test (a beforeAll): `finished` is the check.
  }
  return child;
}

export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: CliOptions = {},
): ChildProcess {
  const child = spawn(process.execPath, [inject('cliEntry'), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: 'pipe',
  });
  return watched(child, args, options);
}

/** The child's exit code and output once it ends; fails when the output holds a stack trace. */
export function finished(child: ChildProcess): Promise<CliResult> {
  const seen = printed.get(child);
  if (!seen) throw new Error('finished() takes a child from startCli or runBin');
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      const failure = stackTraceFailure(seen);
      if (failure) reject(failure);
      else resolve({ code, stdout: seen.stdout, stderr: seen.stderr });
    }),
  );
}

/** The package's `bin` launcher, as `npx devicebench` runs it. */
export function runBin(args: string[]): Promise<CliResult> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'devicebench.mjs'), ...args], {
    cwd: tmpdir(),
    env: childEnv({}),
    stdio: 'pipe',
  });
  return finished(watched(child, args, {}));
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: CliOptions = {},
): Promise<CliResult> {
  return finished(startCli(args, env, options));
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
