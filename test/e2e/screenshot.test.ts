// The README's pictures at 1280×800: the device service console with products and a scenario
// set, the BLE bench scanning the simulated bench, a dry run's timeline, the advertisement
// inspector beside the GATT explorer's names and formats, one board provisioned with its steps
// and history, and the start page after them.
// Always written to test-results/; copied to docs/ with UPDATE_SCREENSHOT=1 so ordinary test
// runs don't rewrite committed files.
import { copyFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectText, useBench, createProduct } from './fixture';

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
          serviceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
          characteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
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
    await page.getByRole('button', { name: 'Device service' }).click();
    for (const name of ['Door sensor EVT', 'Soil probe P2', 'Thermostat rev B']) {
      await createProduct(page, name);
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
    const sensor = page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Sensor"]');
    await sensor.waitFor();
    // A few batches, so each board's RSSI history has a shape: eight of the sensor's
    // advertisements (it advertises least often of the bench's boards) in its sparkline.
    const line = sensor.locator('.ble-sparkline polyline');
    await expect
      .poll(async () => ((await line.count()) ? await line.getAttribute('points') : '') ?? '', {
        timeout: 10_000,
      })
      .toSatisfy((points: string) => points.split(' ').length >= 8);
    await capture(page, 'ble-bench.png', 'ble-bench.png');
  });

  // Before the dry run, whose notifications leave a random temperature on the board.
  it('captures the advertisement inspector and the GATT explorer with names and a value format', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const row = page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Sensor"]');
    await row.getByRole('button', { name: 'Connect DB Sensor' }).click();
    const explorer = page.getByTestId('gatt-explorer');
    await expectText(explorer.getByTestId('gatt-connection-state'), 'connected');
    const temperature = explorer.locator(
      `[data-testid="characteristic"][data-uuid="${TEMPERATURE.replace(/-/g, '')}"]`,
    );
    await temperature.getByLabel(`Format of ${TEMPERATURE}`).selectOption({ label: 'int16 LE' });
    await temperature.getByLabel(`Scale of ${TEMPERATURE}`).selectOption({ label: '÷ 100' });
    const unit = temperature.getByLabel(`Unit of ${TEMPERATURE}`);
    await unit.fill('°C');
    await unit.press('Enter');
    await temperature.getByRole('button', { name: `Read ${TEMPERATURE}` }).click();
    await expectText(temperature.getByTestId('decoded-value'), '°C');
    await row.getByRole('button', { name: 'Inspect the advertisement of DB Sensor' }).click();
    const inspector = page.getByTestId('ad-inspector');
    await expectText(inspector.getByTestId('ad-company'), 'Nordic Semiconductor ASA');
    await inspector.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await capture(page, 'names-adv.png', 'names-adv.png');
    await inspector.getByRole('button', { name: 'Close' }).click();
    await explorer.getByRole('button', { name: 'Disconnect' }).click();
    await explorer.getByRole('button', { name: 'Dismiss' }).click();
    await explorer.waitFor({ state: 'detached' });
  });

  it('captures a dry run of a scenario set on the simulated sensor board', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, 'Sensor lamp');
    await page.getByRole('button', { name: 'Scenarios', exact: true }).click();
    const panel = page.getByTestId('run-panel');
    const sensor = panel.getByTestId('run-board').locator('option', { hasText: 'DB Sensor' });
    await sensor.waitFor({ state: 'attached' });
    await panel.getByTestId('run-board').selectOption((await sensor.getAttribute('value')) ?? '');
    const editor = page.getByTestId('scenario-editor');
    await editor.getByRole('tab', { name: 'JSON' }).click();
    await editor.getByTestId('scenario-json').fill(JSON.stringify(DRY_RUN_SET, null, 2));
    await panel.getByRole('button', { name: 'Check the set against this board' }).click();
    await panel.getByTestId('lint-status').waitFor();
    await panel.getByLabel('Run length').selectOption('seconds');
    await panel.getByLabel('Seconds').fill('4');
    await panel.getByRole('button', { name: 'Start dry run' }).click();
    const view = page.getByTestId('run-view');
    await expectText(view.getByTestId('run-state'), 'finished');
    await view
      .getByTestId('timeline-lane-1')
      .locator('[data-testid="timeline-block"][data-type="GATT_READ"]')
      .first()
      .click();
    await view.getByTestId('timeline').scrollIntoViewIfNeeded();
    await view.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await capture(page, 'scenarios.png', 'scenarios.png');
  });

  it('captures one board provisioned with its step progress and the record’s history', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const sim = page.getByTestId('sim-bench');
    await sim.getByTestId('board-file').setInputFiles({
      name: 'lamp.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ boards: [LAMP] })),
    });
    await sim.getByTestId('sim-board').filter({ hasText: LAMP.name }).waitFor();
    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: 'Door sensor EVT' });
    await plan.getByLabel('Prefix').fill('DOOR-');
    await expectText(plan.getByTestId('psdi-preview'), 'DOOR-000001');
    await page
      .getByTestId('prov-scan')
      .locator(`[data-testid="scan-row"][data-name="${LAMP.name}"]`)
      .getByRole('button', { name: `Provision ${LAMP.name}` })
      .click();
    const result = page.getByTestId('single-result').filter({ hasText: LAMP.name }).first();
    await expectText(result, 'verified');
    await expectText(result.getByTestId('record-history'), 'attempt 2 after link lost');
    // The plan shows the next PSDI after the verified board.
    await expectText(plan.getByTestId('psdi-preview'), 'DOOR-000002');
    // The list, the provisioned board's row kept in place, and the steps and history under it.
    await page.getByTestId('prov-scan').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await capture(page, 'provisioning.png', 'provisioning.png');
  });

  it('captures the start page with the workflow the tests above went through', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    // Steps 3 and 4 are one product's: the one whose set was saved above.
    await page.getByTestId('start-product').selectOption({ label: 'Thermostat rev B' });
    await expectText(
      page.locator('[data-testid="workflow-step"][data-step="upload"]'),
      'Scenario set saved rev 1',
    );
    await expectText(
      page.locator('[data-testid="workflow-step"][data-step="dry-run"]'),
      'Dry runs of',
    );
    await capture(page, 'start.png', 'start.png');
  });
});

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
/** A board whose link drops under the PSDI write: provisioned on the second attempt. */
const LAMP = {
  name: 'Door sensor EVT 07',
  address: 'e8:12:9c:20:00:07',
  advertising: { intervalMs: 30 },
  provisioning: { profile: 'devicebench-v1', rebootMs: 50 },
  faults: { dropLinkDuringWrite: { characteristic: '8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00' } },
};
const DRY_RUN_SET = {
  autoClose: false,
  suppressionInterval: 0,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        {
          type: 'GATT_WRITE',
          serviceUuid: SENSOR,
          characteristicUuid: 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d',
          data: 'AQ==',
        },
        { type: 'SLEEP', sleepMillis: 300 },
        {
          type: 'GATT_READ',
          serviceUuid: SENSOR,
          characteristicUuid: 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d',
        },
      ],
    },
    {
      trigger: {
        type: 'BLE_NOTIFICATION',
        serviceUuid: SENSOR,
        characteristicUuid: 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d',
      },
      actions: [
        {
          type: 'GATT_READ',
          serviceUuid: SENSOR,
          characteristicUuid: 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d',
        },
        { type: 'SLEEP', sleepMillis: 150 },
      ],
    },
  ],
};

async function capture(page: Page, result: string, doc: string): Promise<void> {
  mkdirSync(resolve('test-results'), { recursive: true });
  const shot = resolve('test-results', result);
  await page.screenshot({ path: shot });
  if (process.env.UPDATE_SCREENSHOT === '1') copyFileSync(shot, resolve('docs', doc));
}
