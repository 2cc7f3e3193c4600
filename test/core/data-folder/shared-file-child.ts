// Child process for the shared-file tests: one of several processes changing one data folder at
// once, each its own entries: `count` names (names.json, under an async lock), bonds (bonds.bin
// under the key file DEVICEBENCH_BOND_KEY_FILE names, under a sync lock) and one adapter
// identity (adapter-identities.json). Tests run its bundle (test/helpers/bundled.ts).
import { NameStore } from '../../../src/core/usecases/bench/name-store';
import { folderBonds } from '../../../src/core/ble/security-manager/folder-bonds';
import { AdapterIdentityFile } from '../../../src/core/ble/adapter-identity-store';

const [dataDir, who, count] = process.argv.slice(2) as [string, string, string];
const n = Number(count);
const names = new NameStore(dataDir);
const bonds = await folderBonds(dataDir);
const identities = await AdapterIdentityFile.open(dataDir);
const hex = (i: number) => i.toString(16).padStart(2, '0');
const security = {
  encrypted: true,
  key: 'sc' as const,
  authenticated: false,
  keySize: 16,
  bonded: true,
};
for (let i = 0; i < n; i++) {
  await names.setName('bench', `0000${who}${hex(i)}-0000-1000-8000-00805f9b34fb`, `${who}-${i}`);
  bonds.keep(
    'c4:7f:51:00:00:01',
    `d1:00:00:00:${who}:${hex(i)}`,
    { ltk: new Uint8Array(16).fill(i), ediv: i, rand: new Uint8Array(8) },
    security,
    new Date(),
  );
}
await identities.keep(`adapter ${who}`, `c0:00:00:00:${who}:01`);
// Every process meets one new adapter too: whichever kept it first, all agree on it.
process.stdout.write(await identities.keep('shared adapter', `c1:00:00:00:${who}:01`));
