// The sample image shipped in resources/ (README, "Firmware panel") is taken by the Firmware
// panel of the simulated MCUmgr board: read as version 1.1.0, Upload ready. The file is chosen
// once; the panel is looked at in both window sizes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { atEachSize, clippedText, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();
const FILE = 'resources/firmware/sample-mcuboot/zephyr-sample-1.1.0.signed.bin';

describe('the sample image', () => {
  it('is read by the Firmware panel, ready to upload', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    await page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Zephyr MCUmgr"]')
      .getByRole('button', { name: 'Connect DB Zephyr MCUmgr' })
      .click();
    const card = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr MCUmgr' });
    const panel = card.getByTestId('firmware-panel');
    await expect.poll(() => panel.getByTestId('firmware-slot').count()).toBeGreaterThan(0);
    await panel.getByLabel('Image file').setInputFiles({
      name: 'zephyr-sample-1.1.0.signed.bin',
      mimeType: 'application/octet-stream',
      buffer: readFileSync(FILE),
    });
    await expectText(panel.getByTestId('chosen-image'), '1.1.0');
    await expect.poll(() => panel.getByRole('button', { name: 'Upload' }).isEnabled()).toBe(true);
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'firmware-sample');
    });
    await card.getByRole('button', { name: 'Disconnect' }).first().click();
    expect(pageErrors).toEqual([]);
  });
});
