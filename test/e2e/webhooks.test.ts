// The Webhooks page end to end: point the emulator's channel at the app's receiver, send a
// test webhook, and see it arrive verified and recorded as delivered.
import { describe, expect, it } from 'vitest';
import { expectText, useBench } from './fixture';

const bench = useBench();

describe('webhooks page', () => {
  it('routes a channel to the receiver and shows a verified test delivery', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { name: "This app's receiver" }).waitFor();
    const receiverUrl = await page
      .getByRole('button', { name: 'Copy receiver URL' })
      .locator('..')
      .innerText();
    expect(receiverUrl).toMatch(/http:\/\/127\.0\.0\.1:\d+\/webhook/);

    const use = page.getByRole('button', { name: /^Send channel \d+ webhooks to this app$/ });
    await use.first().click();
    await expectText(page.locator('table.grid').first(), '/webhook');

    await page
      .getByRole('button', { name: /^Send a test webhook for channel/ })
      .first()
      .click();
    const received = page.getByRole('table', { name: 'Received webhooks' });
    await expectText(received, 'Signature valid');
    await expectText(page.getByRole('table', { name: 'Deliveries' }), 'SUCCESS');

    await received.getByRole('button', { name: 'Body' }).click();
    await expectText(page.locator('.webhook-body pre'), '"events": []');

    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await expectText(
      page.getByRole('region', { name: "This app's receiver" }),
      'Nothing received yet.',
    );
    expect(pageErrors).toEqual([]);
  });
});
