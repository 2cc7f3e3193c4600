// The device service console end to end: a trial product's life, its scenario set edited with
// a mistake, fixed, saved twice, and the product deleted; import, export and deleting a set;
// and the platform's 403 at product 11.
import { describe, expect, it } from 'vitest';
import { PRODUCT_NAME_MAX } from '../../src/core/platform/things/schema';
import { expectText, useBench, downloadedBytes, createProduct } from './fixture';

const bench = useBench();

describe('device service console', () => {
  it('creates a product, saves its scenario set as revisions 1 and 2, and deletes it', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    await page.getByTestId('products-empty').waitFor();

    const row = await createProduct(page, 'Thermostat rev B');
    const productId = await row.getAttribute('data-product-id');
    expect(productId).toMatch(/^\d+$/);
    await expectText(page.getByTestId('product-count'), '1 of 10');

    // Ids are copyable.
    await bench().context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await row.getByRole('button', { name: 'Copy product ID of Thermostat rev B' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(productId);

    // The new product is selected: its editor says it has no scenario set yet (a 404).
    const editor = page.getByTestId('scenario-editor');
    await expectText(editor.getByTestId('scenario-revision'), 'No scenario set yet');

    // A scenario writing bytes on connect, with a mistake in the data.
    await editor.getByRole('button', { name: '+ Add scenario' }).click();
    await editor.getByRole('button', { name: '+ GATT_WRITE' }).click();
    const at = (path: string) => editor.locator(`[data-path="${path}"]`);
    await at('scenarios[0].actions[0].serviceUuid').fill('e625601e-9e55-4597-a598-76018a0d293d');
    await at('scenarios[0].actions[0].characteristicUuid').fill(
      '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
    );
    await editor.getByLabel('Format of Data').selectOption({ label: 'Base64' });
    await at('scenarios[0].actions[0].data').fill('not base64!');
    await at('scenarios[0].actions[0].data').blur();

    const dataError = editor.locator('.field-error', {
      hasText: 'Data "!" is not a base64 character',
    });
    await dataError.waitFor();
    await expectText(editor.getByTestId('validation-summary'), '1 problem');
    // Save with the problem saves nothing and takes the user to the field.
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('[data-path="scenarios[0].actions[0].data"]:focus').waitFor();
    await expectText(editor.getByTestId('scenario-revision'), 'No scenario set yet');

    // The JSON view shows the same draft and lists the problem by its path.
    await editor.getByRole('tab', { name: 'JSON' }).click();
    const json = editor.getByTestId('scenario-json');
    expect(JSON.parse(await json.inputValue())).toMatchObject({
      scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions: [{ data: 'not base64!' }] }],
    });
    await expectText(
      editor.getByTestId('json-problems'),
      'Data (scenario 1, action 1) must be base64',
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
    await page.getByRole('button', { name: 'Device service' }).click();
    await page.getByTestId('product-row').first().waitFor();
    await row.getByRole('button', { name: 'Scenario set' }).click();
    await expectText(editor.getByTestId('scenario-revision'), 'Revision 2');
    // The stored base64 is shown as the hex engineers read.
    expect(await at('scenarios[0].actions[0].data').inputValue()).toBe('01 02 03');

    // Delete the product in the app's own dialog: Escape backs out, the button confirms.
    await page.getByRole('button', { name: 'Delete Thermostat rev B' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete trial product?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await row.waitFor();
    await page.getByRole('button', { name: 'Delete Thermostat rev B' }).click();
    await dialog.getByRole('button', { name: 'Delete product' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });
    await page.getByTestId('products-empty').waitFor();

    expect(pageErrors).toEqual([]);
  });

  it('imports and exports the draft as a JSON file, and deletes a saved set', async () => {
    const { page, pageErrors } = bench();
    const row = await createProduct(page, 'Import target');
    const productId = await row.getAttribute('data-product-id');
    const editor = page.getByTestId('scenario-editor');
    await expectText(editor.getByTestId('scenario-revision'), 'No scenario set yet');

    // A set as the API returns it imports as a draft: the server's own keys are dropped.
    const fromApi = {
      productId: 'elsewhere',
      revision: 7,
      createdAt: 1,
      updatedAt: 2,
      autoClose: false,
      suppressionInterval: 0,
      scenarios: [
        { trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP', sleepMillis: 250 }] },
      ],
    };
    await editor.getByTestId('import-file').setInputFiles({
      name: 'from-api.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(fromApi)),
    });
    await expectText(editor.getByTestId('editor-notice'), 'Imported from-api.json');
    const at = (path: string) => editor.locator(`[data-path="${path}"]`);
    expect(await at('scenarios[0].actions[0].sleepMillis').inputValue()).toBe('250');

    // Export downloads exactly the draft.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      editor.getByRole('button', { name: 'Export' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`scenario-set-${productId}.json`);
    const exported = JSON.parse((await downloadedBytes(download)).toString('utf8')) as unknown;
    expect(exported).toEqual({
      autoClose: false,
      suppressionInterval: 0,
      scenarios: fromApi.scenarios,
    });

    // A file that isn't JSON lands in the JSON view with the syntax error listed.
    await editor.getByTestId('import-file').setInputFiles({
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{ "autoClose": tru'),
    });
    await expectText(editor.getByTestId('json-problems'), 'The JSON cannot be read:');
    expect(await editor.getByTestId('scenario-json').inputValue()).toBe('{ "autoClose": tru');
    await editor.getByRole('button', { name: 'Discard changes' }).click();
    await expectText(editor.getByTestId('validation-summary'), 'valid');

    // Save the imported set again, then delete it from the platform.
    await editor.getByTestId('import-file').setInputFiles({
      name: 'from-api.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(fromApi)),
    });
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expectText(editor.getByTestId('scenario-revision'), 'Revision 1');
    await editor.getByRole('button', { name: 'Delete set…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete scenario set?' });
    await dialog.getByRole('button', { name: 'Delete scenario set' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(editor.getByTestId('scenario-revision'), 'No scenario set yet');
    await expectText(editor.getByTestId('editor-notice'), 'Scenario set deleted');

    // Cleared for the next test, which fills the channel to its limit.
    await row.getByRole('button', { name: 'Delete Import target' }).click();
    await page
      .getByRole('dialog', { name: 'Delete trial product?' })
      .getByRole('button', { name: 'Delete product' })
      .click();
    await page.getByTestId('products-empty').waitFor();

    expect(pageErrors).toEqual([]);
  });

  it('shows the platform message, status and request id when the 11th product is refused', async () => {
    const { page, pageErrors } = bench();
    const name = page.getByLabel('New product name');
    // The box takes what the schema takes, no more (docs/decisions.md, "Hardening").
    expect(await name.getAttribute('maxlength')).toBe(String(PRODUCT_NAME_MAX));
    for (let i = 1; i <= 10; i++) await createProduct(page, `Prototype ${i}`);
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
    await page.locator('.field-error', { hasText: 'New product name is required' }).waitFor();

    expect(pageErrors).toEqual([]);
  });
});
