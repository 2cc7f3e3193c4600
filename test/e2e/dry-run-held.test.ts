// The dry run's board picker says why a board connected on the BLE bench is not in it (a
// connected board does not advertise) instead of leaving it out silently, and lists it again
// once it is disconnected there (issue 45). The flow runs once; what is cut, and the picture,
// are looked at in both window sizes.
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

describe('the dry run’s board picker', () => {
  it('names a board connected on the BLE bench and why it is not listed', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Device service').click();
    await createProduct(page, 'Held board product');
    await nav(page, 'BLE bench').click();
    await page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Sensor"]')
      .getByRole('button', { name: 'Connect DB Sensor' })
      .click();
    const card = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Sensor' });
    await expectText(card.getByTestId('link-state'), 'Connected');

    await nav(page, 'Scenarios').click();
    const panel = page.getByTestId('run-panel');
    const held = panel.getByTestId('run-board-held');
    await expectText(held, 'Not listed: DB Sensor, connected on the BLE bench');
    const boardSelect = panel.getByTestId('run-board');
    await boardSelect.locator('option', { hasText: 'DB Starter' }).waitFor({ state: 'attached' });
    expect(await boardSelect.locator('option', { hasText: 'DB Sensor' }).count()).toBe(0);
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'dry-run-held');
    });

    await nav(page, 'BLE bench').click();
    await card.getByRole('button', { name: 'Disconnect' }).first().click();
    await nav(page, 'Scenarios').click();
    await boardSelect
      .locator('option', { hasText: 'DB Sensor' })
      .waitFor({ state: 'attached', timeout: 15_000 });
    await held.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });
});
