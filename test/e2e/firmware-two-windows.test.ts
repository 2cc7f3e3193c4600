// The Firmware panel with two windows on one board: a window opened while
// the other uploads is not refused into a dead end ("Connection id is busy…", then "Waiting for
// the board's slots" forever); it says what runs from the other window, keeps its buttons
// waiting with that reason, and lists the slots by itself once the upload ends
// (docs/decisions/ble-and-hci.md, "MCUmgr in the app"). The flow runs once; what is cut in the
// waiting window, and the pictures, are looked at in both window sizes.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildImage } from '../core/ble/mcumgr/image-builder';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  nav,
  opStatus,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();
const BOARD_ID = 'e82f9a004001';

function panelOf(page: Page) {
  return page
    .locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr MCUmgr' })
    .getByTestId('firmware-panel');
}

describe('the Firmware panel in two windows', () => {
  it('waits for the other window’s upload, then lists the slots by itself', async () => {
    const { page, context, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    const scanRow = page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Zephyr MCUmgr"]');
    // Its SMP service is named as such, not as a blank board's (issue 45).
    await expectText(scanRow, 'MCUmgr (SMP)');
    expect(await scanRow.innerText()).not.toContain('Blank');
    await scanRow.getByRole('button', { name: 'Connect DB Zephyr MCUmgr' }).click();
    const panel = panelOf(page);
    await expect.poll(() => panel.getByTestId('firmware-slot').count()).toBeGreaterThan(0);

    const version = '1.7.7';
    await panel.getByLabel('Image file').setInputFiles({
      name: 'zephyr.signed.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(
        buildImage({
          version: [1, 7, 7, 0],
          payload: new Uint8Array(80_000).map((_, i) => (i * 37 + 7) & 0xff),
        }),
      ),
    });
    await expectText(panel.getByTestId('chosen-image'), version);
    // A slow link, so the upload still runs while the second window opens.
    expect(await opStatus(page, 'sim:setFaults', { boardId: BOARD_ID, slowLinkFactor: 16 })).toBe(
      200,
    );
    await panel.getByRole('button', { name: 'Upload' }).click();
    await expect
      .poll(
        async () =>
          Number(
            await panel.getByTestId('firmware-progress').locator('progress').getAttribute('value'),
          ),
        { timeout: 30_000 },
      )
      .toBeGreaterThan(2_000);

    const other = await context.newPage();
    try {
      await other.setViewportSize(FLOW_SIZE);
      await other.goto(url);
      await nav(other, 'BLE bench').click();
      const second = panelOf(other);
      const waiting = second.getByTestId('firmware-waiting');
      await expectText(waiting, 'An upload runs on this board from another window.');
      await expectText(second, 'The slots show when it ends.');
      // No refusal in front of the person, and no button that would be refused.
      expect(await second.getByRole('alert').count()).toBe(0);
      expect(await second.getByRole('button', { name: 'Reset' }).isDisabled()).toBe(true);
      await atEachSize(other, async () => {
        expect(await clippedText(other)).toEqual([]);
        await shoot(other, 'firmware-two-windows-waiting');
      });

      expect(await opStatus(page, 'sim:setFaults', { boardId: BOARD_ID, slowLinkFactor: 1 })).toBe(
        200,
      );
      await expectText(panel.getByTestId('firmware-outcome'), `Uploaded ${version}`);
      // The GATT log says the upload in one line, not each of its SMP chunks (issue 45).
      const log = page
        .locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr MCUmgr' })
        .getByRole('table', { name: 'GATT log entries' });
      await expectText(log, `MCUmgr upload of ${version}:`);
      const entries = await log.getByTestId('gatt-log-entry').allInnerTexts();
      expect(entries.length, entries.join('\n')).toBeLessThan(30);
      // The second window lists the slots the upload left, by itself.
      await expectText(second.getByRole('table', { name: 'Image slots' }), version);
      await waiting.waitFor({ state: 'detached' });
      await expect
        .poll(() => second.getByRole('button', { name: 'Reset' }).isDisabled())
        .toBe(false);
      expect(await second.getByRole('alert').count()).toBe(0);
      await atEachSize(other, () => shoot(other, 'firmware-two-windows-listed'));
    } finally {
      await other.close();
    }
    // Disconnected and dismissed: the card goes, and the board is free for the next file's window.
    const card = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr MCUmgr' });
    await card.getByRole('button', { name: 'Disconnect' }).first().click();
    await card.getByRole('button', { name: 'Dismiss' }).click();
    await card.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });
});
