// `devicebench sim serve --h4` as a child process: the one JSON line saying where, a host that
// connects over that spec hears the default bench's boards, and SIGTERM stops it cleanly.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { parseAdapterSpec } from '../../src/core/ble/adapter-spec';
import { NoAdapterCentral } from '../../src/core/ble/radio/no-adapter-central';
import { openCentral } from '../../src/core/ble/radio/open-central';
import { openAuditStore } from '../../src/core/audit/open-store';
import { finished, runCli, seedProduct, startCli, tempDir, writeJson } from './run-cli';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The first line `child` prints. */
function firstLine(child: ReturnType<typeof startCli>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error('sim serve exited before serving')));
  });
}

describe('devicebench sim serve', { timeout: 60_000 }, () => {
  it('prints {"h4": spec} with the real port, serves the bench to a host, stops on SIGTERM', async () => {
    const dir = tempDir('sim');
    dirs.push(dir);
    const child = startCli([
      'sim',
      'serve',
      '--h4',
      'tcp:127.0.0.1:0',
      '--data-dir',
      join(dir, 'data'),
    ]);
    const result = finished(child);
    const line = await firstLine(child);
    const { h4 } = JSON.parse(line) as { h4: string };
    expect(h4).toMatch(/^tcp:127\.0\.0\.1:[1-9]\d*$/);
    const central = await openCentral(parseAdapterSpec(h4));
    expect(central).not.toBeInstanceOf(NoAdapterCentral);
    const names = new Set<string>();
    const scan = await central.startScan({}, (ad) => ad.localName && names.add(ad.localName));
    const end = Date.now() + 5_000;
    while (!names.size && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await scan.stop();
    await central.close();
    expect(names.size).toBeGreaterThan(0);
    child.kill('SIGTERM');
    const { code, stdout } = await result;
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([line]);
  });

  it('refuses to serve over anything but tcp: or unix:, naming the flag', async () => {
    const { code, stderr } = await runCli(['sim', 'serve', '--h4', 'serial:/dev/ttyACM0']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      '--h4: serial:/dev/ttyACM0: serve over tcp:<host>:<port> (port 0 for any free one) or unix:<path>',
    );
  });

  it('a batch whose adapter goes away mid-run stops safely and exits 3, every record ended', async () => {
    const dir = tempDir('unplug');
    dirs.push(dir);
    const tray = writeJson(dir, 'tray.json', {
      boards: [
        {
          name: 'Unplug Tray {n}',
          address: 'c2:8e:20:00:00:01',
          count: 8,
          advertising: { intervalMs: 50 },
          provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
          latency: { connectMs: 20, perOperationMs: 20 },
        },
      ],
    });
    const server = startCli([
      'sim',
      'serve',
      '--h4',
      'tcp:127.0.0.1:0',
      '--board',
      tray,
      '--data-dir',
      join(dir, 'sim'),
    ]);
    const { h4 } = JSON.parse(await firstLine(server)) as { h4: string };
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const plan = writeJson(dir, 'plan.json', {
      profileId: 'devicebench-v1',
      psdi: { kind: 'sequence', prefix: 'UP-', width: 4 },
    });
    const batch = startCli([
      'provision',
      '--adapter',
      h4,
      '--product',
      product,
      '--count',
      '8',
      '--concurrency',
      '2',
      '--plan',
      plan,
      '--data-dir',
      data,
    ]);
    const result = finished(batch);
    // The dongle is pulled once the first board is through (the log says so first).
    const store = await openAuditStore({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
    });
    try {
      let exited = false;
      batch.once('exit', () => (exited = true));
      while (!exited && !(await store.search({ states: ['verified'], limit: 1 })).items.length)
        await new Promise((r) => setTimeout(r, 50));
      // SIGTERM: the server closes every link's TCP stream.
      server.kill('SIGTERM');
      const { code, stderr, stdout } = await result;
      expect(code, `${stderr}\n${stdout}`).toBe(3);
      expect(stderr).toMatch(/the adapter went away mid-run: .*tcp/);
      const { items } = await store.search({ limit: 100 });
      expect(items.length).toBeLessThan(8);
      // Nothing is left mid-write: a record is verified, or failed (holding its PSDI only when
      // the commit may have reached the board, for reconcile to settle), or released.
      for (const record of items)
        expect(['verified', 'failed', 'released']).toContain(record.state);
      expect(items.filter((r) => r.state === 'verified').length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
