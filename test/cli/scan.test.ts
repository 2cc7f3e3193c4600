// `devicebench scan`, `--help`, `completion` and the `bin` launcher as child processes over the default simulated
// bench (the app's default boards).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runCli, tempDir, writeJson } from './run-cli';

describe('devicebench scan', { timeout: 60_000 }, () => {
  it('lists the default bench as JSON and as lines, with filters', async () => {
    const data = join(tempDir('scan'), 'data');
    const [all, named, piped, launched] = await Promise.all([
      runCli(['scan', '--for', '1', '--json', '--data-dir', data]),
      runCli(['scan', '--for', '1', '--json', '--name', 'sensor', '--data-dir', data]),
      runCli(['scan', '--for', '1', '--rssi', '-120', '--data-dir', data]),
      runBin(['scan', '--for', '1', '--json', '--data-dir', data]),
    ]);
    expect(all.code, all.stderr).toBe(0);
    const boards = JSON.parse(all.stdout).boards as {
      address: string;
      name: string;
      rssi: number;
    }[];
    expect(boards.map((b) => b.name).sort()).toEqual([
      'DB ESP32-C3',
      'DB Sensor',
      'DB Starter',
      'DB Zephyr MCUmgr',
      'DB Zephyr Secure',
      'DB nRF52 DK',
    ]);
    expect(boards.every((b) => b.rssi < 0)).toBe(true);
    // The package's launcher (tsx on the sources) sees the bench the bundled CLI sees
    // (test/cli/cli-bundle.ts).
    expect(launched.code, launched.stderr).toBe(0);
    const launchedBoards = JSON.parse(launched.stdout).boards as { address: string }[];
    expect(launchedBoards.map((b) => b.address).sort()).toEqual(
      boards.map((b) => b.address).sort(),
    );
    expect(JSON.parse(named.stdout).boards).toMatchObject([
      { name: 'DB Sensor', address: 'd6:3a:41:00:20:01' },
    ]);
    // Piped: plain lines, no escape codes, no progress bar.
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^d6:3a:41:00:20:01 +-\d+ dBm +DB Sensor/m);
    expect(piped.stdout).toContain('6 boards in 1 s');
    expect(piped.stdout + piped.stderr).not.toContain('\u001b[');
  });

  it('lists the simulated bench as the app left it: the boards the set-up loaded, not those it removed', async () => {
    const data = join(tempDir('scan-setup'), 'data');
    mkdirSync(data, { recursive: true });
    const tray = JSON.stringify({
      boards: [{ name: 'Tray {n}', address: 'c0:ff:ee:00:00:01', count: 2 }],
    });
    const setup = {
      version: 1,
      loads: [{ source: { fileName: 'tray.json', text: tray }, boardIds: ['c0ffee000001'] }],
      removed: ['d63a41002001'],
      faults: { c0ffee000001: { refuseConnection: true } },
    };
    const file = join(data, 'sim-bench-setup.json');
    writeFileSync(file, JSON.stringify(setup));
    const [scan, replaced] = await Promise.all([
      runCli(['scan', '--for', '1', '--json', '--adapter', 'sim', '--data-dir', data]),
      runCli([
        ...['scan', '--for', '1', '--json', '--adapter', 'sim', '--data-dir', data],
        ...['--sim-boards', 'resources/sim/sensor-board.json'],
      ]),
    ]);
    expect(scan.code, scan.stderr).toBe(0);
    const names = (JSON.parse(scan.stdout).boards as { name: string }[]).map((b) => b.name);
    expect(names.sort()).toEqual([
      'DB ESP32-C3',
      'DB Starter',
      'DB Zephyr MCUmgr',
      'DB Zephyr Secure',
      'DB nRF52 DK',
      'Tray 01',
    ]);
    // Everything in the set-up came back, so the file is as the app wrote it.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(setup);
    // --sim-boards names the whole bench: the app's set-up is not brought onto it.
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(JSON.parse(replaced.stdout).boards).toMatchObject([{ name: 'DB Sensor' }]);
  });

  it('opens two simulated adapters that hear the same boards: each board once, a trace each', async () => {
    const data = join(tempDir('scan-two'), 'data');
    const two = await runCli([
      ...['scan', '--for', '1', '--json', '--data-dir', data],
      ...['--adapter', 'sim', '--adapter', 'sim'],
    ]);
    expect(two.code, two.stderr).toBe(0);
    const boards = JSON.parse(two.stdout).boards as { name: string; adapter: string }[];
    expect(boards.map((b) => b.name).sort()).toEqual([
      'DB ESP32-C3',
      'DB Sensor',
      'DB Starter',
      'DB Zephyr MCUmgr',
      'DB Zephyr Secure',
      'DB nRF52 DK',
    ]);
    expect(boards.every((b) => b.adapter === 'sim')).toBe(true);
    const traces = join(data, 'traces');
    expect(readdirSync(traces).some((f) => f.endsWith('.btsnoop'))).toBe(true);
    expect(readdirSync(join(traces, 'adapter-2-sim')).some((f) => f.endsWith('.btsnoop'))).toBe(
      true,
    );
  });

  it("refuses a data folder's sim-adapter.json that is not one, naming the field (exit 2), in scan and sim serve", async () => {
    const data = tempDir('cli-sim-adapter');
    writeJson(data, 'sim-adapter.json', { maxConnections: 1, dataLength: 300 });
    const refused = await Promise.all([
      runCli(['scan', '--for', '1', '--data-dir', data]),
      runCli(['sim', 'serve', '--h4', 'tcp:127.0.0.1:0', '--data-dir', data]),
    ]);
    for (const run of refused) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/sim-adapter\.json: dataLength: .*251/);
    }
  });

  it('has generated help, shell completion, and refuses unknown commands and flags', async () => {
    const [help, completion, unknown, badRssi, exponentRssi, bin] = await Promise.all([
      runCli(['scenario', 'run', '--help']),
      runCli(['completion']),
      runCli(['frobnicate']),
      runCli(['scan', '--rssi', '-300']),
      runCli(['scan', '--rssi', '1e+23']),
      runBin(['--version']),
    ]);
    expect(bin.code, bin.stderr).toBe(0);
    expect(bin.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--junit');
    expect(help.stdout).toContain('--cycles');
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('devicebench');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown argument: frobnicate');
    expect(badRssi.code).toBe(2);
    expect(badRssi.stderr).toContain('--rssi: must be between −127 and 0 dBm');
    expect(exponentRssi.code).toBe(2);
    expect(exponentRssi.stderr).toContain(
      '--rssi: must be a whole number of dBm written in digits, without an exponent',
    );
  });
});
