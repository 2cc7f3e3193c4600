// Validation that reads like a person (docs/decisions.md): a fresh form shows no red; a field
// left empty says what it needs in words; Save with problems takes the user to the first; RSSI,
// SLEEP and exponent forms are refused with their range, never rounded. Each flow runs once;
// what must be in the window, and the pictures, are looked at in both window sizes.
// Screenshots of each step are kept under test-results/.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, shoot, useBench } from './fixture';

const bench = useBench();
/** An element as the page sees it, enough to ask whether it has the focus. */
interface Focusable {
  ownerDocument: { activeElement: unknown };
}

/** Nothing the user sees names a JSON path or carries zod's own wording. */
async function expectPlainWords(page: Page): Promise<void> {
  const shown = await page.locator('.field-error, .error-notice, .problems').allInnerTexts();
  for (const text of shown) {
    expect(text).not.toMatch(
      /\w\[\d+\]|\.\w+Uuid|sleepMillis|Too big|Invalid input|expected \w+ to/,
    );
  }
}

describe('validation', () => {
  it('a fresh form shows no red; leaving an empty required field says so in words; create focuses it', async () => {
    const { page, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    // The console with no product chosen: the product an earlier step chose would open its
    // scenario set, and that draft's problems, with it.
    await page.goto(`${url}#/device-service`);
    const name = page.getByLabel('New product name');
    await name.waitFor();
    expect(await page.locator('.field-error').count()).toBe(0);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);

    await name.focus();
    await name.blur();
    await expectText(page.locator('.field-error'), 'New product name is required');
    await atEachSize(page, () => shoot(page, 'validation-product-name-left-empty'));

    // Create with the problem: focus goes back to the field.
    await page.getByRole('button', { name: 'Create product' }).focus();
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.locator('[aria-invalid="true"]:focus').waitFor();
    expect(await name.evaluate((el: Focusable) => el === el.ownerDocument.activeElement)).toBe(
      true,
    );

    // Typed, the problem goes; created, the form is as fresh as it was.
    await name.fill('Lamp');
    expect(await page.locator('.field-error').count()).toBe(0);
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByTestId('product-row').filter({ hasText: 'Lamp' }).waitFor();
    expect(await page.locator('.field-error').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('the scenario editor waits for a field to be left, and Save with problems focuses the first', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'Device service' }).click();
    await page.getByTestId('product-row').filter({ hasText: 'Lamp' }).click();
    const editor = page.getByTestId('scenario-editor');
    await editor.getByRole('button', { name: '+ Add scenario' }).click();
    await editor.getByRole('button', { name: '+ GATT_READ' }).click();
    await editor.getByRole('button', { name: '+ SLEEP' }).click();
    const at = (path: string) => editor.locator(`[data-path="${path}"]`);

    // New, empty UUID inputs: not red before the user has been there.
    await expectText(editor.getByTestId('validation-summary'), 'problem');
    expect(await editor.locator('.field-error').count()).toBe(0);
    await atEachSize(page, () => shoot(page, 'validation-scenario-fresh'));

    // SLEEP past one hour, and an exponent: refused with the rule, once left.
    const sleep = at('scenarios[0].actions[1].sleepMillis');
    await sleep.fill('86400000000');
    expect(await editor.locator('.field-error').count()).toBe(0);
    await sleep.blur();
    await expectText(
      editor.locator('.field-error', { hasText: 'Sleep time' }),
      'Sleep time must be between 0 and 3600000 milliseconds',
    );
    await sleep.fill('1e+23');
    await expectText(
      editor.locator('.field-error', { hasText: 'Sleep time' }),
      'Sleep time must be a whole number written in digits, without an exponent',
    );
    const interval = at('suppressionInterval');
    await interval.fill('9007199254740993');
    await interval.blur();
    await expectText(
      editor.locator('.field-error', { hasText: 'Suppression interval' }),
      'Suppression interval must be a whole number between −9007199254740991 and 9007199254740991',
    );
    expect(await interval.inputValue()).toBe('9007199254740993');
    await atEachSize(page, () => shoot(page, 'validation-scenario-bounds'));

    // Save with problems: every problem shows, the first invalid input has the focus.
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('[aria-invalid="true"]:focus').waitFor();
    expect(await interval.evaluate((el: Focusable) => el === el.ownerDocument.activeElement)).toBe(
      true,
    );
    await expectText(
      editor.locator('.field-error', { hasText: 'Service UUID' }).first(),
      'Service UUID must be a 128-bit UUID',
    );
    await expectPlainWords(page);
    // …and says how many and where, in words.
    const notice = editor.getByTestId('save-refused');
    await expectText(notice, 'Not saved: ');
    expect(await notice.innerText()).toMatch(/^Not saved: \d+ problems, at .*Suppression interval/);
    await atEachSize(page, () => shoot(page, 'validation-scenario-save-with-problems'));
    expect(await editor.getByTestId('scenario-revision').innerText()).toContain(
      'No scenario set yet',
    );
    expect(pageErrors).toEqual([]);
  });

  it('forms say why: no bytes, JSON in a fixed-width font, a cleared form with no twin, a greyed button’s reason, the dongles that work', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'Device service' }).click();
    await page.getByTestId('product-row').filter({ hasText: 'Lamp' }).click();
    const editor = page.getByTestId('scenario-editor');
    // An empty hex value says it has no bytes, not that it is not base64.
    await editor.getByRole('button', { name: '+ GATT_WRITE' }).click();
    const data = editor.locator('[data-path$=".data"]').last();
    await data.fill('');
    await data.blur();
    const dataError = editor.locator('.field-error', { hasText: 'Data' }).last();
    await expectText(dataError, 'has no bytes');
    expect(await dataError.innerText()).not.toContain('base64');
    // The JSON view is in a fixed-width font: narrow and wide letters take the same room.
    await editor.getByRole('tab', { name: 'JSON' }).click();
    const json = editor.getByTestId('scenario-json');
    const [narrow, wide] = (await json.evaluate((el: { ownerDocument: unknown }) => {
      const doc = el.ownerDocument as {
        defaultView: { getComputedStyle: (e: unknown) => { font: string } };
        createElement: (t: string) => {
          getContext: (c: string) => {
            font: string;
            measureText: (t: string) => { width: number };
          };
        };
      };
      const ctx = doc.createElement('canvas').getContext('2d');
      ctx.font = doc.defaultView.getComputedStyle(el).font;
      return [ctx.measureText('iiiiiiiiii').width, ctx.measureText('MMMMMMMMMM').width];
    })) as [number, number];
    expect(narrow).toBeCloseTo(wide, 0);
    await editor.getByRole('tab', { name: 'Form' }).click();

    // An embedded app: the form clears after Add, and the same app again is refused.
    await page.getByRole('button', { name: 'Embedded apps' }).click();
    const form = page.getByRole('form', { name: 'Add embedded app' });
    const description = form.getByLabel('Description (app name)');
    await description.fill('Stamp card');
    await form.getByRole('button', { name: 'Add app' }).click();
    const rows = page.getByTestId('embed-app-row').filter({ hasText: 'Stamp card' });
    await rows.first().waitFor();
    await expect.poll(() => description.inputValue()).toBe('');
    await expectText(form, 'Optional');
    await description.fill('Stamp card');
    await form.getByRole('button', { name: 'Add app' }).click();
    await expectText(form.locator('.field-error'), 'is already app');
    expect(await rows.count()).toBe(1);
    await atEachSize(page, () => shoot(page, 'forms-embed-twin'));

    // A greyed-out button says what it waits for.
    await page.getByRole('button', { name: 'Service messages' }).click();
    const issue = page.getByRole('button', { name: 'Issue notification token' });
    expect(await issue.isDisabled()).toBe(true);
    const why = page.getByTestId('sm-issue-why');
    await expectText(why, 'Needs a user access token');
    expect(await issue.getAttribute('aria-describedby')).toBe('sm-issue-why');
    await atEachSize(page, () => shoot(page, 'forms-disabled-why'));

    // The adapter picker names the dongles that work and where the README says more.
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const help = page.getByTestId('adapter-help');
    await expectText(help, 'nRF52840');
    await atEachSize(page, async (size) => {
      await help.scrollIntoViewIfNeeded();
      const box = (await help.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      await shoot(page, 'forms-adapter-help');
    });
    // …and its link opens that section of the README, in view.
    await help.getByRole('link', { name: "the README's “Adapters and dongles” section" }).click();
    const guide = page.getByRole('dialog', { name: 'README: Adapters and dongles' });
    const section = guide.getByTestId('readme-section');
    await expectText(section, 'Flashing Zephyr');
    await expectText(section, 'west build -b nrf52840dongle');
    await atEachSize(page, async (size) => {
      const shown = (await guide.boundingBox())!;
      expect(shown.y).toBeGreaterThanOrEqual(0);
      expect(shown.y + shown.height).toBeLessThanOrEqual(size.height);
      expect(shown.x + shown.width).toBeLessThanOrEqual(size.width);
      await shoot(page, 'forms-adapter-readme');
    });
    await guide.getByRole('button', { name: 'Close' }).click();
    await guide.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('the scan filter refuses RSSI 20 with the range it takes, once left', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const rssi = page.getByLabel('Minimum RSSI (dBm)');
    await rssi.fill('20');
    expect(await page.locator('.field-error').count()).toBe(0);
    await rssi.blur();
    await expectText(page.locator('.field-error'), 'Minimum RSSI must be between −127 and 0 dBm');
    await atEachSize(page, () => shoot(page, 'validation-scan-rssi-refused'));
    await rssi.fill('-70');
    await page.locator('.field-error').waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('the scan filter’s service UUID says it is not a UUID only once left', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const scan = page.getByTestId('ble-scan');
    const filter = scan.getByLabel('Service UUID');
    // Half typed: no red while the engineer is still typing.
    await filter.fill('a3c8000');
    expect(await scan.locator('.field-error').count()).toBe(0);
    await filter.blur();
    await expectText(scan.locator('.field-error'), 'is not a UUID');
    await atEachSize(page, () => shoot(page, 'validation-scan-uuid-refused'));
    await filter.fill('');
    await scan.locator('.field-error').waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });
});
