// The Zephyr Secure board provisioned with the default profile (devicebench-v1, level 1): its
// GATT answers the status read with Insufficient Authentication, so the run pairs authenticated
// once, asks for the board's passkey in view, and verifies the board, with no hand-made profile
// (issue 45, point 3; docs/decisions/provisioning.md, "A board that asks for pairing the profile
// does not state"). A wrong passkey ends the run in two sentences naming the window's own forms,
// the step shown as pairing, the details behind a toggle. Each run happens once; its picture is
// taken at both window sizes (atEachSize).
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
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

/** A new product, the board loaded on the simulated bench, the default profile planned. */
async function planFor(page: Page, tag: string, board: string, address: string): Promise<void> {
  await nav(page, 'Device service').click();
  const product = `Asks product ${tag}`;
  await createProduct(page, product);
  await loadSecureBoards(page, board, address);
  await nav(page, 'Provisioning').click();
  const plan = page.getByTestId('prov-plan');
  await plan.getByLabel('Product').selectOption({ label: product });
  await plan.getByLabel('Provisioning profile').selectOption('devicebench-v1');
  await plan.getByLabel('Prefix').fill(`AS${tag}-`);
  await page
    .getByTestId('prov-scan')
    .locator(`[data-testid="scan-row"][data-name="${board}"]`)
    .getByRole('button', { name: `Provision ${board}` })
    .click();
}

describe('a board that asks for pairing', () => {
  it('is paired with its passkey and verified under the default profile', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const tag = '1';
    const board = 'Asks Secure';
    await planFor(page, tag, board, 'e8:2b:7c:64:00:01');
    const prompt = page.getByRole('alertdialog', {
      name: new RegExp(`Enter the passkey ${board}`),
    });
    await expectText(prompt, 'Enter the passkey');
    await prompt.getByLabel('Passkey').fill('246801');
    await prompt.getByRole('button', { name: 'Pair' }).click();
    const result = page.getByTestId('single-result').filter({ hasText: board }).first();
    await result.waitFor({ timeout: 60_000 });
    await expect.poll(() => result.innerText(), { timeout: 60_000 }).toContain('verified');
    await expectText(result, `AS${tag}-000001`);
    await atEachSize(page, () => shoot(page, 'provision-board-asks-verified'));
    expect(pageErrors).toEqual([]);
  });

  it('ends a wrong passkey in two sentences, the step shown as pairing, details behind a toggle', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const tag = '2';
    const board = 'Asks Wrong';
    await planFor(page, tag, board, 'e8:2b:7c:65:00:01');
    const prompt = page.getByRole('alertdialog', {
      name: new RegExp(`Enter the passkey ${board}`),
    });
    await prompt.getByLabel('Passkey').fill('111111');
    await prompt.getByRole('button', { name: 'Pair' }).click();
    const result = page.getByTestId('single-result').filter({ hasText: board }).first();
    await result.waitFor({ timeout: 60_000 });
    await expect.poll(() => result.innerText(), { timeout: 60_000 }).toContain('failed');
    // Under the clicked row and in the Single board panel: two sentences, the step said as
    // pairing, only the window's own forms named; the board's reason behind "Details".
    for (const place of [page.getByTestId('single-row-result'), result]) {
      const shown = await place.innerText();
      expect(shown).toContain('pair: pairing with the board failed, so no PSDI was reserved.');
      expect(shown).toContain('the link card’s pairing form');
      expect(shown).not.toMatch(/--passkey|--io-capability|refused the discover|discover:/);
      expect(shown).not.toContain('0x04 confirm value failed');
      await place.getByText('Details', { exact: true }).click();
      await expectText(place, '0x04 confirm value failed');
    }
    await atEachSize(page, () => shoot(page, 'provision-board-asks-wrong-passkey'));
    // The step list says pairing failed, not discover; the run said why, so the pairing's
    // prompt has left the window on its own (no notice to dismiss over the page).
    const steps = page.getByTestId('single-steps');
    expect(await steps.locator('[data-step="pair"]').getAttribute('data-state')).toBe('failed');
    expect(await steps.locator('[data-step="discover"]').getAttribute('data-state')).toBe('done');
    await expect.poll(() => page.getByRole('region', { name: 'Pairing requests' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
