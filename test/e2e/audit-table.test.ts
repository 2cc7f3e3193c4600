// The audit table as a person reads it, at both window sizes: a 40-character product name and
// the board's name whole while no record on the page failed (the Detail column takes no width
// then); one time format (local, 24-hour, the zone in the column's head); "1 record matches";
// and a 2-character search said at its field, not sent, with no old result left listed
// (docs/decisions/app-and-ui.md, "One time format" and "Longest values"). The page is opened
// and searched once; its layout is checked at each size.
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  clippedText,
  createProduct,
  expectText,
  FLOW_SIZE,
  nav,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

const PRODUCT = 'Thermostat Controller Prototype Rev 4.2B';

/** Whether the cell's text is cut (wider than the box it shows in). */
function cut(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth > el.clientWidth + 1,
  );
}

describe('the audit table', () => {
  it('provisions a board of a 40-character product', async () => {
    const { page } = bench();
    await nav(page, 'Device service').click();
    await createProduct(page, PRODUCT);
    await nav(page, 'Provisioning').click();
    await page
      .getByTestId('prov-scan')
      .locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]')
      .getByRole('button', { name: 'Provision DB nRF52 DK' })
      .click();
    const result = page.getByTestId('single-result').first();
    await result.waitFor({ timeout: 30_000 });
    await expectText(result, 'verified');
  });

  it('shows the names whole, one time format, and refuses a 2-character search at its field', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Audit log').click();
    const row = page.getByTestId('audit-row').first();
    await row.waitFor();
    await expectText(page.getByTestId('export-status'), '1 record matches');
    const table = page.getByTestId('audit-table');
    await expectText(table.locator('thead'), 'Updated (UTC');
    const updated = (await row.locator('td').first().innerText()).trim();
    expect(updated).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(await row.locator('td.audit-product').innerText()).toBe(PRODUCT);
    await atEachSize(page, async (size) => {
      // No record failed: the Detail column is as narrow as its head, and the names take the row.
      const detailWidth = (await row.locator('td.audit-detail').boundingBox())!.width;
      expect(detailWidth).toBeLessThan(70);
      expect(await cut(row.locator('.audit-board-name'))).toBe(false);
      // Whole at 1280 px; at 1024 px a 40-character name may give way, with an ellipsis and
      // the whole name in its title (checked by clippedText).
      if (size.width >= 1280) expect(await cut(row.locator('td.audit-product'))).toBe(false);
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'audit-table');
    });

    const search = page.getByRole('search', { name: 'Search records' });
    await search.getByLabel('PSDI or board address').fill('DB');
    await search.getByRole('button', { name: 'Search' }).click();
    await expectText(search, 'needs at least 3 characters to search');
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    // Not sent: the list still answers the last search, and says so by its count.
    await expectText(page.getByTestId('export-status'), '1 record matches');
    await atEachSize(page, () => shoot(page, 'audit-table-short-search'));
    await search.getByLabel('PSDI or board address').fill('');
    expect(pageErrors).toEqual([]);
  });
});
