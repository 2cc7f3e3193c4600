// The station's identity through the CLI, as child processes: `devicebench sim serve
// --addressing …` (or its data folder's sim-adapter.json) stands in for a dongle without a public address, and `devicebench scan
// --adapter tcp:…` over it says which address the adapter uses and where it came from; a
// generated one is the same on the next run with the same data folder.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { finished, runCli, startCli, tempDir, writeJson } from './run-cli';

const dirs: string[] = [];
const children: ReturnType<typeof startCli>[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    const done = finished(child);
    child.kill('SIGTERM');
    await done;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * `sim serve` with a controller of this addressing (`--addressing`), or of the one the data
 * folder's sim-adapter.json names (`file:`); its spec.
 */
async function serve(addressing: string, dataDir: string): Promise<string> {
  const fromFile = addressing.startsWith('file:');
  if (fromFile) {
    mkdirSync(dataDir, { recursive: true });
    writeJson(dataDir, 'sim-adapter.json', { addressing: addressing.slice(5) });
  }
  const flag = fromFile ? [] : ['--addressing', addressing];
  const child = startCli([
    'sim',
    'serve',
    '--h4',
    'tcp:127.0.0.1:0',
    ...flag,
    '--data-dir',
    dataDir,
  ]);
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error('sim serve exited before serving')));
  });
  return (JSON.parse(line) as { h4: string }).h4;
}

interface ScanDocument {
  adapters: { spec: string; identity: { address: string; type: string; source: string } | null }[];
  boards: unknown[];
}

/** `scan --json` for `seconds`: the adapter's identity is known at its start, the boards later. */
async function scan(spec: string, dataDir: string, seconds = 1): Promise<ScanDocument> {
  const result = await runCli([
    'scan',
    '--for',
    String(seconds),
    '--json',
    '--adapter',
    spec,
    '--data-dir',
    dataDir,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ScanDocument;
}

describe('one identity per dongle, through the CLI', { timeout: 90_000 }, () => {
  it('a public address, and a Zephyr dongle’s static one, in scan --json and in words', async () => {
    const dir = tempDir('identity');
    dirs.push(dir);
    const [publicSpec, zephyrSpec] = await Promise.all([
      serve('public', join(dir, 'served-a')),
      serve('zephyrStatic', join(dir, 'served-b')),
    ]);
    const [plain, zephyr] = await Promise.all([
      scan(publicSpec, join(dir, 'a')),
      scan(zephyrSpec, join(dir, 'b')),
    ]);
    expect(plain.adapters).toEqual([
      {
        spec: publicSpec,
        identity: { address: '00:1a:7d:da:71:01', type: 'public', source: 'public' },
      },
    ]);
    expect(zephyr.adapters).toEqual([
      {
        spec: zephyrSpec,
        identity: { address: 'c0:1a:7d:da:71:01', type: 'random', source: 'controllerStatic' },
      },
    ]);
    expect(zephyr.boards.length).toBeGreaterThan(0);
    const words = await runCli([
      'scan',
      '--for',
      '1',
      '--adapter',
      zephyrSpec,
      '--data-dir',
      join(dir, 'b'),
    ]);
    expect(words.stdout).toContain(
      `adapter ${zephyrSpec}: c0:1a:7d:da:71:01 · static (controller)`,
    );
  });

  it('a controller with no address gets a generated one, kept in the data folder for the next run', async () => {
    const dir = tempDir('identity');
    dirs.push(dir);
    // No address, as the served data folder's sim-adapter.json says (no flag).
    const spec = await serve('file:none', join(dir, 'served'));
    const data = join(dir, 'data');
    // Only the identities are asked for here, not the boards heard.
    const first = await scan(spec, data, 0.2);
    const identity = first.adapters[0]!.identity!;
    expect(identity).toMatchObject({ type: 'random', source: 'generatedKept' });
    expect(identity.address).toMatch(/^[c-f][0-9a-f](:[0-9a-f]{2}){5}$/);
    const kept = JSON.parse(readFileSync(join(data, 'adapter-identities.json'), 'utf8')) as {
      adapters: Record<string, { address: string }>;
    };
    expect(Object.values(kept.adapters).map((a) => a.address)).toEqual([identity.address]);
    expect((await scan(spec, data, 0.2)).adapters[0]!.identity).toEqual(identity);
    // Another data folder is another station: another identity.
    const other = await scan(spec, join(dir, 'other'), 0.2);
    expect(other.adapters[0]!.identity!.address).not.toBe(identity.address);
  });

  it('refuses an addressing it does not know, naming the flag', async () => {
    const result = await runCli([
      'sim',
      'serve',
      '--h4',
      'tcp:127.0.0.1:0',
      '--addressing',
      'zephyr',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--addressing');
  });
});
