// Provisioning the Zephyr Secure board (loaded from its board file) in the app: with a profile
// that says the product needs level 4, the station pairs before anything is reserved, the board's
// passkey is asked in view in the pairing prompt, and the board is provisioned and verified after
// its reboot over the bonded, authenticated link. The board rebooted under a new private address:
// the scan list shows it once, on the row that follows it, not again as a blank board at its old
// address (issue 45, point 8). The flow runs once; the prompt in view and the pictures are
// checked at both window sizes (atEachSize).
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  expectText,
  FLOW_SIZE,
  inView,
  shoot,
  useBench,
  createProduct,
  loadSecureBoards,
  planSecureProfile,
} from './fixture';

const bench = useBench();

describe('provisioning a board that needs its passkey', () => {
  it('asks for the passkey in view before reserving, and verifies the board', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const product = 'Secure product';
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, product);
    const BOARD = 'PS Secure';
    await loadSecureBoards(page, BOARD, 'e8:2b:7c:70:00:01');
    const plan = await planSecureProfile(page, product);
    await plan.getByLabel('Prefix').fill('SC-');

    const row = page
      .getByTestId('prov-scan')
      .locator(`[data-testid="scan-row"][data-name="${BOARD}"]`);
    await row.getByRole('button', { name: `Provision ${BOARD}` }).click();
    const prompt = page.getByRole('alertdialog', {
      name: new RegExp(`Enter the passkey ${BOARD}`),
    });
    await expectText(prompt, 'Enter the passkey');
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, prompt)).toBe(true);
      await shoot(page, 'provision-secure-prompt');
    });
    await prompt.getByLabel('Passkey').fill('246801');
    await prompt.getByRole('button', { name: 'Pair' }).click();

    const result = page.getByTestId('single-result').filter({ hasText: BOARD }).first();
    await result.waitFor({ timeout: 60_000 });
    await expect.poll(() => result.innerText(), { timeout: 60_000 }).toContain('verified');
    await expectText(result, 'SC-000001');
    await atEachSize(page, () => shoot(page, 'provision-secure-verified'));

    // Every board listed, whatever its service: one row for this one, no longer blank.
    const list = page.getByTestId('prov-scan');
    await list.getByLabel('Service UUID').fill('');
    const rows = list.locator(`[data-testid="scan-row"][data-name="${BOARD}"]`);
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => rows.innerText()).not.toContain('Blank');
    expect(pageErrors).toEqual([]);
  });
});
