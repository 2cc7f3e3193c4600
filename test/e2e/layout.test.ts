// The bench at the two window sizes an engineer uses (1024×640 and 1280×800): the start page and
// its workflow, the sidebar's order with Settings in reach, the main tables without sideways
// scroll, the GATT log's bytes in view, one-line audit rows, and a Japanese product name drawn
// with real glyphs. Each flow runs once, at the smaller size; each page is looked at in both.
// Screenshots of each page at each size are kept under test-results/.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, createProduct, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();

const JAPANESE_NAME = '温度センサー 試作2号';
const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** [scrollWidth, clientWidth]: a box scrolls sideways when the first exceeds the second. */
function widths(locator: Locator): Promise<[number, number]> {
  return locator.evaluate((el: { scrollWidth: number; clientWidth: number }) => [
    el.scrollWidth,
    el.clientWidth,
  ]);
}

async function expectNoSidewaysScroll(locator: Locator): Promise<void> {
  const [scroll, client] = await widths(locator);
  expect(scroll).toBeLessThanOrEqual(client);
}

async function expectInWindow(page: Page, locator: Locator): Promise<void> {
  const box = await locator.boundingBox();
  const size = page.viewportSize();
  expect(box).not.toBeNull();
  expect(box!.x + box!.width).toBeLessThanOrEqual(size!.width);
  expect(box!.y + box!.height).toBeLessThanOrEqual(size!.height);
}

describe('layout', () => {
  it('opens on the start page: the workflow in order, nothing done yet, a link into each step', async () => {
    const { page, pageErrors } = bench();
    expect(await nav(page, 'Start').getAttribute('aria-current')).toBe('page');
    const steps = page.getByTestId('workflow-step');
    await expectText(steps.nth(0), 'No trial product yet');
    expect(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-step')))).toEqual([
      'product',
      'provision',
      'dry-run',
      'upload',
    ]);
    await expectText(steps.nth(1), 'No board verified yet');
    await expectText(steps.nth(2), 'No dry run yet');
    await expectText(steps.nth(3), 'No scenario set saved yet');
    await atEachSize(page, async () => {
      await expectInWindow(page, steps.nth(3).getByRole('link'));
      await shoot(page, 'layout-start-empty');
    });

    const links: [string, string][] = [
      ['Open the device service console', 'Device service'],
      ['Open provisioning', 'Provisioning'],
      ['Open the scenario runner', 'Scenarios'],
      ['Open the scenario set editor', 'Device service'],
    ];
    for (const [link, heading] of links) {
      await nav(page, 'Start').click();
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      expect(await nav(page, heading).getAttribute('aria-current')).toBe('page');
    }
    expect(pageErrors).toEqual([]);
  });

  it('leads the sidebar with the bench, groups the API consoles below, and keeps Settings in reach', async () => {
    const { page, pageErrors } = bench();
    const sidebar = page.getByRole('navigation', { name: 'Areas' });
    expect(await sidebar.getByRole('heading').allInnerTexts()).toEqual(
      ['Bench', 'API consoles', 'App'].map((t) => expect.stringMatching(new RegExp(t, 'i'))),
    );
    const labels = await sidebar.getByRole('button').allInnerTexts();
    expect(labels.slice(0, 5)).toEqual([
      'Start',
      'BLE bench',
      'Provisioning',
      'Scenarios',
      'Audit log',
    ]);
    expect(labels.slice(5, 7)).toEqual(['Device service', 'Login & profile']);
    expect(labels.slice(-4)).toEqual(['Line', 'Emulator', 'Webhooks', 'Settings']);

    await atEachSize(page, async () => {
      // The whole sidebar shows without scrolling it, Settings included.
      await expectInWindow(page, nav(page, 'Settings'));
      await expectNoSidewaysScroll(page.locator('.sidebar'));
      const [scrollHeight, clientHeight] = await page
        .locator('.sidebar')
        .evaluate((el: { scrollHeight: number; clientHeight: number }) => [
          el.scrollHeight,
          el.clientHeight,
        ]);
      expect(scrollHeight).toBeLessThanOrEqual(clientHeight);
      await nav(page, 'Settings').click();
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await shoot(page, 'layout-settings');
      await nav(page, 'Start').click();
    });
    expect(pageErrors).toEqual([]);
  });

  it('draws a Japanese product name with its own glyphs, not boxes', async () => {
    const { page, pageErrors } = bench();
    await nav(page, 'Device service').click();
    const row = await createProduct(page, JAPANESE_NAME);
    // Drawn in the cell's own font, the name's Japanese characters against as many characters
    // that no font has (U+10FFFD, private use): missing glyphs are all the same box, so a name
    // drawn as boxes would measure the same.
    const [name, boxes] = await row
      .locator('td.name span')
      .first()
      .evaluate((cell: { ownerDocument: unknown }, text: string) => {
        interface Span {
          textContent: string;
          style: { font: string; position: string; whiteSpace: string };
          getBoundingClientRect(): { width: number };
          remove(): void;
        }
        const doc = cell.ownerDocument as {
          createElement(tag: 'span'): Span;
          body: { append(span: Span): void };
          defaultView: { getComputedStyle(el: unknown): { font: string } };
        };
        const font = doc.defaultView.getComputedStyle(cell).font;
        const measure = (content: string) => {
          const span = doc.createElement('span');
          span.textContent = content;
          span.style.font = font;
          span.style.position = 'absolute';
          span.style.whiteSpace = 'pre';
          doc.body.append(span);
          const width = span.getBoundingClientRect().width;
          span.remove();
          return width;
        };
        const japanese = [...text].filter((c) => c.codePointAt(0)! >= 0x3000);
        return [measure(japanese.join('')), measure('\u{10FFFD}'.repeat(japanese.length))];
      }, JAPANESE_NAME);
    expect(name).toBeGreaterThan(0);
    expect(Math.abs(name - boxes)).toBeGreaterThan(1);
    await atEachSize(page, async () => {
      await shoot(page, 'layout-japanese-name');
    });
    expect(pageErrors).toEqual([]);
  });

  it('fits the products, the scan list, the GATT log and the audit log without sideways scroll', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Device service').click();
    for (const name of ['Soil probe P2 with a rather long name', 'Thermostat rev B']) {
      await createProduct(page, name);
    }
    const products = page.getByTestId('products-table');
    await atEachSize(page, async () => {
      await expectNoSidewaysScroll(products.locator('..'));
      await expectNoSidewaysScroll(page.locator('main.content'));
      await shoot(page, 'layout-device-service');
    });

    // The scan list, and the GATT log of a read.
    await nav(page, 'BLE bench').click();
    await expectText(page.getByTestId('adapter-state'), 'Ready');
    const scan = page.getByTestId('ble-scan');
    const nrf = scan.locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]');
    await nrf.waitFor();
    await atEachSize(page, async () => {
      await expectNoSidewaysScroll(scan.locator('.table-scroll'));
      await expectNoSidewaysScroll(page.locator('main.content'));
    });
    await nrf.getByRole('button', { name: 'Connect DB nRF52 DK' }).click();
    const explorer = page.getByTestId('gatt-explorer');
    await expectText(explorer.getByTestId('gatt-connection-state'), 'connected');
    await explorer.getByRole('button', { name: 'Read 2a29' }).click();
    const log = explorer.getByRole('table', { name: 'GATT log entries' });
    await expectText(log, 'Nordic Semiconductor');
    const bytes = log.getByTestId('gatt-log-entry').last().locator('td').last().locator('code');
    await atEachSize(page, async (size) => {
      await expectNoSidewaysScroll(log.locator('..'));
      await expectNoSidewaysScroll(page.locator('main.content'));
      const box = (await bytes.boundingBox())!;
      const logBox = (await log.locator('..').boundingBox())!;
      expect(box.width).toBeGreaterThan(0);
      expect(box.x + box.width).toBeLessThanOrEqual(logBox.x + logBox.width);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      // The log stays beside the GATT table, in view with the lowest characteristic's Read.
      const status = explorer.getByRole('button', { name: 'Read 8f1d0006' });
      await status.scrollIntoViewIfNeeded();
      const entry = log.getByTestId('gatt-log-entry').last();
      await expectInWindow(page, status);
      await expectInWindow(page, entry);
      const [readBox, entryBox] = [(await status.boundingBox())!, (await entry.boundingBox())!];
      expect(entryBox.x).toBeGreaterThanOrEqual(readBox.x + readBox.width);
      await shoot(page, 'layout-ble-bench');
      // The scan list: name, address, RSSI and last seen each inside their own column.
      const row = scan.locator('[data-testid="scan-row"]').first();
      await row.scrollIntoViewIfNeeded();
      const cells = await row.locator('td').all();
      for (const [i, cell] of cells.entries()) {
        const [scroll, client] = await widths(cell);
        expect(scroll, `scan cell ${i} is wider than its column`).toBeLessThanOrEqual(client + 1);
      }
      await shoot(page, 'layout-scan-list');
    });
    await explorer.getByRole('button', { name: 'Disconnect' }).click();
    await explorer.getByRole('button', { name: 'Dismiss' }).click();
    await explorer.waitFor({ state: 'detached' });

    // Two audit records: one board verified, and a long failure detail kept to one line.
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Provisioning').click();
    const result = page.getByTestId('single-result').first();
    await page
      .getByTestId('prov-scan')
      .locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]')
      .getByRole('button', { name: 'Provision DB nRF52 DK' })
      .click();
    await result.waitFor({ timeout: 30_000 });
    await expectText(result, 'verified');
    await atEachSize(page, async () => {
      await expectNoSidewaysScroll(page.getByTestId('prov-scan').locator('.table-scroll'));
      await expectNoSidewaysScroll(page.locator('main.content'));
      await shoot(page, 'layout-provisioning');
    });

    await nav(page, 'Audit log').click();
    const row = page.getByTestId('audit-row').first();
    await row.waitFor();
    const table = page.getByTestId('audit-table');
    await atEachSize(page, async () => {
      await expectNoSidewaysScroll(table.locator('..'));
      await expectNoSidewaysScroll(page.locator('main.content'));
      // One line: the row is no taller than its state badge and the row's padding.
      const rowBox = (await row.boundingBox())!;
      const lineHeight = await row
        .locator('td')
        .first()
        .evaluate(
          (td: { ownerDocument: unknown }) =>
            (
              td.ownerDocument as {
                defaultView: { getComputedStyle(el: unknown): { lineHeight: string } };
              }
            ).defaultView.getComputedStyle(td).lineHeight,
        );
      expect(rowBox.height).toBeLessThan(parseFloat(lineHeight) * 2);
      await shoot(page, 'layout-audit-log');
    });
    // Details on demand: the full record beneath its row.
    await row.getByRole('button', { name: /^Details of / }).click();
    const details = page.getByTestId('audit-details');
    await expectText(details, 'Created');
    await expectText(details, 'UUIDs written');
    await details.getByRole('button', { name: /^HCI trace of provisioning-/ }).waitFor();
    await row.getByRole('button', { name: /^Details of / }).click();
    await details.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('reads each step back on the start page once the workflow has run', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    // A dry run of a one-read set on the simulated sensor board.
    await nav(page, 'Scenarios').click();
    const panel = page.getByTestId('run-panel');
    const boardSelect = panel.getByTestId('run-board');
    const sensor = boardSelect.locator('option', { hasText: 'DB Sensor' });
    await sensor.waitFor({ state: 'attached' });
    await boardSelect.selectOption((await sensor.getAttribute('value')) ?? '');
    const set = {
      autoClose: true,
      suppressionInterval: 300,
      scenarios: [
        {
          trigger: { type: 'IMMEDIATE' },
          actions: [{ type: 'GATT_READ', serviceUuid: SENSOR, characteristicUuid: LED }],
        },
      ],
    };
    const editor = page.getByTestId('scenario-editor');
    await editor.getByTestId('import-file').setInputFiles({
      name: 'read-led.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(set)),
    });
    await expectText(editor.getByTestId('validation-summary'), 'valid');
    await panel.getByLabel('Connections').fill('1');
    await panel.getByRole('button', { name: 'Start dry run' }).click();
    await expectText(page.getByTestId('run-view').getByTestId('run-state'), 'finished');
    await atEachSize(page, async () => {
      await expectNoSidewaysScroll(page.locator('main.content'));
      await shoot(page, 'layout-scenarios');
    });

    // Upload: the set saved to the platform for the first product.
    await nav(page, 'Device service').click();
    await page
      .getByTestId('product-row')
      .filter({ hasText: JAPANESE_NAME })
      .getByRole('button', { name: 'Scenario set' })
      .click();
    const setEditor = page.getByTestId('scenario-editor');
    await setEditor.getByRole('tab', { name: 'JSON' }).click();
    await setEditor.getByTestId('scenario-json').fill(JSON.stringify(set, null, 2));
    await setEditor.getByRole('tab', { name: 'Form' }).click();
    await setEditor.getByRole('button', { name: 'Save', exact: true }).click();
    await expectText(setEditor.getByTestId('scenario-revision'), 'Revision 1');
    // The saved revision's own dry run: Scenarios opens on the product chosen here.
    await nav(page, 'Scenarios').click();
    const savedSet = panel.getByRole('radio', { name: 'Saved set (revision 1)' });
    await savedSet.check();
    await boardSelect.selectOption((await sensor.getAttribute('value')) ?? '');
    // Started at once: the panel never swaps the draft in for a saved set it is still reading.
    await panel.getByRole('button', { name: 'Start dry run' }).click();
    await expectText(page.getByTestId('run-view').getByTestId('run-state'), 'finished');
    expect(await savedSet.isChecked()).toBe(true);
    await expectText(page.getByTestId('run-view'), `saved revision 1 · ${JAPANESE_NAME}`);

    await nav(page, 'Start').click();
    const state = (step: string) =>
      page.locator(`[data-testid="workflow-step"][data-step="${step}"]`);
    await expectText(state('product'), '3 trial products');
    await expectText(state('provision'), '1 board verified');
    await expectText(state('dry-run'), 'Saved set rev 1: SUCCESS');
    await expectText(state('dry-run'), 'on DB Sensor');
    await expectText(state('upload'), 'Scenario set saved rev 1');
    await expectText(state('upload'), JAPANESE_NAME);
    for (const step of ['product', 'provision', 'dry-run', 'upload'])
      expect(await state(step).getAttribute('class')).toContain('done');
    await atEachSize(page, async () => {
      await expectInWindow(page, state('upload').getByRole('link'));
      await shoot(page, 'layout-start-done');
    });
    expect(pageErrors).toEqual([]);
  });
});
