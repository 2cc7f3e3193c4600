// The data folder's shared files changed by several processes at once (data-folder/
// shared-file.ts): each process's own entries in names.json, bonds.bin and
// adapter-identities.json all kept, one identity agreed for an adapter all of them met, no
// temporary file or lock left; a lock whose holder died is taken over; a write is whole or not
// at all, through a temporary file of its own.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundled } from '../../helpers/bundled';
import { folderBonds } from '../../../src/core/ble/security-manager/folder-bonds';
import { withFileLock, writeFileAtomicSync } from '../../../src/core/data-folder/shared-file';

function child(dataDir: string, who: string, count: number, env: NodeJS.ProcessEnv) {
  const run = spawn(process.execPath, [bundled('shared-file-child'), dataDir, who, String(count)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  run.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    run.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('shared files of one data folder', { timeout: 120_000 }, () => {
  it('keeps every process’s entries when four change names, bonds and identities at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shared-file-'));
    const dataDir = join(dir, 'data');
    const key = join(dir, 'bond.key');
    writeFileSync(key, randomBytes(32), { mode: 0o600 });
    const env = { DEVICEBENCH_BOND_KEY_FILE: key };
    const who = ['0a', '0b', '0c', '0d'];
    const count = 12;
    const runs = await Promise.all(who.map((w) => child(dataDir, w, count, env)));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);

    const names = JSON.parse(readFileSync(join(dataDir, 'names.json'), 'utf8')).scopes.bench.names;
    expect(Object.keys(names)).toHaveLength(who.length * count);
    expect((await folderBonds(dataDir, env)).list()).toHaveLength(who.length * count);
    const identities = JSON.parse(readFileSync(join(dataDir, 'adapter-identities.json'), 'utf8'));
    for (const w of who)
      expect(identities.adapters[`adapter ${w}`].address).toBe(`c0:00:00:00:${w}:01`);
    // One identity for the adapter they all met: the first kept, and every process uses it.
    const agreed = identities.adapters['shared adapter'].address;
    expect(runs.map((r) => r.stdout)).toEqual(who.map(() => agreed));

    expect(readdirSync(dataDir).filter((f) => /\.tmp$|\.lock$/.test(f))).toEqual([]);
    for (const file of ['names.json', 'bonds.bin', 'adapter-identities.json'])
      expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
  });

  it('takes over a lock whose holder died (not refreshed for 10 s)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'shared-file-')), 'names.json');
    mkdirSync(`${file}.lock`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    const started = Date.now();
    expect(await withFileLock(file, async () => 'held')).toBe('held');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(readdirSync(join(file, '..'))).toEqual([]);
  });

  it('writes a file whole through a temporary file of its own, with the mode given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shared-file-'));
    const file = join(dir, 'state.json');
    writeFileAtomicSync(file, '{"a":1}\n', 0o600);
    writeFileAtomicSync(file, '{"a":2}\n', 0o600);
    expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});
