// Scenario sets end to end on the simulated bench: load a set that breaks a lint rule for the
// board, see the warning at its field, fix it, dry-run the draft on the board, and read the
// timeline, the result events, the emulator's deliveries and the exported run.
import { describe, expect, it } from 'vitest';
import { expectText, useBench, downloadedBytes, createProduct } from './fixture';

const bench = useBench();

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';

describe('Scenarios', () => {
  it('lints a set against the board, dry-runs it, and shows the timeline and result events', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, 'Scenario lamp');

    await page.getByRole('button', { name: 'Scenarios', exact: true }).click();
    const panel = page.getByTestId('run-panel');
    const boardSelect = panel.getByTestId('run-board');
    await boardSelect.locator('option', { hasText: 'DB Sensor' }).waitFor({ state: 'attached' });
    const sensorId = await boardSelect
      .locator('option', { hasText: 'DB Sensor' })
      .getAttribute('value');
    await boardSelect.selectOption(sensorId ?? '');

    // A set that writes the temperature, which the board only reads and notifies.
    const editor = page.getByTestId('scenario-editor');
    await editor.getByTestId('import-file').setInputFiles({
      name: 'blink.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({
          autoClose: true,
          suppressionInterval: 300,
          scenarios: [
            {
              trigger: { type: 'IMMEDIATE' },
              actions: [
                {
                  type: 'GATT_WRITE',
                  serviceUuid: SENSOR,
                  characteristicUuid: TEMPERATURE,
                  data: 'AQ==',
                },
                { type: 'SLEEP', sleepMillis: 50 },
                { type: 'GATT_READ', serviceUuid: SENSOR, characteristicUuid: LED },
              ],
            },
          ],
        }),
      ),
    });
    await expectText(editor.getByTestId('validation-summary'), 'valid');
    await panel.getByRole('button', { name: 'Check the set against this board' }).click();
    await expectText(panel.getByTestId('lint-status'), 'GATT table of DB Sensor');
    await expectText(editor.getByTestId('warning-summary'), '1 warning');
    const warning = editor.locator('.field-warning', {
      hasText: 'Characteristic UUID',
    });
    await expectText(warning, 'does not allow write');

    // Fix it: write the LED instead. The warning goes.
    await editor.locator('[data-path="scenarios[0].actions[0].characteristicUuid"]').fill(LED);
    await warning.waitFor({ state: 'detached' });
    await editor.getByTestId('warning-summary').waitFor({ state: 'detached' });

    // Dry-run the draft for two connections.
    await panel.getByLabel('Connections').fill('2');
    // Results stay in the app unless a destination is chosen: this run asks for the emulator's.
    await panel.getByLabel('Where result events go').selectOption('emulator');
    await panel.getByRole('button', { name: 'Start dry run' }).click();
    const view = page.getByTestId('run-view');
    await expectText(view.getByTestId('run-state'), 'finished (connections done)');
    await expectText(view.getByTestId('run-results'), '2 · 0 failed');

    // The timeline: one lane for the scenario, its three actions per connection, and the link.
    const lane = view.getByTestId('timeline-lane-0');
    await expect
      .poll(() => lane.locator('[data-testid="timeline-block"][data-kind="action"]').count())
      .toBe(6);
    // The link lane: two connections, each ended by autoClose, and the suppression wait between.
    const link = view.getByTestId('timeline-lane-link');
    // Polled: the page draws the run's last events in a batch after the run state changes.
    await expect.poll(() => link.locator('[data-kind="connection"]').count()).toBe(2);
    await expect
      .poll(() => link.locator('[data-kind="disconnected"][data-type="autoClose"]').count())
      .toBe(2);
    await expect
      .poll(() => link.locator('[data-kind="waiting"][data-type="suppressionInterval"]').count())
      .toBeGreaterThanOrEqual(1);
    await lane.locator('[data-testid="timeline-block"][data-type="GATT_READ"]').first().click();
    const detail = view.getByTestId('timeline-detail');
    await expectText(detail, 'GATT_READ');
    await expectText(detail, '01');
    await expectText(detail, 'AQ==');

    // The result events, and the emulator's log of their delivery.
    const results = view.getByTestId('result-event');
    expect(await results.count()).toBe(2);
    await expectText(results.first(), 'SUCCESS');
    await expectText(results.first(), 'draft-1');
    await expect.poll(() => view.getByTestId('run-delivery').count()).toBe(2);
    await expectText(view.getByTestId('run-deliveries'), 'no webhook URL');

    // Export the run as JSON: the results as the timeline shows them.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      view.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    const exported = JSON.parse((await downloadedBytes(download)).toString('utf8')) as {
      run: { id: number };
      results: { resultCode: string; actionResults: unknown[] }[];
    };
    expect(exported.results.map((r) => r.resultCode)).toEqual(['SUCCESS', 'SUCCESS']);
    expect(exported.results[0]?.actionResults).toEqual([
      { type: 'void' },
      { type: 'void' },
      { type: 'binary', data: 'AQ==' },
    ]);

    // The run is kept: it is in the audit log's list and opens again.
    const past = page.getByTestId('past-run').filter({ hasText: `#${exported.run.id}` });
    await expectText(past, 'finished');

    // The draft is not lost on another page: the Device service console's editor has it.
    await page.getByRole('button', { name: 'Device service' }).click();
    await page
      .getByTestId('product-row')
      .filter({ hasText: 'Scenario lamp' })
      .getByRole('button', { name: 'Scenario set' })
      .click();
    await expectText(editor.getByTestId('editor-notice'), 'Your unsaved changes are back');
    expect(
      await editor.locator('[data-path="scenarios[0].actions[0].characteristicUuid"]').inputValue(),
    ).toBe(LED);
    expect(pageErrors).toEqual([]);
  });
});
