// The mini-app consoles end to end: embedded apps up to the limit and a delete; a notification
// token sent until it stops renewing; a purchase reserved, paid, refunded, with both events at
// the app's receiver and in the history; and the common-profile simulator filling a form.
import { describe, expect, it } from 'vitest';
import { expectText, useBench } from './fixture';

const bench = useBench();

describe('mini-app consoles', () => {
  it('adds embedded apps up to 30, refuses the 31st and deletes one', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'Embedded apps' }).click();
    await page.getByTestId('embed-apps-empty').waitFor();
    const form = page.getByRole('form', { name: 'Add embedded app' });

    // The platform's name is refused, next to the field.
    await form.getByLabel('Description (app name)').fill('LINE coupons');
    await form.getByRole('button', { name: 'Add app' }).click();
    await form
      .locator('.field-error', { hasText: "must not contain the platform's name" })
      .waitFor();

    await form.getByLabel('Description (app name)').fill('Booking');
    await form.getByLabel('View type').selectOption('tall');
    await form.getByRole('button', { name: 'Add app' }).click();
    const first = page.getByTestId('embed-app-row').filter({ hasText: 'Booking' });
    await first.waitFor();
    expect(await first.innerText()).toContain('profile chat_message.write');
    await expectText(page.getByTestId('embed-app-count'), '1 of 30');

    for (let n = 2; n <= 30; n++) {
      await form.getByLabel('Description (app name)').fill(`App ${n}`);
      await form.getByRole('button', { name: 'Add app' }).click();
      await expectText(page.getByTestId('embed-app-count'), `${n} of 30`);
    }
    await form.getByRole('button', { name: 'Add app' }).click();
    await expectText(page.getByTestId('embed-add-error'), 'HTTP 400');
    await expectText(page.getByTestId('embed-add-error'), 'maximum number of apps (30)');

    const embedId = (await first.getAttribute('data-embed-id')) as string;
    await page.getByRole('button', { name: `Delete ${embedId}` }).click();
    await page.getByRole('button', { name: 'Delete app' }).click();
    await expectText(page.getByTestId('embed-app-count'), '29 of 30');
    expect(await page.getByTestId('embed-app-row').filter({ hasText: 'Booking' }).count()).toBe(0);
    expect(bench().pageErrors).toEqual([]);
  });

  it('issues a notification token and sends until it stops renewing', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'Service messages' }).click();
    await page.getByRole('button', { name: 'Mint a test user token' }).click();
    const userToken = page.getByLabel('User access token (embedAccessToken)');
    await expect.poll(() => userToken.inputValue()).not.toBe('');
    // A minted token is a secret: typed as a password and absent from the page's text.
    expect(await userToken.getAttribute('type')).toBe('password');
    expect(await page.locator('body').innerText()).not.toContain(await userToken.inputValue());
    await page.getByRole('button', { name: 'Issue notification token' }).click();
    await expectText(page.getByTestId('sm-remaining'), '5');
    await expectText(page.getByTestId('sm-expires'), '31536000 s');

    // A template with required variables refuses a send without them, using nothing up.
    await page.getByLabel('Template').selectOption('order_complete');
    await page.getByRole('button', { name: 'Send message' }).click();
    await expectText(page.getByTestId('sm-send-error'), 'params.order_number');
    await page.getByLabel('order_number (required)').fill('A-1');
    await page.getByLabel('total (required)').fill('¥1,200');
    await page.getByLabel('Language').selectOption('ja');
    for (const remaining of ['4', '3', '2', '1', '0']) {
      await page.getByRole('button', { name: 'Send message' }).click();
      await expectText(page.getByTestId('sm-remaining'), remaining);
    }
    await page.getByTestId('sm-ended').waitFor();
    const rows = page.getByTestId('sm-sends').locator('tbody tr');
    expect(await rows.count()).toBe(5);
    expect(await rows.nth(3).innerText()).toContain('renewed');
    expect(await rows.nth(4).innerText()).toContain('not renewed');
    expect(await page.getByTestId('sm-expires').innerText()).toBe('0 s');

    await page.getByRole('button', { name: 'Send message' }).click();
    await expectText(page.getByTestId('sm-send-error'), 'HTTP 400');
    const delivered = page.getByRole('table', { name: 'Delivered service messages' });
    await expect.poll(() => delivered.locator('tbody tr').count()).toBe(5);
    expect(bench().pageErrors).toEqual([]);
  });

  it('reserves, pays and refunds an order; both events reach the receiver and the history', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'In-app purchase' }).click();
    await page.getByRole('button', { name: "Send to this app's receiver" }).click();
    await expectText(page.getByTestId('iap-webhook-url'), 'http://127.0.0.1:');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByRole('table', { name: 'Products' }).getByText('gems_100').waitFor();
    await page.getByRole('button', { name: 'Create a test buyer' }).click();
    await page.getByTestId('iap-buyer').waitFor();

    await page.getByRole('button', { name: 'getPlatformProducts' }).click();
    await expectText(page.getByTestId('iap-step-result'), '"gems_100":{"currency":"JPY"');

    // No consent yet: the server refuses the reservation.
    await page.getByRole('button', { name: 'Reserve (server)' }).click();
    await expectText(page.getByTestId('iap-error-code'), 'TERMS_AGREEMENT_ERROR');

    await page.getByRole('button', { name: 'requestConsentAgreement' }).click();
    const terms = page.getByRole('dialog', { name: 'In-app purchase terms' });
    await terms.getByRole('button', { name: 'Agree', exact: true }).click();
    await expectText(page.getByTestId('iap-step-result'), 'Consent: agreed.');

    await page.getByRole('button', { name: 'Reserve (server)' }).click();
    await expectText(page.getByTestId('iap-step-result'), 'Reserved order');
    const orderId = /Reserved order (\S+)\./.exec(
      await page.getByTestId('iap-step-result').innerText(),
    )![1]!;

    await page.getByRole('button', { name: 'createPayment' }).click();
    const sheet = page.getByRole('dialog', { name: 'App store payment' });
    await sheet.getByRole('button', { name: 'Pay', exact: true }).click();
    await expectText(page.getByTestId('iap-step-result'), 'purchaseComplete sent');
    const order = page.locator(`[data-order-id="${orderId}"]`);
    await expectText(order.getByTestId('iap-order-state'), 'COMPLETED');

    const received = page.getByTestId('iap-received');
    await expectText(received, 'purchaseComplete');
    await expectText(received, 'Signature valid');

    await page.getByRole('button', { name: `Refund order ${orderId}` }).click();
    await expectText(order.getByTestId('iap-order-state'), 'REFUNDED');
    await expectText(received, 'refundComplete');
    expect(await received.getByText('Signature valid').count()).toBe(2);

    await page.getByRole('button', { name: 'Load first page' }).click();
    await expectText(page.getByTestId('iap-history-page'), 'Page 1: 1 event(s); last page');
    const row = page.getByTestId('iap-history-row');
    expect(await row.innerText()).toContain(orderId);
    expect(await row.innerText()).toContain('SUCCESS');
    expect(bench().pageErrors).toEqual([]);
  });

  it('simulates $commonProfile.get with a withheld scope and fills the sample form', async () => {
    const { page } = bench();
    await page.getByRole('button', { name: 'Common profile' }).click();
    await page.getByRole('button', { name: 'Call get', exact: true }).click();
    const modal = page.getByRole('dialog', { name: 'Share your profile?' });
    await modal.getByLabel('Share family-name').uncheck();
    await modal.getByRole('button', { name: 'Allow', exact: true }).click();
    const result = page.getByTestId('profile-result');
    await expectText(result.getByTestId('data-given-name'), '"花子"');
    expect(await result.getByTestId('data-family-name').innerText()).toBe('undefined');
    expect(await result.getByTestId('data-postal-code').innerText()).toBe('""');
    expect(await result.getByTestId('data-bday-month').innerText()).toBe('null');
    expect(await result.innerText()).toContain('NON_DIGIT_POSTAL_CODE');

    await page.getByRole('button', { name: 'Fill the sample form' }).click();
    expect(await page.getByLabel('Form given-name').inputValue()).toBe('花子');
    expect(await page.getByLabel('Form family-name').inputValue()).toBe('');
    expect(await page.getByLabel('Form bday-year').inputValue()).toBe('1990');
    expect(bench().pageErrors).toEqual([]);
  });
});
