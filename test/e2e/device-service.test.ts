// The device service console end to end: a trial product's life, its scenario set edited with
// a mistake, fixed, saved twice, and the product deleted; and the platform's 403 at product 11.
import { describe, expect, it } from 'vitest';
import { expectText, useBench } from './fixture';

const bench = useBench();

describe('device service console', () => {
  it('creates a product, saves its scenario set as revisions 1 and 2, and deletes it', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    await page.getByTestId('products-empty').waitFor();

    await page.getByLabel('New product name').fill('Thermostat rev B');
    await page.getByRole('button', { name: 'Create product' }).click();
    const row = page.getByTestId('product-row').filter({ hasText: 'Thermostat rev B' });
    await row.waitFor();
    const productId = await row.getAttribute('data-product-id');
    expect(productId).toMatch(/^\d+$/);
    await expectText(page.getByTestId('product-count'), '1 of 10');

    // The new product is selected: its editor says it has no scenario set yet (a 404).
    const editor = page.getByTestId('scenario-editor');
    await expectText(editor.getByTestId('scenario-revision'), 'No scenario set yet');

    // A scenario writing bytes on connect, with a mistake in the data.
    await editor.getByRole('button', { name: '+ Add scenario' }).click();
    await editor.getByRole('button', { name: '+ GATT_WRITE' }).click();
    const at = (path: string) => editor.locator(`[data-path="${path}"]`);
    await at('scenarios[0].actions[0].serviceUuid').fill('c4a0e5f6-5b2d-4f4e-8a3c-1d7e9b2f6a01');
    await at('scenarios[0].actions[0].characteristicUuid').fill(
      'c4a0e5f6-5b2d-4f4e-8a3c-1d7e9b2f6a02',
    );
    await at('scenarios[0].actions[0].data').fill('not base64!');

    const dataError = editor.locator('.field-error', {
      hasText: 'scenarios[0].actions[0].data: must be non-empty base64',
    });
    await dataError.waitFor();
    await expectText(editor.getByTestId('validation-summary'), '1 problem');
    expect(await editor.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);

    // The JSON view shows the same draft and lists the problem by its path.
    await editor.getByRole('tab', { name: 'JSON' }).click();
    const json = editor.getByTestId('scenario-json');
    expect(JSON.parse(await json.inputValue())).toMatchObject({
      scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions: [{ data: 'not base64!' }] }],
    });
    await expectText(
      editor.getByTestId('json-problems'),
      'scenarios[0].actions[0].data must be non-empty base64',
    );

    // Fix it in the form and save: revision 1.
    await editor.getByRole('tab', { name: 'Form' }).click();
    await at('scenarios[0].actions[0].data').fill('AQID');
    await dataError.waitFor({ state: 'detached' });
    await expectText(editor.getByTestId('validation-summary'), 'valid');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expectText(editor.getByTestId('scenario-revision'), 'Revision 1');
    await expectText(editor.getByTestId('editor-notice'), 'Saved revision 1');

    // Change it through the JSON view, see the form follow, and save: revision 2.
    await editor.getByRole('tab', { name: 'JSON' }).click();
    const draft = JSON.parse(await json.inputValue()) as Record<string, unknown>;
    await json.fill(
      JSON.stringify({ ...draft, autoClose: true, suppressionInterval: 5000 }, null, 2),
    );
    await editor.getByRole('tab', { name: 'Form' }).click();
    expect(await at('suppressionInterval').inputValue()).toBe('5000');
    expect(await at('autoClose').isChecked()).toBe(true);
    await page.keyboard.press('Control+s');
    await expectText(editor.getByTestId('scenario-revision'), 'Revision 2');

    // Reloading the page loads the saved set from the platform.
    await page.reload();
    await page.getByTestId('product-row').first().waitFor();
    await row.getByRole('button', { name: 'Scenario set' }).click();
    await expectText(editor.getByTestId('scenario-revision'), 'Revision 2');
    expect(await at('scenarios[0].actions[0].data').inputValue()).toBe('AQID');

    // Delete the product, confirming in the app's own dialog.
    await page.getByRole('button', { name: 'Delete Thermostat rev B' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete trial product?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete product' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });
    await page.getByTestId('products-empty').waitFor();

    expect(pageErrors).toEqual([]);
  });

  it('shows the platform message, status and request id when the 11th product is refused', async () => {
    const { page, pageErrors } = bench();
    const name = page.getByLabel('New product name');
    for (let i = 1; i <= 10; i++) {
      await name.fill(`Prototype ${i}`);
      await page.getByRole('button', { name: 'Create product' }).click();
      await page
        .getByTestId('product-row')
        .filter({ hasText: `Prototype ${i}` })
        .waitFor();
    }
    await expectText(page.getByTestId('product-count'), '10 of 10');

    await name.fill('Prototype 11');
    await page.getByRole('button', { name: 'Create product' }).click();
    const error = page.getByTestId('create-product-error');
    await expectText(error, 'HTTP 403');
    await expectText(error, 'The maximum number of trial products (10) has been reached.');
    await expectText(error, 'request id');
    expect(await error.locator('.request-id code').innerText()).not.toBe('');
    expect(await page.getByTestId('product-row').count()).toBe(10);

    // An empty name is refused before it reaches the platform, at the field.
    await name.fill('');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.locator('.field-error', { hasText: 'must not be empty' }).waitFor();

    expect(pageErrors).toEqual([]);
  });
});
