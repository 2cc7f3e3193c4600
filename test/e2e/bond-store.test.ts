// A damaged bond store on the BLE bench: the Bonds panel names the file and why nothing is kept;
// Reset asks first, naming the file, then sets it aside and says as what; the panel and the
// Settings page then say where the bonds are kept and under which key (the key file
// DEVICEBENCH_BOND_KEY_FILE names, as a headless station keeps them)
// (docs/decisions/security-and-hardening.md, "A damaged bond store"). The flow runs once; the
// damaged store's picture is taken at both window sizes (atEachSize).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const keyFile = join(mkdtempSync(join(tmpdir(), 'e2e-bond-key-')), 'bond.key');
writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });
// The bench server runs in this process; the BLE process it forks inherits the environment.
const before = process.env.DEVICEBENCH_BOND_KEY_FILE;
process.env.DEVICEBENCH_BOND_KEY_FILE = keyFile;
afterAll(() => {
  if (before === undefined) delete process.env.DEVICEBENCH_BOND_KEY_FILE;
  else process.env.DEVICEBENCH_BOND_KEY_FILE = before;
});

const bench = useBench();

describe('a damaged bond store', () => {
  it('is named on the Bonds panel, reset after a confirmation naming the file, and the key in use said', async () => {
    const { page, dataDir, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const file = join(dataDir, 'bonds.bin');
    // Damaged while the app runs (a disk error, a copy cut short): seen at the next listing.
    writeFileSync(file, randomBytes(48), { mode: 0o600 });
    await nav(page, 'Settings').click();
    await nav(page, 'BLE bench').click();
    const bonds = page.getByTestId('ble-bonds');
    const damaged = bonds.getByTestId('bonds-damaged');
    await expectText(damaged, 'Bonds are not being kept.');
    await expectText(damaged, `${file} is damaged: it does not open with the key from key file`);
    await atEachSize(page, async () => {
      await damaged.scrollIntoViewIfNeeded();
      await shoot(page, 'bonds-damaged');
    });

    await damaged.getByRole('button', { name: 'Reset bond store…' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Reset the bond store' });
    await expectText(confirm, `Set ${file} aside (renamed with the time)`);
    await confirm.getByRole('button', { name: 'Set aside and start anew' }).click();
    const said = bonds.getByTestId('bonds-reset-said');
    await expectText(said, `Set aside as ${file}.damaged-`);
    const aside = (await said.textContent())!.match(/as (\S+);/)![1]!;
    expect(existsSync(aside)).toBe(true);
    await expect.poll(() => damaged.count()).toBe(0);
    await expectText(
      bonds.getByTestId('bonds-storage'),
      `Bonds are kept in ${file}, encrypted with the key from key file ${keyFile}.`,
    );

    await nav(page, 'Settings').click();
    await expectText(
      page.getByTestId('bond-key'),
      `Bonds are kept in ${file}, encrypted with the key from key file ${keyFile}.`,
    );
    expect(pageErrors).toEqual([]);
  });
});
