// Remove closes the adapter on its own row, even beside another adapter of
// the same spec: two `sim` adapters, a link on one of them, and Remove on that row asks about
// that link and closes that adapter, leaving the other with its identity
// (docs/decisions/ble-and-hci.md, "Adapters addressed by id"). The flow runs once; the question
// staying in view, what is cut, and the pictures are looked at in both window sizes.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  inView,
  nav,
  opStatus,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

function rows(page: Page): Locator {
  return page.getByTestId('ble-adapter').getByTestId('adapter-row');
}

/** Each row's identity address, in the list's order. */
async function identities(page: Page): Promise<string[]> {
  return rows(page).getByTestId('adapter-identity').locator('code').allInnerTexts();
}

describe('removing one of two sim adapters', () => {
  it('closes the adapter on the row clicked, naming its link first', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    expect(await opStatus(page, 'ble:setAdapters', { adapters: ['sim'], dropLinks: true })).toBe(
      200,
    );
    expect(
      await opStatus(page, 'ble:setAdapters', { adapters: ['sim', 'sim'], dropLinks: true }),
    ).toBe(200);
    await nav(page, 'BLE bench').click();
    await expect.poll(() => identities(page)).toHaveLength(2);
    const sensorRow = page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Sensor"]');
    await sensorRow.getByRole('button', { name: 'Connect DB Sensor' }).click();

    // The row whose adapter holds the link, whichever place the station gave it.
    const holding = rows(page).filter({
      has: page.getByTestId('adapter-links').filter({ hasText: '1/' }),
    });
    await holding.waitFor();
    const held = await holding.getByTestId('adapter-identity').locator('code').innerText();
    // Two controllers, two addresses.
    const [other, ...more] = (await identities(page)).filter((address) => address !== held);
    expect(other).toBeDefined();
    expect(more).toEqual([]);

    // On the button itself: the Connect's card may land at this moment and scroll the page,
    // and a click at where the button was would hit something else (a full run at load 10).
    await holding
      .getByRole('button', { name: /^Remove adapter \d \(sim\)$/ })
      .dispatchEvent('click');
    const confirm = page.getByTestId('adapter-confirm');
    await expectText(confirm, `Removing sim (${held}) drops 1 link: DB Sensor`);
    await expect.poll(() => inView(page, confirm)).toBe(true);
    // The Connect's answer may land after the question opened: its new card must not carry the
    // question out of view.
    await expect.poll(() => sensorRow.getByText('Working…').count()).toBe(0);
    await atEachSize(page, async () => {
      expect(await inView(page, confirm)).toBe(true);
      await shoot(page, 'adapter-remove-confirm');
    });
    await confirm.getByRole('button', { name: 'Remove and drop' }).click();

    await expectText(
      page.getByTestId('adapter-said'),
      `Removed sim (${held}) without restarting the BLE process; dropped 1 link: DB Sensor`,
    );
    await expect.poll(() => identities(page)).toEqual([other]);
    // Said where the click was, though the removed row and question left the page shorter.
    await expect.poll(() => inView(page, page.getByTestId('adapter-said'))).toBe(true);
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'adapter-remove-done');
    });

    // Beside a new sim adapter, Remove on the first row closes the first, not the last.
    const adapter = page.getByTestId('ble-adapter');
    await adapter.getByLabel('Add an adapter').fill('sim');
    await adapter.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => identities(page)).toHaveLength(2);
    const [, added] = await identities(page);
    await adapter.getByRole('button', { name: 'Remove adapter 1 (sim)' }).click();
    await expectText(page.getByTestId('adapter-said'), `Removed sim (${other})`);
    await expect.poll(() => identities(page)).toEqual([added]);

    // An id no longer open is refused naming the field, not another adapter closed.
    expect(await opStatus(page, 'ble:removeAdapter', { id: 'gone' })).toBe(400);
    await expect.poll(() => identities(page)).toEqual([added]);
    expect(pageErrors).toEqual([]);
  });
});
