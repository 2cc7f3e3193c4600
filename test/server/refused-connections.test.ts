// Finding 1 of issue 15: a refused WebSocket upgrade must not keep its socket. The bench server
// runs as `npm run web` would, in a child process with a small descriptor limit, so leaked
// sockets would stop it answering; thousands of foreign-origin upgrades later it still serves
// its own page and WebSocket, and SIGTERM stops it within a second.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

const CLI = resolve('src/server/cli.ts');
/** Descriptors the child may hold; the issue saw the server stall at about 220 leaked sockets. */
const FD_LIMIT = 256;
const ATTEMPTS = 2_000;
const AT_ONCE = 50;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startServer(): Promise<{ url: string; process: ChildProcess }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-refused-'));
  // `exec` keeps the pid the node process's own, so the signals below reach the server.
  const command = `ulimit -n ${FD_LIMIT} && exec "${process.execPath}" --import tsx "${CLI}" --port 0 --data-dir "${dataDir}"`;
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

/**
 * One upgrade from a foreign page over a raw socket that the client never closes itself: true
 * when the server answered 403 and then closed the connection.
 */
function refusedUpgrade(url: URL): Promise<boolean> {
  return new Promise((resolveAttempt) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolveAttempt(false);
    }, 5_000);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolveAttempt(answer.startsWith('HTTP/1.1 403'));
    });
    socket.write(
      [
        'GET /api/events HTTP/1.1',
        `Host: ${url.host}`,
        'Origin: http://evil.example',
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        '',
        '',
      ].join('\r\n'),
    );
  });
}

describe('bench server under refused upgrades', () => {
  it('finding 1: closes thousands of refused WebSocket upgrades, still answers, and stops on SIGTERM within a second', async () => {
    const server = await startServer();
    const url = new URL(server.url);

    let closedByServer = 0;
    for (let done = 0; done < ATTEMPTS; done += AT_ONCE) {
      const batch = await Promise.all(Array.from({ length: AT_ONCE }, () => refusedUpgrade(url)));
      closedByServer += batch.filter(Boolean).length;
    }
    expect(closedByServer).toBe(ATTEMPTS);

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
