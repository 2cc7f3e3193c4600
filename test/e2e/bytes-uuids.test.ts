// Bytes and UUIDs as engineers write them (docs/decisions.md), in the scenario editor and
// the GATT explorer: hex typed with 0x is previewed as its bytes and dry-run as those bytes, the
// same text as base64 is refused in words, and UUIDs pasted undashed or in braces are taken and
// shown dashed. Each flow runs once; its screenshots are kept under test-results/ at both window
// sizes (1024×640 and 1280×800, atEachSize).
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, useBench, shoot, createProduct } from './fixture';

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';
/** The provisioning service a blank board advertises. */
const BLANK = '8f1d0000-6b4e-4c5a-9d3e-2a7c5b1e0f00';

describe('bytes and UUIDs', () => {
  const bench = useBench();

  it('takes hex with 0x and undashed UUIDs in the scenario editor, and dry-runs those bytes', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, 'Bytes lamp');

    await page.getByRole('button', { name: 'Scenarios', exact: true }).click();
    const panel = page.getByTestId('run-panel');
    const boardSelect = panel.getByTestId('run-board');
    const sensor = boardSelect.locator('option', { hasText: 'DB Sensor' });
    await sensor.waitFor({ state: 'attached' });
    await boardSelect.selectOption((await sensor.getAttribute('value')) ?? '');

    const editor = page.getByTestId('scenario-editor');
    const at = (path: string) => editor.locator(`[data-path="${path}"]`);
    await editor.getByRole('button', { name: '+ Add scenario' }).click();
    await editor.getByRole('button', { name: '+ GATT_WRITE' }).click();

    // UUIDs pasted as the scan list and nRF Connect give them: undashed, upper case, braces.
    await at('scenarios[0].actions[0].serviceUuid').fill(SENSOR.replace(/-/g, ''));
    expect(await at('scenarios[0].actions[0].serviceUuid').inputValue()).toBe(SENSOR);
    await at('scenarios[0].actions[0].characteristicUuid').fill(`{${LED.toUpperCase()}}`);
    expect(await at('scenarios[0].actions[0].characteristicUuid').inputValue()).toBe(LED);

    // 0x01 typed as hex: one byte, 01, stored as the base64 the platform wants.
    const data = at('scenarios[0].actions[0].data');
    await data.fill('0x01');
    const field = editor.locator('.bytes-input', {
      has: page.locator('[data-path="scenarios[0].actions[0].data"]'),
    });
    await expectText(field.getByTestId('bytes-hex'), '01');
    await expectText(field.getByTestId('bytes-count'), '1 byte');
    await expectText(field.getByTestId('bytes-preview'), 'AQ==');
    await expectText(editor.getByTestId('validation-summary'), 'valid');
    await atEachSize(page, () => shoot(page, 'bytes-hex-0x01'));

    // The same text as base64 is refused, saying why, and Save is blocked.
    const format = field.getByLabel('Format of Data');
    await format.selectOption({ label: 'Base64' });
    // Switching the format rewrote the same byte in base64.
    expect(await data.inputValue()).toBe('AQ==');
    await data.fill('0x01');
    await data.blur();
    const refusal = field.locator('.field-error', { hasText: 'looks like hex, not base64' });
    await refusal.waitFor();
    await expectText(refusal, 'choose Hex as the format');
    expect(await field.getByTestId('bytes-preview').count()).toBe(0);
    await expectText(editor.getByTestId('validation-summary'), '1 problem');
    await atEachSize(page, () => shoot(page, 'bytes-base64-refused'));

    // Back to hex: the text that is not base64 is read as hex again.
    await format.selectOption({ label: 'Hex' });
    await refusal.waitFor({ state: 'detached' });
    await expectText(field.getByTestId('bytes-hex'), '01');

    // Read the LED back after the write, with a 16-bit-free UUID typed undashed.
    await editor.getByRole('button', { name: '+ GATT_READ' }).click();
    await at('scenarios[0].actions[1].serviceUuid').fill(SENSOR.replace(/-/g, '').toUpperCase());
    await at('scenarios[0].actions[1].characteristicUuid').fill(LED.replace(/-/g, ''));
    expect(await at('scenarios[0].actions[1].serviceUuid').inputValue()).toBe(SENSOR);
    await expectText(editor.getByTestId('validation-summary'), 'valid');

    // autoClose, so the one connection ends once the scenario has run.
    await at('autoClose').check();
    await panel.getByLabel('Connections').fill('1');
    await panel.getByRole('button', { name: 'Start dry run' }).click();
    const view = page.getByTestId('run-view');
    await expectText(view.getByTestId('run-state'), 'finished (connections done)');
    await expectText(view.getByTestId('run-results'), '1 · 0 failed');
    const lane = view.getByTestId('timeline-lane-0');
    const detail = view.getByTestId('timeline-detail');

    // The write's block shows the bytes written; the read gets the byte back from the board.
    await lane.locator('[data-testid="timeline-block"][data-type="GATT_WRITE"]').first().click();
    await expectText(detail, 'GATT_WRITE');
    await expectText(detail.locator('dd', { hasText: /^01$/ }), '01');
    await expectText(detail, 'AQ==');
    await lane.locator('[data-testid="timeline-block"][data-type="GATT_READ"]').first().click();
    await expectText(detail, 'GATT_READ');
    await expectText(detail.locator('dd', { hasText: /^01$/ }), '01');
    const result = view.getByTestId('result-event').first();
    await expectText(result, 'SUCCESS');
    // The result row shows the byte written and the byte read back.
    const actions = result.locator('.tl-action-results li');
    await expectText(actions.nth(0), 'GATT_WRITE');
    await expectText(actions.nth(0), '01');
    await expectText(actions.nth(0), 'AQ==');
    await expectText(actions.nth(1), 'GATT_READ');
    await expectText(actions.nth(1), '01');
    await atEachSize(page, () => shoot(page, 'bytes-dry-run', true));
    expect(pageErrors).toEqual([]);
  });

  it('shows GATT UUIDs dashed, previews a write, and filters the scan by an undashed UUID', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const scan = page.getByTestId('ble-scan');
    const sensor = scan.locator('[data-testid="scan-row"][data-name="DB Sensor"]');
    await sensor.waitFor();
    await expectText(sensor, BLANK);

    // The filter takes a service UUID undashed or in braces, and shows it dashed once left.
    const filter = scan.getByLabel('Service UUID');
    await filter.fill(BLANK.replace(/-/g, ''));
    await sensor.waitFor();
    await filter.blur();
    expect(await filter.inputValue()).toBe(BLANK);
    await filter.fill(`{${SENSOR.toUpperCase()}}`);
    await sensor.waitFor({ state: 'detached' });
    await filter.fill('a3c8000');
    await filter.blur();
    await scan.locator('.field-error', { hasText: 'is not a UUID' }).waitFor();
    await filter.fill('');

    await sensor.getByRole('button', { name: 'Connect DB Sensor' }).click();
    const explorer = page.getByTestId('gatt-explorer');
    await expectText(explorer.getByTestId('gatt-connection-state'), 'connected');
    await explorer.getByRole('region', { name: `Service ${SENSOR}` }).waitFor();
    const led = explorer.locator('[data-testid="characteristic"]', { hasText: LED });
    await led.getByLabel('Format of Value for').selectOption({ label: 'UTF-8' });
    await led.getByLabel(`Value for ${LED}`, { exact: true }).fill('A');
    await expectText(led.getByTestId('bytes-hex'), '41');
    await expectText(led.getByTestId('bytes-count'), '1 byte');
    await led.getByRole('button', { name: 'Write' }).click();
    await expectText(explorer.getByRole('table', { name: 'GATT log entries' }), '41');
    await led.getByRole('button', { name: `Read ${LED}` }).click();
    await expectText(led.getByTestId('read-value'), '41');
    await atEachSize(page, () => shoot(page, 'bytes-gatt-explorer'));
    expect(pageErrors).toEqual([]);
  });
});
