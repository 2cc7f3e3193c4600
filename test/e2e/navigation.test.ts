// Where the user is lives in the URL: the page and the product. A reload keeps both, the
// browser's Back and Forward move between pages inside the app, and the product chosen on one
// page is the one the next page opens on. The walk runs once; the sidebar's place is looked at
// in both window sizes.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, createProduct, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();

async function expectOn(page: Page, label: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: label, exact: true }).waitFor();
  expect(await nav(page, label).getAttribute('aria-current')).toBe('page');
}

/** The product the page's product picker (its first choice) shows. */
function chosenProduct(page: Page, testId: string): Promise<string> {
  return page
    .getByTestId(testId)
    .locator('select')
    .first()
    .evaluate((el: { selectedOptions: { textContent: string | null }[] }) => {
      return el.selectedOptions[0]?.textContent ?? '';
    });
}

describe('navigation', () => {
  it('names the page and the product in the URL, keeps them on reload, and walks Back and Forward', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Device service').click();
    for (const name of ['First product', 'Second product']) {
      await createProduct(page, name);
    }
    expect(page.url()).toMatch(/#\/device-service(\?product=\d+)?$/);

    // Choose the second product on Scenarios: the URL names it, Provisioning opens on it.
    await nav(page, 'Scenarios').click();
    const picker = page
      .getByTestId('run-panel')
      .locator('label', { hasText: 'Product' })
      .locator('select');
    const second = picker.locator('option', { hasText: 'Second product' });
    await second.waitFor({ state: 'attached' });
    const secondId = (await second.getAttribute('value')) ?? '';
    await picker.selectOption(secondId);
    expect(page.url()).toMatch(new RegExp(`#/scenarios\\?product=${secondId}$`));
    await nav(page, 'Provisioning').click();
    await expectOn(page, 'Provisioning');
    await expect.poll(() => chosenProduct(page, 'prov-plan')).toContain('Second product');
    expect(page.url()).toMatch(new RegExp(`#/provisioning\\?product=${secondId}$`));

    // A reload keeps the page and the product.
    await page.reload();
    await expectOn(page, 'Provisioning');
    await expect.poll(() => chosenProduct(page, 'prov-plan')).toContain('Second product');

    // Back returns to Scenarios (on the same product), then to Device service; Forward again.
    await page.goBack();
    await expectOn(page, 'Scenarios');
    await expect.poll(() => chosenProduct(page, 'run-panel')).toContain('Second product');
    await page.goBack();
    await expectOn(page, 'Device service');
    // The device service console opens the chosen product's scenario set.
    await expectText(page.getByTestId('scenario-editor'), 'Second product');
    await page.goForward();
    await expectOn(page, 'Scenarios');

    await atEachSize(page, async (size) => {
      const box = (await nav(page, 'Scenarios').boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(size.height);
      await shoot(page, 'navigation-scenarios-after-forward');
    });
    expect(pageErrors).toEqual([]);
  });
});
