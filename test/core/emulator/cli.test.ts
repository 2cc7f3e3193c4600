// `npm run emulator` as other projects use it: one JSON line on stdout, a working server,
// a clean stop on SIGTERM/SIGINT, and state kept in the --data file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { bundled } from '../../helpers/bundled';
import { request } from '../../helpers/emulator';

const CLI = bundled('emulator-cli');
const running: ChildProcess[] = [];

interface Banner {
  url: string;
  adminUrl: string;
  channels: { channelId: string; channelSecret: string; channelAccessToken: string }[];
}

function launch(args: string[]): {
  child: ChildProcess;
  banner: Promise<Banner>;
  stderr: () => string;
} {
  // node on the bundled CLI (test/cli/cli-bundle.ts), not the tsx binary: the pid signalled is
  // the server's own, so a test that kills it leaves no orphan behind.
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const banner = new Promise<Banner>((resolveBanner, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      resolveBanner(JSON.parse(line)),
    );
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  // Tests that expect a failed start never await the banner.
  banner.catch(() => undefined);
  return { child, banner, stderr: () => err };
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = exitCode(child);
    child.kill('SIGKILL');
    await exited;
  }
});

describe('emulator CLI', { timeout: 30_000 }, () => {
  it('prints exactly one JSON line with urls and the seeded channel, serves it, and stops on SIGTERM', async () => {
    const { child, banner } = launch(['--port', '0']);
    const info = await banner;
    expect(Object.keys(info).sort()).toEqual(['adminUrl', 'channels', 'url']);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.adminUrl).toBe(`${info.url}/__admin`);
    expect(info.channels).toHaveLength(1);
    const [channel] = info.channels;
    expect(channel).toEqual({
      channelId: expect.stringMatching(/^\d+$/),
      channelSecret: expect.any(String),
      channelAccessToken: expect.any(String),
    });
    const res = await request(
      `${info.url}/things/v1/trial/products`,
      'POST',
      { name: 'From CLI' },
      {
        authorization: `Bearer ${channel!.channelAccessToken}`,
      },
    );
    expect(res.status).toBe(200);

    const exited = exitCode(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('keeps state in the --data file across runs and stops on SIGINT', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'emu-cli-')), 'state.sqlite');
    const first = launch(['--port', '0', '--data', data]);
    const a = await first.banner;
    const auth = { authorization: `Bearer ${a.channels[0]!.channelAccessToken}` };
    await request(`${a.url}/things/v1/trial/products`, 'POST', { name: 'Persisted' }, auth);
    const stopped = exitCode(first.child);
    first.child.kill('SIGINT');
    expect(await stopped).toBe(0);

    const second = launch(['--port', '0', '--data', data]);
    const b = await second.banner;
    expect(b.channels).toEqual(a.channels);
    const list = await request(`${b.url}/things/v1/trial/products`, 'GET', undefined, auth);
    expect((list.body as { name: string }[]).map((p) => p.name)).toEqual(['Persisted']);
  });

  it('answers loopback names and --allow-host names, and refuses any other Host', async () => {
    const { banner } = launch(['--port', '0', '--allow-host', 'emulator']);
    const { adminUrl } = await banner;
    const { port } = new URL(adminUrl);
    const status = (host: string) =>
      new Promise<number | undefined>((resolveStatus, reject) => {
        const req = httpRequest(
          { hostname: '127.0.0.1', port, path: '/__admin/state', headers: { host } },
          (res) => {
            res.resume();
            resolveStatus(res.statusCode);
          },
        );
        req.once('error', reject).end();
      });
    expect(await status('evil.example')).toBe(403);
    expect(await status('emulator:4000')).toBe(200);
    expect(await status('localhost:9')).toBe(200);
  }, 15_000);

  it('rejects a bad --port with a clear message and exit code 2', async () => {
    const { child, stderr } = launch(['--port', 'eighty']);
    expect(await exitCode(child)).toBe(2);
    expect(stderr()).toContain('--port');
  });
});
