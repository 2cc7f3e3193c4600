// A deliberate Disconnect keeps the board's card (issue 45, point 7; docs/decisions/app-and-ui.md,
// "A Disconnect keeps the card"): greyed, "Disconnected by you at HH:MM:SS", its GATT log kept and
// a Reconnect, in every window and after a reload, until the person reconnects (from the card or
// the scan list, the same card going on) or dismisses it. The flow runs once; the ended card is
// checked for cut text, and pictured, at both window sizes (atEachSize).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, clippedText, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();

const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';

function card(page: Page): Locator {
  return page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Sensor' });
}

function sensorRow(page: Page): Locator {
  return page.getByTestId('ble-scan').locator('[data-testid="scan-row"][data-name="DB Sensor"]');
}

const log = (page: Page) => card(page).getByRole('table', { name: 'GATT log entries' });

/** The card says its user ended the link, keeps its log, and offers Reconnect and Dismiss. */
async function expectEnded(page: Page): Promise<void> {
  const notice = card(page).getByTestId('link-dropped');
  await expect
    .poll(() => notice.innerText().catch(() => ''))
    .toMatch(/^Disconnected by you at \d{2}:\d{2}:\d{2}\./);
  await expectText(card(page).getByTestId('link-state'), 'Disconnected');
  await expectText(log(page), 'read');
  await notice.getByRole('button', { name: 'Reconnect' }).waitFor();
  await card(page).getByRole('button', { name: 'Dismiss' }).waitFor();
  // Greyed: the link's facts, its table and its log, not the notice and its buttons.
  const opacity = await card(page)
    .getByTestId('link-card')
    .evaluate((el: { ownerDocument: { defaultView: unknown } }) => {
      const view = el.ownerDocument.defaultView as {
        getComputedStyle(e: unknown): { opacity: string };
      };
      return Number(view.getComputedStyle(el).opacity);
    });
  expect(opacity).toBeLessThan(1);
}

describe('a deliberate Disconnect', () => {
  it('keeps the card with its log and Reconnect in every window until reconnected or dismissed', async () => {
    const { page, context, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).click();
    await expectText(card(page).getByTestId('gatt-connection-state'), 'connected');
    await card(page)
      .getByRole('button', { name: `Read ${TEMPERATURE}` })
      .click();
    await expectText(log(page), 'read');

    const other = await context.newPage();
    try {
      await other.setViewportSize(FLOW_SIZE);
      await other.goto(url);
      await nav(other, 'BLE bench').click();
      await expectText(log(other), 'read');

      // Disconnect on the card: the card stays, greyed, in both windows, and stays there.
      await card(page).getByRole('button', { name: 'Disconnect', exact: true }).click();
      await expectEnded(page);
      await expectEnded(other);
      await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).waitFor();
      await page.waitForTimeout(3_000);
      await expectEnded(page);
      await atEachSize(page, async () => {
        await card(page).evaluate((el) => el.scrollIntoView({ block: 'start' }));
        expect(await clippedText(page)).toEqual([]);
        await shoot(page, 'link-ended');
      });

      // A reload keeps it too.
      await page.reload();
      await nav(page, 'BLE bench').click();
      await expectEnded(page);

      // Reconnect in the other window: the same card goes on in both, its log kept.
      await card(other)
        .getByTestId('link-dropped')
        .getByRole('button', { name: 'Reconnect' })
        .click();
      await expectText(card(page).getByTestId('gatt-connection-state'), 'connected');
      await expectText(card(other).getByTestId('gatt-connection-state'), 'connected');
      await expectText(log(page), 'reconnected');
      await expectText(log(page), 'read');
      expect(await card(page).getByTestId('link-dropped').count()).toBe(0);

      // The scan row's Disconnect keeps the card as well; its Connect goes on on the same card.
      await sensorRow(page).getByRole('button', { name: 'Disconnect DB Sensor' }).click();
      await expectEnded(page);
      await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).click();
      await expectText(card(page).getByTestId('gatt-connection-state'), 'connected');
      expect(await page.getByTestId('gatt-explorer').count()).toBe(1);
      await expectText(log(page), 'read');

      // Dismiss takes the ended card off the bench in every window.
      await card(page).getByRole('button', { name: 'Disconnect', exact: true }).click();
      await expectEnded(other);
      await atEachSize(other, () => shoot(other, 'link-ended-other-window'));
      await card(other).getByRole('button', { name: 'Dismiss' }).click();
      await card(page).waitFor({ state: 'detached' });
      await card(other).waitFor({ state: 'detached' });
      await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).waitFor();
    } finally {
      await other.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
