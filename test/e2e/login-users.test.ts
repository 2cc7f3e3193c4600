// The Login console's emulator data follows a minted code, at both window sizes: "No users yet"
// before, and the user the code was minted for right after, without a reload (issue 45).
import { describe, expect, it } from 'vitest';
import { expectText, nav, shoot, useBench, WINDOW_SIZES } from './fixture';

const bench = useBench();

describe.each(WINDOW_SIZES)('the Login console at $width×$height', (size) => {
  it('lists the user a minted code added', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(size);
    await nav(page, 'Login & profile').click();
    const setup = page.getByTestId('login-emulator-setup');
    await setup.waitFor();
    const users = setup.getByLabel('User', { exact: true });
    const before = (await users.count()) === 0 ? 0 : await users.locator('option').count();
    if (before === 0) await expectText(setup, 'No users yet');

    await page.getByTestId('guided-flow').getByRole('button', { name: 'Mint code' }).click();
    await expect.poll(() => users.locator('option').count()).toBeGreaterThan(0);
    expect(await setup.innerText()).not.toContain('No users yet');
    await shoot(page, 'login-users');
    expect(pageErrors).toEqual([]);
  });
});
