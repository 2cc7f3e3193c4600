// The Zephyr Secure board's services and characteristics by name on its card, at both window
// sizes, as DB Sensor's are: its board file names them (resources/sim/zephyr-secure.json, its
// provisioning profile), though it is on the air under a private address, not its identity
// (issue 45).
import { describe, expect, it } from 'vitest';
import { clippedText, expectText, nav, shoot, useBench, WINDOW_SIZES } from './fixture';

const bench = useBench();
const STATUS = '8f1d0006-6b4e-4c5a-9d3e-2a7c5b1e0f00';

describe.each(WINDOW_SIZES)('the Zephyr Secure board’s names at $width×$height', (size) => {
  it('names its services and characteristics on its card', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(size);
    await nav(page, 'BLE bench').click();
    await page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Zephyr Secure"]')
      .getByRole('button', { name: 'Connect DB Zephyr Secure' })
      .click();
    const card = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr Secure' });
    await expectText(card.getByTestId('link-state'), 'Connected');
    const status = card.locator(
      `[data-testid="characteristic"][data-uuid="${STATUS.replace(/-/g, '')}"]`,
    );
    await expectText(status, 'Status');
    await expectText(card, 'PSDI');
    expect(await clippedText(page)).toEqual([]);
    await shoot(page, 'secure-names');
    await card.getByRole('button', { name: 'Disconnect' }).first().click();
    expect(pageErrors).toEqual([]);
  });
});
