// `devicebench sim serve --h4` as a child process: the one JSON line saying where, a host that
// connects over that spec hears the default bench's boards, and SIGTERM stops it cleanly.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { parseAdapterSpec } from '../../src/core/ble/adapter-spec';
import { NoAdapterCentral } from '../../src/core/ble/noble';
import { openCentral } from '../../src/core/ble/open-central';
import { finished, runCli, startCli, tempDir } from './run-cli';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

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
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', () => reject(new Error('sim serve exited before serving')));
    });
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
});
