// Settings end to end: a custom environment with secrets that are never shown back (only a
// masked hint), field errors at their inputs, switching environments, and deleting one.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectText, useBench } from './fixture';

const bench = useBench();

const TOKEN = 'tok-e2e-SECRET-value-Q7x9';
const SECRET = 'sec-e2e-channel-secret-k2m4';

/** Neither secret may appear anywhere: not in the markup, not in any field's value. */
async function expectNoSecrets(page: Page): Promise<void> {
  const html = await page.content();
  // A string, because this file is type-checked for Node, without the DOM's types.
  const values = (await page.evaluate(
    "Array.from(document.querySelectorAll('input, textarea, select'), (el) => el.value)",
  )) as string[];
  for (const secret of [TOKEN, SECRET]) {
    expect(html).not.toContain(secret);
    expect(values.join('\n')).not.toContain(secret);
  }
}

describe('settings', () => {
  it('adds a custom environment whose token is never shown back, only its hint', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    // The bench server keeps secrets in memory, and the page says so plainly, with the reason.
    const keychain = page.getByTestId('keychain-status');
    await expectText(keychain, 'No OS keychain is available');
    await expectText(keychain, 'Reason:');

    await page.getByRole('button', { name: 'Add environment' }).click();
    const form = page.getByTestId('environment-form');
    const field = (name: string) => form.getByRole('textbox', { name, exact: true });
    await field('Name').fill('Staging');
    await field('Base URL').fill('http://127.0.0.1:9');
    await field('Channel ID').fill('not-a-number');
    await form.getByLabel('Channel access token').fill(TOKEN);
    await form.getByLabel('Channel secret').fill(SECRET);
    await form.getByRole('button', { name: 'Save environment' }).click();
    await form.locator('.field-error', { hasText: 'must be the numeric channel ID' }).waitFor();

    await field('Channel ID').fill('1234567890');
    await form.getByRole('button', { name: 'Save environment' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.getByTestId('environment-row').filter({ hasText: 'Staging' });
    await row.waitFor();
    expect(await row.getByTestId('token-mask').innerText()).toBe(`•••• ${TOKEN.slice(-4)}`);
    expect(await row.getByTestId('secret-mask').innerText()).toBe(`•••• ${SECRET.slice(-4)}`);
    await expectNoSecrets(page);

    // Editing shows the stored token only as its hint; a blank input keeps it.
    await row.getByRole('button', { name: 'Edit Staging' }).click();
    const edit = page.getByTestId('environment-form');
    const tokenInput = edit.getByLabel('Channel access token');
    expect(await tokenInput.inputValue()).toBe('');
    expect(await tokenInput.getAttribute('placeholder')).toBe('leave blank to keep');
    await expectText(edit, `•••• ${TOKEN.slice(-4)}`);
    await expectNoSecrets(page);
    await edit.getByRole('textbox', { name: 'Name', exact: true }).fill('Staging EU');
    await edit.getByRole('button', { name: 'Save environment' }).click();
    const renamed = page.getByTestId('environment-row').filter({ hasText: 'Staging EU' });
    await renamed.waitFor();
    expect(await renamed.getByTestId('token-mask').innerText()).toBe(`•••• ${TOKEN.slice(-4)}`);
    await expectNoSecrets(page);

    // Switching to it points every console there: the status bar follows, and the device
    // service shows plainly that the platform can't be reached.
    await page.getByLabel('Environment', { exact: true }).selectOption({ label: 'Staging EU' });
    await expectText(page.getByTestId('status-environment'), 'Staging EU');
    await page.getByRole('button', { name: 'Device service' }).click();
    await page.getByRole('alert').filter({ hasText: '127.0.0.1:9' }).first().waitFor();
    await page.getByLabel('Environment', { exact: true }).selectOption({ label: 'Local emulator' });
    await expectText(page.getByTestId('status-environment'), 'Local emulator');
    await page.getByTestId('products-empty').waitFor();

    // Delete it, confirming.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('button', { name: 'Delete Staging EU' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete environment?' });
    await dialog.getByRole('button', { name: 'Delete environment' }).click();
    await renamed.waitFor({ state: 'detached' });
    expect(await page.getByTestId('environment-row').count()).toBe(1);
    await expectNoSecrets(page);

    expect(pageErrors).toEqual([]);
  });
});
