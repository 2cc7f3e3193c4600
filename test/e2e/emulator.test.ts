// The Emulator page end to end: register a device for a product with a user link, watch the
// activity log, move the clock, inject a fault and see it reported with its status and request
// id, then find the device and its link on the device service console.
import { describe, expect, it } from 'vitest';
import { expectText, useBench, createProduct } from './fixture';

const bench = useBench();

describe('emulator page', () => {
  it('registers a device, then the device service console finds it and its link', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    const productRow = await createProduct(page, 'Lamp proto');
    const productId = (await productRow.getAttribute('data-product-id')) ?? '';

    await page.getByRole('button', { name: 'Emulator', exact: true }).click();
    await page.getByLabel('Display name').fill('Alice');
    await page.getByRole('button', { name: 'Add user' }).click();
    const userRow = page.getByTestId('user-row').filter({ hasText: 'Alice' });
    await userRow.waitFor();
    const userId = await userRow.locator('code').innerText();
    expect(userId).toMatch(/^U[0-9a-f]{32}$/);

    const register = page.getByRole('form', { name: 'Register device' });
    await register.getByLabel('Product ID', { exact: true }).fill(productId);
    await register
      .getByRole('textbox', { name: 'Product-specific device ID (PSDI)' })
      .fill('SN-0001');
    await register.getByLabel('Link to user (optional)').fill(userId);
    await register.getByRole('button', { name: 'Register device' }).click();
    const registered = page.getByTestId('registered-device');
    await registered.waitFor();
    const deviceId = await registered.locator('code').innerText();
    const deviceRow = page.locator(`[data-testid=device-row][data-device-id="${deviceId}"]`);
    await expectText(deviceRow, 'SN-0001');
    await expectText(deviceRow, userId);

    // The live log shows the platform and admin requests, and the status bar counts them.
    await expectText(page.getByTestId('activity-log'), '/__admin/things/devices');
    await expectText(page.getByTestId('activity-log'), '/things/v1/trial/products');
    await expectText(page.getByTestId('status-activity'), 'last');

    // The clock moves forward and back.
    await page.getByRole('button', { name: '+1 day' }).click();
    await expectText(page.getByTestId('emulator-clock'), '+1d');
    await page.getByRole('button', { name: 'Reset clock' }).click();
    await expectText(page.getByTestId('emulator-clock'), '(0 from real time)');

    // A 500 for the next device service request, reported where the user looks.
    const faults = page.getByRole('form', { name: 'Inject fault' });
    await faults.getByLabel('Fault').selectOption('500');
    await faults.getByRole('textbox', { name: 'Path prefix (optional)' }).fill('/things/v1');
    await faults.getByRole('button', { name: 'Inject' }).click();
    await expectText(page.getByTestId('faults-table'), 'HTTP 500');

    await page.getByRole('button', { name: 'Device service' }).click();
    const failure = page.getByRole('alert').filter({ hasText: 'HTTP 500' });
    await expectText(failure, 'request id');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await productRow.waitFor();

    // Device lookup by id.
    const deviceForm = page.getByRole('form', { name: 'Look up device' });
    await deviceForm.getByRole('textbox', { name: 'Device ID' }).fill(deviceId);
    await deviceForm.getByRole('button', { name: 'Look up' }).click();
    const device = page.getByTestId('device-result');
    await expectText(device, 'SN-0001');
    await expectText(device, productId);

    // Link lookup by product + user.
    const linkForm = page.getByRole('form', { name: 'Look up links' });
    await linkForm.getByLabel('Product ID', { exact: true }).fill(productId);
    await linkForm.getByRole('textbox', { name: 'User ID' }).fill(userId);
    await linkForm.getByRole('button', { name: 'Find links' }).click();
    const links = page.getByTestId('links-result');
    await expectText(links, deviceId);
    await expectText(links, 'Lamp proto');

    // An unknown device is the platform's 404, with its request id, next to the lookup.
    await deviceForm.getByRole('textbox', { name: 'Device ID' }).fill('no-such-device');
    await deviceForm.getByRole('button', { name: 'Look up' }).click();
    const missing = page.getByTestId('device-error');
    await expectText(missing, 'HTTP 404');
    await expectText(missing, 'request id');
    expect(await page.getByTestId('device-result').count()).toBe(0);

    expect(pageErrors).toEqual([]);
  });
});
