// The BLE bench end to end on the simulated bench the app starts with: scan, read and write a
// characteristic in the GATT explorer, provision a board for a new trial product, find it
// verified in the audit log and export the log as CSV; and a bad board file named by field.
import { describe, expect, it } from 'vitest';
import { expectText, useBench, downloadedBytes, createProduct } from './fixture';

const bench = useBench();

describe('BLE bench', () => {
  it('scans, explores a board, provisions it, and exports the verified record', async () => {
    const { page, pageErrors } = bench();

    // With no trial product yet, Provisioning sends the user to the device service console.
    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    await page.getByTestId('prov-no-products').waitFor();
    await page.getByRole('button', { name: 'Open the Device service console' }).click();
    await createProduct(page, 'Bench thermostat');

    // The simulated bench is on and its boards are heard.
    await page.getByRole('button', { name: 'BLE bench' }).click();
    await expectText(page.getByTestId('adapter-state'), 'Ready');
    await page.locator('[data-testid="adapter-row"][data-spec="sim"]').waitFor();
    const scan = page.getByTestId('ble-scan');
    const nrf = scan.locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]');
    await nrf.waitFor();
    await expectText(nrf, 'dBm');
    await page
      .getByTestId('sim-bench')
      .getByTestId('sim-board')
      .filter({ hasText: 'DB nRF52 DK' })
      .waitFor();

    // The name filter narrows the list to that board.
    await scan.getByLabel('Name contains').fill('nrf52');
    await expect.poll(() => scan.getByTestId('scan-row').count()).toBe(1);
    await scan.getByLabel('Name contains').fill('');

    // GATT explorer: read the manufacturer name, refuse a bad hex value at its field.
    await nrf.getByRole('button', { name: 'Connect DB nRF52 DK' }).click();
    const explorer = page.getByTestId('gatt-explorer');
    await expectText(explorer.getByTestId('gatt-connection-state'), 'connected');
    await explorer.getByRole('button', { name: 'Read 2a29' }).click();
    await expectText(
      explorer.locator('[data-testid="characteristic"][data-uuid="2a29"]'),
      'Nordic Semiconductor',
    );
    await expectText(explorer.getByRole('table', { name: 'GATT log entries' }), 'read');
    const writable = explorer
      .locator('[data-testid="characteristic"]')
      .filter({ has: page.getByRole('button', { name: 'Write' }) })
      .first();
    await writable.getByRole('textbox').fill('0g');
    await writable.getByRole('button', { name: 'Write' }).click();
    await writable.locator('.field-error', { hasText: '"g" is not a hex digit' }).waitFor();
    await explorer.getByRole('button', { name: 'Disconnect' }).click();
    await explorer.getByRole('button', { name: 'Dismiss' }).click();
    await explorer.waitFor({ state: 'detached' });

    // Provision the board with a prefixed sequence.
    await page.getByRole('button', { name: 'Provisioning' }).click();
    const plan = page.getByTestId('prov-plan');
    expect(await plan.getByLabel('Product').inputValue()).not.toBe('');
    await plan.getByLabel('Prefix').fill('TH-');
    await expectText(plan.getByTestId('psdi-preview'), 'TH-000001');
    const boards = page.getByTestId('prov-scan');
    await boards
      .locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]')
      .getByRole('button', { name: 'Provision DB nRF52 DK' })
      .click();
    const result = page.getByTestId('single-result').first();
    await result.waitFor({ timeout: 30_000 });
    await expectText(result, 'verified');
    await expectText(result, 'TH-000001');
    await expectText(plan.getByTestId('plan-state'), 'Plan saved');

    // The audit log has it verified; the CSV export carries it.
    await page.getByRole('button', { name: 'Audit log' }).click();
    const log = page.getByTestId('audit-log');
    await log.getByLabel('PSDI or board address').fill('TH-000001');
    await log.getByRole('button', { name: 'Search' }).click();
    const row = log.getByTestId('audit-row').filter({ hasText: 'TH-000001' });
    await row.waitFor();
    expect(await row.getAttribute('data-state')).toBe('verified');
    await expectText(row, 'Bench thermostat');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      log.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = (await downloadedBytes(download)).toString('utf8');
    const [header, ...rows] = csv.trim().split(/\r?\n/);
    expect(header?.split(',')).toEqual(expect.arrayContaining(['psdi', 'state', 'board_address']));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('TH-000001');
    expect(rows[0]).toContain('verified');
    await expectText(log.getByTestId('export-status'), 'Exported 1 record');

    expect(pageErrors).toEqual([]);
  });

  it('loads a tray of boards and provisions three of them in a batch', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, 'Tray product');

    await page.getByRole('button', { name: 'BLE bench' }).click();
    const sim = page.getByTestId('sim-bench');
    await sim.getByLabel('Built-in board file').selectOption('blank-tray.json');
    await sim.getByRole('button', { name: 'Load built-in' }).click();
    await sim.getByTestId('sim-board').filter({ hasText: 'DB Tray 20' }).waitFor();

    await page.getByRole('button', { name: 'Provisioning' }).click();
    const plan = page.getByTestId('prov-plan');
    const productSelect = plan.getByLabel('Product');
    await productSelect.selectOption({ label: 'Tray product' });
    await plan.getByLabel('Prefix').fill('TR-');
    const batch = page.getByTestId('prov-batch');
    await batch.getByLabel('Boards at once').fill('3');
    await batch.getByLabel('Name contains').fill('DB Tray');
    await batch.getByLabel('At most (boards)').fill('3');
    await batch.getByRole('button', { name: 'Start batch' }).click();

    const summary = batch.getByTestId('batch-summary');
    await expect
      .poll(() => summary.getByRole('status').innerText(), { timeout: 30_000 })
      .toContain('Finished: 3 boards done');
    await expectText(summary, '3 verified');
    expect(await summary.getByRole('progressbar', { name: 'Batch progress' }).count()).toBe(1);
    const rows = batch.getByTestId('batch-board');
    await expect
      .poll(async () =>
        (await rows.allInnerTexts()).map((t) => /verified/.test(t) && /TR-\d{6}/.test(t)),
      )
      .toEqual([true, true, true]);

    // The audit log, filtered to the product, has the three.
    await page.getByRole('button', { name: 'Audit log' }).click();
    const log = page.getByTestId('audit-log');
    await log.getByLabel('Product').selectOption({ label: 'Tray product' });
    await expectText(log.getByTestId('audit-count'), '1–3 of 3');
    // One page: nothing older or newer to walk to; the search field says how text matches.
    await expect.poll(() => log.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await expect.poll(() => log.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
    await expectText(log, 'at least 3 characters');

    expect(pageErrors).toEqual([]);
  });

  it('names the field a bad board file got wrong', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const sim = page.getByTestId('sim-bench');
    await sim.getByTestId('board-file').setInputFiles({
      name: 'bad-boards.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ boards: [{ name: 'Bad', address: 'nope' }] })),
    });
    const error = sim.getByTestId('board-file-error');
    await expectText(error, 'address');
    await expectText(error, 'must be a Bluetooth address');
    expect(pageErrors).toEqual([]);
  });

  it('says what to do when the hardware adapter is missing, and switches back', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const adapter = page.getByTestId('ble-adapter');
    await adapter.getByLabel('Add an adapter').fill('hci0');
    await adapter.getByRole('button', { name: 'Add', exact: true }).click();
    await adapter.locator('[data-testid="adapter-row"][data-spec="hci0"]').waitFor();
    await adapter.getByRole('button', { name: 'Remove adapter 1 (sim)' }).click();
    await adapter.locator('[data-testid="adapter-row"][data-spec="sim"]').waitFor({
      state: 'detached',
    });
    const state = adapter.getByTestId('adapter-state');
    await expect.poll(() => state.innerText(), { timeout: 20_000 }).not.toContain('Ready');
    expect(await adapter.locator('.ble-guidance').innerText()).not.toBe('');
    expect(await page.getByTestId('sim-bench').count()).toBe(0);

    await adapter.getByLabel('Add an adapter').fill('sim');
    await adapter.getByRole('button', { name: 'Add', exact: true }).click();
    await adapter.getByRole('button', { name: 'Remove adapter 1 (hci0)' }).click();
    await expectText(state, 'Ready');
    await page.getByTestId('ble-scan').getByTestId('scan-row').first().waitFor();
    expect(pageErrors).toEqual([]);
  });
});
