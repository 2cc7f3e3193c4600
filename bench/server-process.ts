// Servers under test run in child processes so the load generator in this process shares
// neither their event loop nor their core. Every child is killed when this process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXIT_WITH_PARENT = new URL('./exit-with-parent.ts', import.meta.url).href;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

const live = new Set<ChildProcess>();
// 'exit' listeners must be synchronous: no graceful stop here, only making sure nothing survives.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface ServerProcess {
  /** The first line the server printed, parsed as JSON: how it announces its URL. */
  banner: unknown;
  stop(): Promise<void>;
}

/** Runs a TypeScript entry (path from the repo root) and waits for its one-line JSON banner. */
export async function startServerProcess(
  label: string,
  entry: string,
  args: string[],
): Promise<ServerProcess> {
  // `node --import tsx` rather than the tsx binary, which would put a second process between us
  // and the server: the pid we kill is the server's own.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', EXIT_WITH_PARENT, entry, ...args],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  live.add(child);
  child.once('exit', () => live.delete(child));

  const stop = async () => {
    if (!live.has(child)) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    const banner: unknown = JSON.parse(await firstLine(child));
    return { banner, stop };
  } catch (err) {
    await stop();
    throw new Error(`${label} (${entry}) did not start: ${(err as Error).message}`);
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  if (!child.stdout) throw new Error('child has no stdout pipe');
  const stdout = child.stdout;
  const lines = createInterface({ input: stdout });
  return new Promise<string>((resolve, reject) => {
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.off('exit', onExit).off('error', reject);
      lines.close();
      // Keep draining so a chatty child never blocks on a full pipe.
      stdout.resume();
      settle();
    };
    const timer = setTimeout(
      () => done(() => reject(new Error(`no banner within ${READY_TIMEOUT_MS / 1000} s`))),
      READY_TIMEOUT_MS,
    );
    const onExit = (code: number | null, signal: string | null) =>
      done(() =>
        reject(new Error(`exited (${signal ?? `code ${code}`}) before printing a banner`)),
      );
    child.once('exit', onExit).once('error', (err) => done(() => reject(err)));
    lines.once('line', (line) => done(() => resolve(line)));
  });
}
