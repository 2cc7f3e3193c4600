// Every simulated fault in one panel, shared by the BLE bench, Provisioning and Scenarios: an ATT
// error of our choice (0x03 write not permitted on the sensor's LED) and a refused pairing set on
// the BLE bench show on the other pages, and a fault set through the contract shows on the open
// page without a Refresh. The flow runs once; the panel's line in view and the pictures are
// checked at both window sizes (atEachSize).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, shoot, useBench } from './fixture';

const bench = useBench();
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const SENSOR_ID = 'd63a41002001';

async function open(page: Page, area: string) {
  await page
    .getByRole('navigation', { name: 'Areas' })
    .getByRole('button', { name: area, exact: true })
    .click();
  const panel = page.getByTestId('faults-panel');
  await panel.waitFor();
  await panel.scrollIntoViewIfNeeded();
  return panel;
}

/** The panel's summary line for the sensor board, read as a person sees it. */
const sensorLine = (page: Page) =>
  page
    .getByTestId('faults-panel')
    .locator(`[data-testid="active-fault"][data-board-id="${SENSOR_ID}"]`);

describe('the faults panel', () => {
  it('sets an ATT error and a refused pairing on the BLE bench, seen live on Provisioning and Scenarios', async () => {
    const { page, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const panel = await open(page, 'BLE bench');
    await panel.getByLabel('Board').selectOption(SENSOR_ID);
    const form = panel.getByRole('form', { name: 'Faults of DB Sensor' });
    await form.getByLabel('ATT error on').selectOption('write');
    // Characteristics are chosen by name from the board's own GATT table.
    const on = form.getByLabel('of (characteristic)');
    expect(await on.locator('option').allInnerTexts()).toEqual(
      expect.arrayContaining(['Any characteristic', `LED (${LED})`]),
    );
    await on.selectOption(LED);
    await form.getByLabel('ATT error code').selectOption('3');
    await form.getByLabel('Refuse pairing').check();
    await form.getByRole('button', { name: 'Apply faults' }).click();
    await expectText(
      sensorLine(page),
      `answers writes of LED (${LED}) with ATT 0x03 write not permitted`,
    );
    await expectText(sensorLine(page), 'refuses pairing');
    await atEachSize(page, async () => {
      await sensorLine(page).scrollIntoViewIfNeeded();
      await shoot(page, 'faults-panel-ble-bench');
    });

    await open(page, 'Provisioning');
    await expectText(sensorLine(page), 'write not permitted');
    await open(page, 'Scenarios');
    await expectText(sensorLine(page), 'refuses pairing');
    // Set elsewhere (the contract, as the CLI or another window would): shown without a Refresh.
    const answer = await page.evaluate(
      async ([base, boardId]) =>
        (
          await fetch(`${base}/api/ops/sim:setFaults`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ boardId, slowLinkFactor: 4, refuseConnection: true }),
          })
        ).status,
      [url.replace(/\/$/, ''), SENSOR_ID] as const,
    );
    expect(answer).toBe(200);
    await expectText(sensorLine(page), 'slow link ×4');
    await expectText(sensorLine(page), 'refuses connections');
    await atEachSize(page, async (size) => {
      const box = await sensorLine(page).boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= size.height).toBe(true);
      await shoot(page, 'faults-panel-scenarios');
    });

    // Cleared from the panel: the line goes.
    const form2 = page.getByRole('form', { name: 'Faults of DB Sensor' });
    await page.getByTestId('faults-panel').getByLabel('Board').selectOption(SENSOR_ID);
    await form2.getByLabel('ATT error on').selectOption('');
    await form2.getByLabel('Refuse pairing').uncheck();
    await form2.getByLabel('Refuse connection').uncheck();
    await form2.getByLabel('Slow link ×').fill('1');
    await form2.getByRole('button', { name: 'Apply faults' }).click();
    await sensorLine(page).waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });
});
