// Every page fits the smaller window (1024×640) and the larger one: no page scrolls sideways and
// no visible text is cut without an ellipsis and its full text at hand, with the long values a
// bench produces on screen (a module channel's authorization URL, the login redirect URI, an
// audit record's board and detail). In the provisioning list a board that was just provisioned
// keeps its row, and only the rows below it move, by its result's height. Each page is opened
// once and looked at in both windows (atEachSize).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  shoot,
  useBench,
  nav,
  createProduct,
} from './fixture';

const bench = useBench();

/** The tops of the list's rows, by board name. */
function rowTops(page: Page): Promise<Record<string, number>> {
  return page
    .getByTestId('prov-scan')
    .getByTestId('scan-row')
    .evaluateAll(
      (rows: { dataset: { name?: string }; getBoundingClientRect(): { top: number } }[]) =>
        Object.fromEntries(rows.map((r) => [r.dataset.name ?? '', r.getBoundingClientRect().top])),
    );
}

async function expectFits(page: Page, where: string): Promise<void> {
  expect({ where, cut: await clippedText(page) }).toEqual({ where, cut: [] });
}

describe('pages that fit the window', () => {
  it('keeps every row of the provisioning list in place when a board is provisioned', async () => {
    const { page } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Device service').click();
    await createProduct(page, 'Fit check product with a long enough name');

    await nav(page, 'Provisioning').click();
    const scan = page.getByTestId('prov-scan');
    const board = scan.locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]');
    await board.waitFor();
    // Every blank board of the simulated bench is listed before the rows are measured.
    await expect.poll(() => scan.getByTestId('scan-row').count()).toBe(5);
    await board.scrollIntoViewIfNeeded();
    const before = await rowTops(page);
    expect(Object.keys(before).length).toBeGreaterThan(1);
    await board.getByRole('button', { name: 'Provision DB nRF52 DK' }).click();
    await expectText(page.getByTestId('single-result').first(), 'verified');
    // The board now advertises its product, not the blank service: its row stays, faded. The
    // rows above it and its own stay put; its steps and result open under it, so the rows below
    // move down together by that height, keeping their order (docs/decisions.md, "Results where
    // the click was").
    await expect.poll(() => board.getAttribute('data-left')).toBe('true');
    const after = await rowTops(page);
    const clicked = before['DB nRF52 DK']!;
    const detail = (await scan.getByTestId('row-detail').boundingBox())!;
    expect(after['DB nRF52 DK']).toBe(clicked);
    for (const [name, top] of Object.entries(before))
      expect(after[name], name).toBeCloseTo(top <= clicked ? top : top + detail.height, 0);
    await shoot(page, 'page-fit-provisioned');
  });

  it('shows a module channel’s authorization URL whole at both sizes', async () => {
    const { page } = bench();
    await nav(page, 'Module channels').click();
    await page.getByRole('button', { name: 'Create module channel' }).click();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByTestId('module-account').waitFor();
    await page.getByRole('button', { name: 'Approve as account admin' }).click();
    const url = page.getByRole('button', { name: /Copy authorization URL/ });
    await url.waitFor();
    await atEachSize(page, async () => {
      await url.scrollIntoViewIfNeeded();
      await expectFits(page, 'module-channels');
      await shoot(page, 'page-fit-module-channels');
    });
  });

  it('visits every page at both sizes: no sideways scroll, no cut text', async () => {
    const { page, pageErrors } = bench();
    const pages = page.getByRole('navigation', { name: 'Areas' }).getByRole('button');
    const labels = await pages.allInnerTexts();
    expect(labels.length).toBeGreaterThan(15);
    for (const label of labels) {
      await nav(page, label).click();
      // Locator waits: a polled string predicate would need eval, which the CSP refuses. The
      // clicked entry marked current means its page, not the one before, is the one shown.
      await nav(page, label).and(page.locator('[aria-current=page]')).waitFor();
      const id = (await page.evaluate('location.hash.slice(2).split("?")[0]')) as string;
      await page.locator('main h1').first().waitFor();
      await page
        .locator('main [role=status]', { hasText: /Loading/ })
        .first()
        .waitFor({ state: 'detached' });
      if (id === 'audit-log') await page.getByTestId('audit-row').first().waitFor();
      await atEachSize(page, async (size) => {
        await expectFits(page, `${id} at ${size.width}`);
        if (id === 'audit-log' || id === 'login' || id === 'provisioning')
          await shoot(page, `page-fit-${id}`);
      });
    }
    expect(pageErrors).toEqual([]);
  });
});
