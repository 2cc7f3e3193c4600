// A value format belongs to the product and the characteristic: set on a blank board (scope of
// no product), it is still there once the board is provisioned for a product, whose address
// and advertised service the board now has. The flow runs once; the value in view and its
// picture are checked at both window sizes (atEachSize).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, shoot, useBench, createProduct } from './fixture';

const bench = useBench();
const TEMPERATURE = '2a6e';

async function connect(page: Page, name: string) {
  await page
    .getByRole('navigation', { name: 'Areas' })
    .getByRole('button', { name: 'BLE bench', exact: true })
    .click();
  const row = page.getByTestId('ble-scan').locator(`[data-testid="scan-row"][data-name="${name}"]`);
  await row.getByRole('button', { name: `Connect ${name}` }).click();
  const board = page.locator('[data-testid="gatt-explorer"]', { hasText: name });
  await expectText(board.getByTestId('link-state'), 'Connected');
  return {
    board,
    row,
    temperature: board.locator(`[data-testid="characteristic"][data-uuid="${TEMPERATURE}"]`),
  };
}

describe('a value format through provisioning', () => {
  it('keeps the format set on the blank board once it is the product’s board', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const name = 'E2E Thermo';
    const product = 'Formats';
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, product);
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const sim = page.getByTestId('sim-bench');
    await sim.getByTestId('board-file').setInputFiles({
      name: 'thermo.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({
          boards: [
            {
              name,
              address: 'e8:12:9c:20:00:01',
              advertising: { intervalMs: 30 },
              gatt: [
                {
                  uuid: '181a',
                  characteristics: [
                    {
                      uuid: TEMPERATURE,
                      properties: ['read'],
                      value: { hex: 'fa08' },
                      maxLength: 2,
                    },
                  ],
                },
              ],
              provisioning: { profile: 'devicebench-v1', rebootMs: 50 },
            },
          ],
        }),
      ),
    });
    await sim.getByTestId('sim-board').filter({ hasText: name }).waitFor();

    // Blank: the format is kept for boards of no trial product.
    let { board, row, temperature } = await connect(page, name);
    await expectText(board.getByTestId('names-scope'), 'boards of no trial product');
    await temperature.getByLabel(`Format of ${TEMPERATURE}`).selectOption({ label: 'int16 LE' });
    await temperature.getByLabel(`Scale of ${TEMPERATURE}`).selectOption({ label: '÷ 100' });
    await temperature.getByRole('button', { name: `Read ${TEMPERATURE}` }).click();
    await expectText(temperature.getByTestId('decoded-value'), '22.98');
    await row.getByRole('button', { name: `Disconnect ${name}` }).click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await board.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: product });
    await plan.getByLabel('Prefix').fill('F-');
    // On the button itself: the list is still taking in the bench's boards, and a row added
    // above between Playwright's look and its click moved another board's button under the
    // pointer (a full run at load 10 provisioned DB Zephyr Secure instead).
    await page
      .getByTestId('prov-scan')
      .locator(`[data-testid="scan-row"][data-name="${name}"]`)
      .getByRole('button', { name: `Provision ${name}` })
      .dispatchEvent('click');
    const result = page.getByTestId('single-result').filter({ hasText: name }).first();
    await result.waitFor({ timeout: 30_000 });
    await expectText(result, 'verified');

    // Provisioned: the product's scope, and the format is still there.
    ({ board, row, temperature } = await connect(page, name));
    await expectText(board.getByTestId('names-scope'), product);
    await expect
      .poll(() => temperature.getByLabel(`Format of ${TEMPERATURE}`).inputValue())
      .toBe('int16le');
    await temperature.getByRole('button', { name: `Read ${TEMPERATURE}` }).click();
    const decoded = temperature.getByTestId('decoded-value');
    await expectText(decoded, '22.98');
    await atEachSize(page, async (size) => {
      const box = await decoded.boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= size.height).toBe(true);
      await shoot(page, 'format-after-provisioning');
    });
    await row.getByRole('button', { name: `Disconnect ${name}` }).click();
    expect(pageErrors).toEqual([]);
  });
});
