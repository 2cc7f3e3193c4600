// Names, value formats, the advertisement inspector and the notification plot: the sensor
// board's advertisement taken apart (flags, name, services, Nordic's manufacturer data, TX power,
// raw bytes labelled), a characteristic renamed showing in the explorer and its log, the
// temperature read as °C through the format picker and remembered after a reload, and its
// notifications plotted with the shown value following the last one. Each flow runs once; what
// must be in view, and the pictures, are checked at both window sizes (atEachSize).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  expectText,
  FLOW_SIZE,
  useBench,
  shoot,
  createProduct,
  inView,
} from './fixture';

const bench = useBench();

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
/** The provisioning service a blank board advertises. */
const BLANK = '8f1d0000-6b4e-4c5a-9d3e-2a7c5b1e0f00';

async function openBench(page: Page) {
  await page
    .getByRole('navigation', { name: 'Areas' })
    .getByRole('button', { name: 'BLE bench', exact: true })
    .click();
  const scan = page.getByTestId('ble-scan');
  const row = scan.locator('[data-testid="scan-row"][data-name="DB Sensor"]');
  await row.waitFor();
  return { scan, row };
}

async function connectSensor(page: Page) {
  const { row } = await openBench(page);
  await row.getByRole('button', { name: 'Connect DB Sensor' }).click();
  const explorer = page.getByTestId('gatt-explorer');
  await expectText(explorer.getByTestId('gatt-connection-state'), 'connected');
  await explorer.getByRole('region', { name: `Service ${SENSOR}` }).waitFor();
  const temperature = explorer.locator(
    `[data-testid="characteristic"][data-uuid="${TEMPERATURE.replace(/-/g, '')}"]`,
  );
  return { explorer, temperature };
}

describe('names and advertisements', () => {
  it('inspects the sensor board’s advertisement field by field', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const { row } = await openBench(page);
    await row.getByRole('button', { name: 'Inspect the advertisement of DB Sensor' }).click();
    const inspector = page.getByTestId('ad-inspector');
    // It opens in view, not below the fold (issue 45).
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, inspector.getByRole('heading').first())).toBe(true);
    });
    const structures = inspector.getByTestId('ad-structure');
    await expectText(structures.filter({ hasText: 'Flags' }), 'LE General Discoverable Mode');
    await expectText(structures.filter({ hasText: 'Flags' }), 'BR/EDR Not Supported');
    await expectText(inspector.getByTestId('ad-company'), 'Nordic Semiconductor ASA');
    await expectText(structures.filter({ hasText: 'Manufacturer specific data' }), '01 02');
    await expectText(structures.filter({ hasText: 'Complete local name' }), '“DB Sensor”');
    await expectText(structures.filter({ hasText: 'TX power level' }), '-4 dBm');
    const services = structures.filter({ hasText: '128-bit service UUIDs' });
    await expectText(services, BLANK);
    await expectText(services, 'Blank (to provision)');
    // The raw bytes begin with the flags structure, labelled as such in its own row.
    await expectText(inspector.getByTestId('ad-raw').first(), '02 01 06');
    await expectText(structures.filter({ hasText: 'Flags' }), '02 01 06');
    await atEachSize(page, async () => {
      await row.scrollIntoViewIfNeeded();
      await shoot(page, 'names-adv-inspector');
    });
    await inspector.getByRole('button', { name: 'Close' }).click();
    await inspector.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('renames a characteristic, reads the temperature in °C, remembers both after a reload, and plots its notifications', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    let { explorer, temperature } = await connectSensor(page);
    // The board file's names, the service's and the characteristic's, beside their UUIDs.
    await expectText(
      explorer.getByRole('region', { name: `Service ${SENSOR}` }),
      'DeviceBench Sensor',
    );
    await expectText(temperature, 'Temperature');

    const name = 'Room temperature';
    await temperature.getByRole('button', { name: `Rename ${TEMPERATURE}` }).click();
    await temperature.getByLabel(`Name for ${TEMPERATURE}`).fill(name);
    await temperature.getByRole('button', { name: 'Save' }).click();
    await expectText(temperature.getByTestId('attribute-name'), name);

    // A busy station answers late: the scale and the unit are picked before the format's answer
    // is back, and none of the three changes is lost. Each request is held, the first the
    // longest: sent at once, they would reach the station newest first, the format last.
    const late = '**/api/ops/names:setFormat';
    const holds = [900, 600, 300];
    await page.route(late, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, holds.shift() ?? 0));
      await route.continue();
    });
    await temperature.getByLabel(`Format of ${TEMPERATURE}`).selectOption({ label: 'int16 LE' });
    await temperature.getByLabel(`Scale of ${TEMPERATURE}`).selectOption({ label: '÷ 100' });
    const unit = temperature.getByLabel(`Unit of ${TEMPERATURE}`);
    await unit.fill('°C');
    await unit.press('Enter');
    await page.unrouteAll({ behavior: 'wait' });
    await temperature.getByRole('button', { name: `Read ${TEMPERATURE}` }).click();
    const decoded = temperature.getByTestId('decoded-value');
    await expect.poll(() => decoded.innerText()).toMatch(/^-?\d+\.\d\d °C$/);

    // The log names the characteristic and reads its value in the same format.
    const log = explorer.getByRole('table', { name: 'GATT log entries' });
    const readEntry = log.getByTestId('gatt-log-entry').filter({ hasText: 'read' }).last();
    await expectText(readEntry, name);
    await expect.poll(() => readEntry.getByTestId('log-decoded').innerText()).toMatch(/°C/);
    // The format is named there, and its link leads to the explorer's picker to change it.
    await expectText(readEntry.getByTestId('log-format'), 'as int16 LE');
    await readEntry.getByRole('button', { name: `Change the format of ${TEMPERATURE}` }).click();
    await expect
      .poll(() =>
        temperature
          .getByLabel(`Format of ${TEMPERATURE}`)
          .evaluate((el) => el === el.ownerDocument.activeElement),
      )
      .toBe(true);
    await atEachSize(page, () => shoot(page, 'names-adv-renamed-celsius'));

    // After a reload: the name and the format are the product's (here the bench's), kept. The
    // link is let go first, as the app keeps it across a reload and the board then is silent.
    await explorer.getByRole('button', { name: 'Disconnect' }).click();
    await explorer.getByRole('button', { name: 'Dismiss' }).click();
    await explorer.waitFor({ state: 'detached' });
    await page.reload();
    ({ explorer, temperature } = await connectSensor(page));
    await expectText(temperature.getByTestId('attribute-name'), name);
    expect(await temperature.getByLabel(`Format of ${TEMPERATURE}`).inputValue()).toBe('int16le');
    await temperature.getByRole('button', { name: `Read ${TEMPERATURE}` }).click();
    await expect
      .poll(() => temperature.getByTestId('decoded-value').innerText())
      .toMatch(/^-?\d+\.\d\d °C$/);

    // Subscribed, the board notifies every second: the values are plotted as they come.
    await temperature.getByRole('button', { name: `Subscribe to ${TEMPERATURE}` }).click();
    const plot = temperature.getByTestId('notification-plot');
    await plot.waitFor();
    await expect
      .poll(async () => Number(await plot.getAttribute('data-points')), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    expect(await plot.locator('canvas').count()).toBeGreaterThan(0);
    // The value beside the format follows the notifications: it is the last one logged, a
    // temperature the board file lets drift between 18 and 28 °C.
    const lastNotified = explorer
      .getByTestId('gatt-log-entry')
      .filter({ hasText: 'notify' })
      .last()
      .getByTestId('log-decoded');
    await expect
      .poll(async () => [
        (await temperature.getByTestId('decoded-value').innerText()).trim(),
        (await lastNotified.innerText()).trim(),
      ])
      .toSatisfy(([shown, last]) => shown === last);
    const shownValue = temperature.getByTestId('decoded-value');
    const celsius = Number.parseFloat(await shownValue.innerText());
    expect(celsius).toBeGreaterThanOrEqual(18);
    expect(celsius).toBeLessThanOrEqual(28);
    await atEachSize(page, async () => {
      await plot.scrollIntoViewIfNeeded();
      const box = await shownValue.boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= page.viewportSize()!.height).toBe(true);
      await shoot(page, 'names-adv-plot');
    });
    await temperature.getByRole('button', { name: `Unsubscribe from ${TEMPERATURE}` }).click();
    await plot.waitFor({ state: 'detached' });

    // An empty name gives the board file's name back.
    await temperature.getByRole('button', { name: `Rename ${TEMPERATURE}` }).click();
    await temperature.getByLabel(`Name for ${TEMPERATURE}`).fill('');
    await temperature.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => temperature.getByTestId('attribute-name').innerText())
      .toMatch(/^Temperature\s/);
    await explorer.getByRole('button', { name: 'Disconnect' }).click();
    expect(pageErrors).toEqual([]);
  });

  it('offers the checked board’s services and characteristics, named, as the scenario editor’s UUID suggestions', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const product = 'Names lamp';
    await page
      .getByRole('navigation', { name: 'Areas' })
      .getByRole('button', { name: 'Device service', exact: true })
      .click();
    await createProduct(page, product);

    await page
      .getByRole('navigation', { name: 'Areas' })
      .getByRole('button', { name: 'Scenarios', exact: true })
      .click();
    const panel = page.getByTestId('run-panel');
    const productSelect = panel.locator('label', { hasText: 'Product' }).locator('select').first();
    const productOption = productSelect.locator('option', { hasText: product });
    await productSelect.selectOption((await productOption.getAttribute('value')) ?? '');
    const suggestions = page.locator('datalist option[data-testid="board-uuid-choice"]');
    expect(await suggestions.count()).toBe(0);
    const boardSelect = panel.getByTestId('run-board');
    const sensor = boardSelect.locator('option', { hasText: 'DB Sensor' });
    await sensor.waitFor({ state: 'attached' });
    await boardSelect.selectOption((await sensor.getAttribute('value')) ?? '');
    await panel.getByRole('button', { name: 'Check the set against this board' }).click();
    await expectText(panel.getByTestId('lint-status'), 'GATT table of DB Sensor');

    const temperature = suggestions.and(page.locator(`[value="${TEMPERATURE}"]`));
    await temperature.waitFor({ state: 'attached' });
    expect(await temperature.textContent()).toBe('Temperature (characteristic: read, notify)');
    const service = suggestions.and(page.locator(`[value="${SENSOR}"]`));
    expect(await service.textContent()).toBe('DeviceBench Sensor (service)');
    // Every service and characteristic of the board is offered, the provisioning service too.
    const all = await suggestions.allTextContents();
    expect(all).toHaveLength(11);
    expect(all).toContain('Provisioning (devicebench-v1) (service)');
    await atEachSize(page, () => shoot(page, 'names-adv-scenario-suggestions'));
    expect(pageErrors).toEqual([]);
  });
});
