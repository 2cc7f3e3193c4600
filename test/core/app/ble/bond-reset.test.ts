// A damaged bonds.bin through the app's contract: the BLE process names it (`ble:listBonds`
// storage `damaged`, with the file and why), keeps nothing beside it, and `ble:resetBonds` sets
// it aside under a name with the time and starts a new store, encrypted under the same key (the
// key file the process was started with: DEVICEBENCH_BOND_KEY_FILE)
// (docs/decisions/security-and-hardening.md, "A damaged bond store").
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useApp } from '../../../helpers/app';
import type { AdapterBonds } from '../../../../src/core/usecases/bench/bench-schema';

const keyFile = join(mkdtempSync(join(tmpdir(), 'bond-key-')), 'bond.key');
writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });
// The BLE process the app forks inherits the environment.
const before = process.env.DEVICEBENCH_BOND_KEY_FILE;
process.env.DEVICEBENCH_BOND_KEY_FILE = keyFile;
afterAll(() => {
  if (before === undefined) delete process.env.DEVICEBENCH_BOND_KEY_FILE;
  else process.env.DEVICEBENCH_BOND_KEY_FILE = before;
});
const DAMAGED = randomBytes(64);

const get = useApp('app-bond-reset', {
  prepareDataDir: (dir) => writeFileSync(join(dir, 'bonds.bin'), DAMAGED, { mode: 0o600 }),
});

describe('a damaged bond store through the contract', { timeout: 60_000 }, () => {
  it('is named with its file and why, and reset sets it aside and starts a new store', async () => {
    const file = join(get().dataDir, 'bonds.bin');
    const listed = await get().ok<AdapterBonds>('ble:listBonds');
    expect(listed.storage).toEqual({
      kind: 'damaged',
      file,
      reason: `it does not open with the key from key file ${keyFile}: damaged, cut short, or sealed with another key`,
    });

    const reset = await get().ok<{ setAsideAs: string; storage: unknown }>('ble:resetBonds');
    expect(reset.setAsideAs).toMatch(/bonds\.bin\.damaged-\d{4}-\d\d-\d\dT/);
    expect(readFileSync(reset.setAsideAs)).toEqual(DAMAGED);
    expect(reset.storage).toEqual({
      kind: 'encrypted',
      file,
      key: { kind: 'keyFile', file: keyFile },
    });
    expect((await get().ok<AdapterBonds>('ble:listBonds')).storage.kind).toBe('encrypted');
    expect(readdirSync(get().dataDir).filter((f) => f.startsWith('bonds.bin'))).toHaveLength(2);

    // Again: nothing is damaged now, so nothing is set aside.
    expect(await get().ok('ble:resetBonds')).toMatchObject({ setAsideAs: null });
  });
});
