// The README's pictures: the device service console with products and a scenario set, and the
// BLE bench scanning the simulated bench. Always written to test-results/; copied to docs/ with
// UPDATE_SCREENSHOT=1 so ordinary test runs don't rewrite committed files.
import { copyFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { expectText, useBench } from './fixture';

const bench = useBench();

const SCENARIO_SET = {
  autoClose: true,
  suppressionInterval: 5000,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        {
          type: 'GATT_READ',
          serviceUuid: 'c4a0e5f6-5b2d-4f4e-8a3c-1d7e9b2f6a01',
          characteristicUuid: 'c4a0e5f6-5b2d-4f4e-8a3c-1d7e9b2f6a02',
        },
        {
          type: 'GATT_WRITE',
          serviceUuid: '6e400001-b5a3-f393-e0a9-e50e24dcca9e',
          characteristicUuid: '6e400002-b5a3-f393-e0a9-e50e24dcca9e',
          data: 'AQID',
        },
        { type: 'SLEEP', sleepMillis: 500 },
      ],
    },
    {
      trigger: {
        type: 'BLE_NOTIFICATION',
        serviceUuid: '6e400001-b5a3-f393-e0a9-e50e24dcca9e',
        characteristicUuid: '6e400003-b5a3-f393-e0a9-e50e24dcca9e',
      },
      actions: [],
    },
  ],
};

describe('screenshot', () => {
  it('captures the device service console with a product and its scenario set', async () => {
    const { page } = bench();
    for (const name of ['Door sensor EVT', 'Soil probe P2', 'Thermostat rev B']) {
      await page.getByLabel('New product name').fill(name);
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.getByTestId('product-row').filter({ hasText: name }).waitFor();
    }
    const editor = page.getByTestId('scenario-editor');
    await editor.getByRole('tab', { name: 'JSON' }).click();
    await editor.getByTestId('scenario-json').fill(JSON.stringify(SCENARIO_SET, null, 2));
    await editor.getByRole('tab', { name: 'Form' }).click();
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expectText(editor.getByTestId('scenario-revision'), 'Revision 1');

    await capture(page, 'device-service.png', 'screenshot.png');
  });

  it('captures the BLE bench hearing the simulated boards', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    await expectText(page.getByTestId('adapter-state'), 'Ready');
    await page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Sensor"]')
      .waitFor();
    // A few batches, so each board's RSSI history has a shape.
    await page.waitForTimeout(3000);
    await capture(page, 'ble-bench.png', 'ble-bench.png');
  });
});

async function capture(page: Page, result: string, doc: string): Promise<void> {
  mkdirSync(resolve('test-results'), { recursive: true });
  const shot = resolve('test-results', result);
  await page.screenshot({ path: shot });
  if (process.env.UPDATE_SCREENSHOT === '1') copyFileSync(shot, resolve('docs', doc));
}
