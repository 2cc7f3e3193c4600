// Fixed-width text is fixed-width on this Linux too: JSON and hex (the login console's answer,
// the scan table's addresses) take as much room for "iiiiiiii" as for "WWWWWWWW", drawn in the
// element's own font (docs/decisions.md, "Fixed-width text"). A letter's width is the font's,
// not the window's: measured once; the pictures are taken at both window sizes (atEachSize).
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { atEachSize, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();

/** The drawn widths of narrow and wide letters in a span placed inside the element. */
async function letterWidths(element: Locator): Promise<[number, number]> {
  return (await element.evaluate((el: { ownerDocument: unknown; appendChild: unknown }) => {
    const doc = el.ownerDocument as {
      createElement: (t: string) => {
        textContent: string;
        remove: () => void;
        getBoundingClientRect: () => { width: number };
      };
    };
    const width = (text: string) => {
      const span = doc.createElement('span');
      span.textContent = text;
      (el.appendChild as (n: unknown) => void).call(el, span);
      const drawn = span.getBoundingClientRect().width;
      span.remove();
      return drawn;
    };
    return [width('iiiiiiii'), width('WWWWWWWW')];
  })) as [number, number];
}

describe('fixed-width text', () => {
  it('draws JSON and hex with every letter the same width', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);

    await nav(page, 'Login & profile').click();
    const ops = page.getByTestId('login-operations');
    await ops.getByLabel('Operation', { exact: true }).selectOption('verifyIdToken');
    await ops.getByLabel('id_token', { exact: true }).fill('not-a-jwt');
    await ops.getByRole('button', { name: 'Send' }).click();
    const json = ops.getByTestId('login-response-body');
    await expectText(json, 'Invalid IdToken.');
    const [narrowJson, wideJson] = await letterWidths(json);
    expect(narrowJson).toBeGreaterThan(0);
    expect(narrowJson).toBeCloseTo(wideJson, 0);
    await atEachSize(page, () => shoot(page, 'fixed-width-json'));

    await nav(page, 'BLE bench').click();
    const row = page.getByTestId('ble-scan').getByTestId('scan-row').first();
    await row.waitFor();
    const address = row.locator('td.mono').first();
    expect(await address.innerText()).toMatch(/^[0-9A-F]{2}(:[0-9A-F]{2}){5}$/i);
    const [narrowHex, wideHex] = await letterWidths(address);
    expect(narrowHex).toBeGreaterThan(0);
    expect(narrowHex).toBeCloseTo(wideHex, 0);
    await atEachSize(page, () => shoot(page, 'fixed-width-hex'));
    expect(pageErrors).toEqual([]);
  });
});
