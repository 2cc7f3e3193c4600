// Partner options end to end: attach a module and switch chat control while the app's receiver
// shows the module events; send a template notification to a hashed number and read the day's
// count; search the video catalogue and see its thumbnails under the app's CSP.
import { describe, expect, it } from 'vitest';
import { expectText, shoot, useBench } from './fixture';

const bench = useBench();

describe('module channels console', () => {
  it('attaches a module, acquires and releases control, and shows activated and deactivated', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Module channels' }).click();
    await page.getByRole('button', { name: 'Create module channel' }).click();
    await page.getByRole('button', { name: 'Create account' }).click();
    const account = page.getByTestId('module-account');
    await account.waitFor();
    await account.getByRole('button', { name: 'Add a friend' }).click();
    await expectText(account, 'U');
    await page.getByRole('button', { name: "Send to this app's receiver" }).click();
    await expectText(page.getByTestId('module-webhook-url'), '/webhook');

    await page.getByRole('button', { name: 'Approve as account admin' }).click();
    await expect.poll(() => page.getByLabel('Authorization code').inputValue()).not.toBe('');
    await page.getByRole('button', { name: 'Attach', exact: true }).click();
    await expectText(page.getByTestId('attach-result'), 'Attached: bot ID');

    const events = page.getByTestId('module-events');
    await expectText(events, 'module');
    await expectText(events, 'Signature valid');

    await page.getByRole('button', { name: 'Acquire control' }).click();
    await expectText(page.getByTestId('control-result'), 'Control acquired.');
    await expectText(events, 'activated');
    await expectText(page.getByRole('table', { name: 'Chat control' }), 'Bench Cafe');

    await page.getByRole('button', { name: 'Release control' }).click();
    await expectText(page.getByTestId('control-result'), 'Control released.');
    await expectText(events, 'deactivated');
    await expectText(
      page.getByRole('table', { name: 'Chat control' }),
      'Every chat is with its primary channel.',
    );

    await page.getByRole('button', { name: 'List bots' }).click();
    await expectText(page.getByRole('table', { name: 'Bots' }), 'Bench Cafe');
    expect(pageErrors).toEqual([]);
  });
});

describe('module attach to another origin', () => {
  it("asks before sending the channel's ID and secret anywhere but its environment", async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Module channels' }).click();
    await page.getByRole('button', { name: 'Approve as account admin' }).click();
    await expect.poll(() => page.getByLabel('Authorization code').inputValue()).not.toBe('');
    await page.getByLabel('Manager URL (optional)').fill('http://127.0.0.1:9/');
    await page.getByRole('button', { name: 'Attach', exact: true }).click();
    const confirm = page.getByTestId('attach-confirm');
    await expectText(confirm, "http://127.0.0.1:9 is not this channel's environment");
    await shoot(page, 'attach-confirm');
    await confirm.getByRole('button', { name: 'Send to http://127.0.0.1:9' }).click();
    await expectText(page.getByTestId('attach-error'), '127.0.0.1:9');
    await expect.poll(() => confirm.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});

describe('notification messages console', () => {
  it('sends a template to a hashed number and sees the day counted once the day is over', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Notification messages' }).click();
    await page.getByLabel("User's phone number").fill('080-0000-1234');
    await page.getByRole('button', { name: 'Add user' }).click();
    await expectText(page.getByRole('table', { name: 'Phone users' }), '+818000001234');

    await page.getByLabel('Phone number', { exact: true }).fill('+81 80-0000-1234');
    await page.getByRole('button', { name: 'Normalize and hash' }).click();
    const hash = 'd41e0ad70dddfeb68f149ad6fc61574b9c5780ab7bcb2fba5517771ffbb2409c';
    await expectText(page.getByTestId('phone-hash'), hash);
    expect(await page.getByLabel('To (SHA-256 of E.164)').inputValue()).toBe(hash);

    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expectText(page.getByTestId('pnp-send-result'), 'Accepted (202).');

    // A number with no user is the platform's 422, shown with its status.
    await page.getByLabel('To (SHA-256 of E.164)').fill('0'.repeat(64));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expectText(page.getByTestId('pnp-send-error'), 'HTTP 422');

    const date = page.getByLabel('Date (yyyyMMdd, UTC+9)');
    await expect.poll(() => date.inputValue()).toMatch(/^\d{8}$/);
    const day = await date.inputValue();
    await page.getByRole('button', { name: 'Get count' }).click();
    await expectText(page.getByTestId('pnp-count'), 'unready');

    await page.getByRole('button', { name: 'Emulator' }).click();
    await page.getByRole('button', { name: '+1 day' }).click();
    await page.getByRole('button', { name: 'Notification messages' }).click();
    await expect.poll(() => date.inputValue()).not.toBe(day);
    await date.fill(day);
    await page.getByRole('button', { name: 'Get count' }).click();
    await expectText(page.getByTestId('pnp-count'), 'ready · 1 sent');
    expect(pageErrors).toEqual([]);
  });
});

describe('video service console', () => {
  it('searches clip titles and shows the results with their thumbnails', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Video service' }).click();
    await page.getByLabel('Search words').fill('chiang mai');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expectText(page.getByTestId('video-search-count'), '3 clips match');
    const results = page.getByRole('list', { name: 'Search results' });
    const thumb = results.getByRole('img', { name: 'Love in Chiang Mai episode 1' });
    await thumb.waitFor();
    await expect
      .poll(() =>
        thumb.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    await expectText(page.getByTestId('video-search-ranking'), 'chiang mai (1)');

    await page.getByRole('tab', { name: 'Live schedule' }).click();
    await expectText(page.getByRole('table', { name: 'Live schedule' }), 'MOVE_TO_CLIP');
    expect(pageErrors).toEqual([]);
  });
});
