// A refused WebSocket upgrade must not keep its socket. The bench server
// runs as `npm run web` would, in a child process with a small descriptor limit, so leaked
// sockets would stop it answering; thousands of foreign-origin upgrades later it still serves
// its own page and WebSocket, and SIGTERM stops it within a second.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bundled } from '../helpers/bundled';
import { refusedUpgrades } from '../helpers/refused-upgrade';

const CLI = bundled('server-cli');
/** Descriptors the child may hold; the issue saw the server stall at about 220 leaked sockets. */
const FD_LIMIT = 256;
const ATTEMPTS = 2_000;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startServer(): Promise<{ url: string; process: ChildProcess }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-refused-'));
  // `exec` keeps the pid the node process's own, so the signals below reach the server.
  const command = `ulimit -n ${FD_LIMIT} && exec "${process.execPath}" "${CLI}" --port 0 --data-dir "${dataDir}"`;
  child = spawn('sh', ['-c', command], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'disabled:' },
  });
  const started = child;
  let stderr = '';
  started.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolveStart, reject) => {
    createInterface({ input: started.stdout! }).on('line', (line) => {
      const url = /running at (http:\/\/\S+)/.exec(line)?.[1];
      if (url) resolveStart({ url, process: started });
    });
    started.once('exit', (code) => reject(new Error(`bench server exited ${code}: ${stderr}`)));
  });
}

describe('bench server under refused upgrades', () => {
  it('closes thousands of refused WebSocket upgrades, still answers, and stops on SIGTERM within a second', async () => {
    const server = await startServer();
    const url = new URL(server.url);

    expect(await refusedUpgrades(url, '/api/events', ATTEMPTS)).toBe(ATTEMPTS);

    // Its own page and its own WebSocket still work.
    const page = await fetch(server.url, { signal: AbortSignal.timeout(5_000) });
    expect(page.status).toBe(200);
    const ws = new WebSocket(`ws://${url.host}/api/events`, { origin: server.url });
    await new Promise((resolveOpen, reject) => ws.once('open', resolveOpen).once('error', reject));

    // SIGTERM with that WebSocket still open.
    const exited = new Promise<number | null>((r) => server.process.once('exit', r));
    const start = Date.now();
    server.process.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - start).toBeLessThan(1_000);
    ws.terminate();
  }, 120_000);
});
