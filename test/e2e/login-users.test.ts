// The Login console's emulator data follows a minted code: "No users yet" before, and the user
// the code was minted for right after, without a reload (issue 45). Pictured in both window
// sizes.
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();

describe('the Login console', () => {
  it('lists the user a minted code added', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Login & profile').click();
    const setup = page.getByTestId('login-emulator-setup');
    await setup.waitFor();
    const users = setup.getByLabel('User', { exact: true });
    // A fresh emulator: no user until a code is minted.
    expect(await users.count()).toBe(0);
    await expectText(setup, 'No users yet');

    await page.getByTestId('guided-flow').getByRole('button', { name: 'Mint code' }).click();
    await expect.poll(() => users.locator('option').count()).toBeGreaterThan(0);
    expect(await setup.innerText()).not.toContain('No users yet');
    await atEachSize(page, () => shoot(page, 'login-users'));
    expect(pageErrors).toEqual([]);
  });
});
