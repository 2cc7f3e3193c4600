// The longest values the bench can show, at both window sizes: a 512-byte characteristic value
// (an attribute's longest, as hex and base64), a board's longest name (29 characters), a
// 40-character product name and 1,024 boards at once. No page may scroll sideways, and no word
// of a label may break in the middle ("conn/ect"): labels wrap between words or not at all
// (docs/decisions/app-and-ui.md, "Longest values"). Each page is brought up once and looked at
// in both window sizes.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  clippedText,
  createProduct,
  expectText,
  FLOW_SIZE,
  nav,
  opStatus,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

const LONG_BOARD = 'DB Longest Value Board 2029-X';
const PRODUCT = 'Thermostat Controller Prototype Rev 4.2B';
const SERVICE = 'b1e70000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LONG_VALUE = 'b1e70001-7f2e-4b61-9c0d-5e1f2a3b4c5d';
/** 512 bytes no text reads as: shown as hex and base64. */
const VALUE_HEX = Array.from({ length: 512 }, (_, i) =>
  ((i * 73 + 0x81) & 0xff).toString(16).padStart(2, '0'),
).join('');

const BOARDS = {
  boards: [
    {
      name: LONG_BOARD,
      address: 'c6:10:00:00:05:12',
      advertising: { intervalMs: 100 },
      gatt: [
        {
          uuid: SERVICE,
          name: 'Longest values',
          characteristics: [
            {
              uuid: LONG_VALUE,
              name: 'A characteristic with the longest value',
              properties: ['read', 'write', 'notify'],
              value: { hex: VALUE_HEX },
            },
          ],
        },
      ],
    },
    // 1,024 boards on the bench with its six own and the one above: slow advertisers, so the
    // shared machine is not flooded.
    {
      name: 'DB Tray {n}',
      address: 'c6:20:00:00:00:01',
      count: 1000,
      advertising: { intervalMs: 2000 },
    },
    {
      name: 'DB Shelf {n}',
      address: 'c6:30:00:00:00:01',
      count: 17,
      advertising: { intervalMs: 2000 },
    },
  ],
};

/**
 * Runs in the page (plain JS: the tests' TypeScript has no DOM types): every word of a label (not
 * a value: bytes, a text field, fixed-width text other than an address or a time) drawn across two lines. Words are split at spaces,
 * hyphens and slashes, where a line may break.
 */
const BROKEN_WORDS = `(() => {
  const found = [];
  const main = document.querySelector('main');
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest('.ble-bytes, pre, textarea, .offscreen, [aria-hidden="true"]')) continue;
    // In fixed-width values (UUIDs, hex) only an address or a time is one word.
    const value = el.closest('code, .mono');
    const text = node.textContent;
    const words = /[^\\s\\-/–—]+/g;
    for (let m = words.exec(text); m; m = words.exec(text)) {
      if (value && !/^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$|^\\d{1,2}:\\d{2}(?::\\d{2})?$/i.test(m[0])) continue;
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) found.push(el.tagName.toLowerCase() + ' "' + m[0] + '"');
    }
  }
  return [...new Set(found)];
})()`;

async function expectFits(page: Page, where: string): Promise<void> {
  expect(await clippedText(page), where).toEqual([]);
  expect(await page.evaluate(BROKEN_WORDS), where).toEqual([]);
}

describe('the longest values', () => {
  it('loads 1,024 boards and a 40-character product', async () => {
    const { page } = bench();
    expect(
      await opStatus(page, 'sim:loadBoards', {
        text: JSON.stringify(BOARDS),
        fileName: 'longest.json',
      }),
    ).toBe(200);
    await nav(page, 'Device service').click();
    await createProduct(page, PRODUCT);
  });

  it('fits the BLE bench with 1,024 boards and a 512-byte value read and logged', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    const scan = page.getByTestId('ble-scan');
    const heard = async () =>
      Number(/([\d,]+) heard/.exec(await scan.innerText())?.[1]?.replace(/,/g, '') ?? 0);
    await expect.poll(heard, { timeout: 20_000 }).toBe(1024);
    await atEachSize(page, async () => {
      await shoot(page, 'longest-values-scan');
      await expectFits(page, 'scan list');
    });

    const row = scan.locator(`[data-testid="scan-row"][data-name="${LONG_BOARD}"]`);
    await row.getByRole('button', { name: `Connect ${LONG_BOARD}` }).click();
    const card = page.locator('[data-testid="gatt-explorer"]', { hasText: LONG_BOARD });
    await expectText(card.getByTestId('link-state'), 'Connected');
    await card.getByRole('button', { name: `Read ${LONG_VALUE}` }).click();
    await card.getByTestId('read-value').waitFor();
    await expectText(card.getByTestId('read-value'), 'base64');
    await atEachSize(page, async () => {
      await shoot(page, 'longest-values-read');
      await expectFits(page, 'a 512-byte value read');
    });

    await card.getByRole('button', { name: 'Disconnect' }).first().click();
    expect(pageErrors).toEqual([]);
  });

  it('fits every page with a 40-character product', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    for (const label of ['Start', 'Device service', 'Provisioning', 'Scenarios', 'Audit log']) {
      await nav(page, label).click();
      await page.locator('main h1').first().waitFor();
      await page
        .locator('main [role=status]', { hasText: /Loading/ })
        .first()
        .waitFor({ state: 'detached' });
      await atEachSize(page, (size) =>
        expectFits(page, `${label} at ${size.width}×${size.height}`),
      );
    }
    await atEachSize(page, () => shoot(page, 'longest-values-audit'));
    expect(pageErrors).toEqual([]);
  });
});
