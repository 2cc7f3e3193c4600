// The Zephyr Secure board provisioned with a shipped profile: the "DeviceBench v1, level 4"
// profile (resources/profiles/secure-devicebench-v1.json) is in the plan's list, no profile file
// is hand-made, and the board pairs with its passkey and is verified (issue 45, point 3). The
// test loads the board itself, so it starts unbonded and asks. The flow runs once; the verified
// result is pictured in both window sizes.
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  createProduct,
  expectText,
  FLOW_SIZE,
  nav,
  loadSecureBoards,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

describe('a level-4 board with the shipped profile', () => {
  it('pairs with the passkey and verifies the board', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const product = 'Level4 product';
    await nav(page, 'Device service').click();
    await createProduct(page, product);
    const BOARD = 'L4 Secure';
    await loadSecureBoards(page, BOARD, 'e8:2b:7c:74:00:01');

    await nav(page, 'Provisioning').click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: product });
    await plan.getByLabel('Provisioning profile').selectOption('secure-devicebench-v1');
    await expectText(plan, 'authenticated LE Secure Connections');
    await plan.getByLabel('Prefix').fill('L4-');

    await page
      .getByTestId('prov-scan')
      .locator(`[data-testid="scan-row"][data-name="${BOARD}"]`)
      .getByRole('button', { name: `Provision ${BOARD}` })
      .click();
    const prompt = page.getByRole('alertdialog', {
      name: new RegExp(`Enter the passkey ${BOARD}`),
    });
    await expectText(prompt, 'Enter the passkey');
    await prompt.getByLabel('Passkey').fill('246801');
    await prompt.getByRole('button', { name: 'Pair' }).click();
    const result = page.getByTestId('single-result').filter({ hasText: BOARD }).first();
    await result.waitFor({ timeout: 60_000 });
    await expect.poll(() => result.innerText(), { timeout: 60_000 }).toContain('verified');
    await expectText(result, 'L4-000001');
    await atEachSize(page, () => shoot(page, 'provision-level4-verified'));
    expect(pageErrors).toEqual([]);
  });
});
