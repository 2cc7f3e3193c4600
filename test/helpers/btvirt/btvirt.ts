// BlueZ's controller emulator, btvirt, as a controller nobody on this project wrote: each
// connection to its `bt-server-le` socket is an H4 stream to a new emulated LE controller, and
// controllers in one btvirt process hear and connect to each other. Facts and limits in
// /work/shared/TESTING.md and docs/decisions.md ("Proof against BlueZ's btvirt"):
// - it creates its sockets at fixed `/tmp/bt-server-*` paths, so each run gets a mount namespace
//   whose /tmp is a folder of its own;
// - its LE controllers need the kernel's AF_ALG ciphers, which these machines lack: the
//   stand-in `af-alg-openssl.c` is built here and preloaded.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STAND_IN_SOURCE = fileURLToPath(new URL('./af-alg-openssl.c', import.meta.url));
const START_TIMEOUT_MS = 5_000;

export interface Btvirt {
  /** The LE controllers' socket: every connection is a new controller. */
  readonly leSocket: string;
  /** What btvirt printed, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Why btvirt cannot run here, or undefined when it can: the tests that need it skip, saying this
 * reason (on the console and in their title) rather than fail on a machine without BlueZ's
 * test tools.
 */
export function btvirtMissing(): string | undefined {
  const reason = missingTool();
  if (reason) console.warn(`btvirt tests skipped: ${reason}`);
  return reason;
}

function missingTool(): string | undefined {
  const tools: [string, string][] = [
    ['btvirt', 'BlueZ btvirt (Debian bluez-test-tools)'],
    ['unshare', 'unshare (util-linux)'],
    ['gcc', 'gcc, to build the AF_ALG stand-in'],
  ];
  for (const [command, what] of tools)
    if (spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0) return `no ${what}`;
  if (!existsSync('/usr/include/openssl/evp.h'))
    return 'no OpenSSL headers (libssl-dev), to build the AF_ALG stand-in';
  return undefined;
}

/** A describe title that says why it was skipped, when it is. */
export function titled(title: string, missing: string | undefined): string {
  return missing
    ? `${title} (skipped: ${missing}; scripts/ensure-deps.sh test installs it)`
    : title;
}

function need(command: string, args: string[], what: string): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error || result.status !== 0)
    throw new Error(
      `${what} failed (${command} ${args.join(' ')}): ${result.error?.message ?? result.stderr}. ` +
        'scripts/ensure-deps.sh installs bluez-test-tools, libssl-dev and gcc.',
    );
}

/** Starts btvirt in a private mount namespace with the AF_ALG stand-in preloaded. */
export async function startBtvirt(): Promise<Btvirt> {
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-btvirt-'));
  // Inside the namespace `dir` is /tmp, so the stand-in is reached as /tmp/af-alg.so there.
  need(
    'gcc',
    ['-O2', '-shared', '-fPIC', '-o', join(dir, 'af-alg.so'), STAND_IN_SOURCE, '-ldl', '-lcrypto'],
    'building the AF_ALG stand-in',
  );
  const child: ChildProcess = spawn(
    'unshare',
    [
      '-m',
      'sh',
      '-c',
      'mount --bind "$1" /tmp && LD_PRELOAD=/tmp/af-alg.so exec btvirt -s',
      'sh',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const leSocket = join(dir, 'bt-server-le');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  while (!existsSync(leSocket)) {
    if (child.exitCode !== null || Date.now() - started > START_TIMEOUT_MS) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`btvirt did not start (exit ${child.exitCode}): ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    leSocket,
    log: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
