// The Zephyr Secure board's services and characteristics by name on its card, as DB Sensor's
// are: its board file names them (resources/sim/zephyr-secure.json, its
// provisioning profile), though it is on the air under a private address, not its identity
// (issue 45). Its adapter measures no signal strength, as btvirt and some controllers: RSSI
// 127 is "n/a" in the scan list and on the card, never "127 dBm" (issue 47). The card is opened
// once and looked at in both window sizes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atEachSize, clippedText, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench({
  prepareDataDir: (dataDir) => {
    const file = join(dataDir, 'sim-adapter.json');
    const adapter = JSON.parse(readFileSync(file, 'utf8')) as object;
    writeFileSync(file, JSON.stringify({ ...adapter, rssi: 'notAvailable' }));
  },
});
const STATUS = '8f1d0006-6b4e-4c5a-9d3e-2a7c5b1e0f00';

describe('the Zephyr Secure board’s names', () => {
  it('names its services and characteristics on its card', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    const row = page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Zephyr Secure"]');
    await expectText(row.locator('.ble-rssi'), 'n/a');
    for (const text of await page.getByTestId('ble-scan').getByTestId('scan-row').allInnerTexts())
      expect(text).not.toContain('dBm');
    await row.getByRole('button', { name: 'Connect DB Zephyr Secure' }).click();
    const card = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr Secure' });
    await expectText(card.getByTestId('link-state'), 'Connected');
    await expectText(card.getByTestId('link-rssi'), 'n/a');
    const status = card.locator(
      `[data-testid="characteristic"][data-uuid="${STATUS.replace(/-/g, '')}"]`,
    );
    await expectText(status, 'Status');
    await expectText(card, 'PSDI');
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'secure-names');
    });
    await card.getByRole('button', { name: 'Disconnect' }).first().click();
    expect(pageErrors).toEqual([]);
  });
});
