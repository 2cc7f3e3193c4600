// The Firmware panel on a connected Zephyr MCUmgr board's card: a file that is not an MCUboot
// image is refused naming what is wrong; an upload shows its progress and kB/s beside what the
// link got (PHY, data length, interval, window) and resumes after the link dropped mid-upload;
// Test, Reset (the board runs the new image), Reset again (it reverted), Test, Reset, Confirm (a
// reset keeps it), and echo; each greyed-out button says why. A board without MCUmgr has no
// Firmware panel. An upload cancelled says where it stopped, and the next one resumes there.
// Each flow runs once; what must be in view or not be cut, and the pictures, are looked at in
// both window sizes.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildImage } from '../core/ble/mcumgr/image-builder';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  inView,
  nav,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();
const BOARD_ID = 'e82f9a004001';
const MCUMGR_CHARACTERISTIC = 'da2e7828-fbce-4e01-ae9e-261174997c48';

async function setFaults(page: Page, url: string, faults: object): Promise<number> {
  return page.evaluate(
    async ([base, body]) =>
      (
        await fetch(`${base}/api/ops/sim:setFaults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).status,
    [url.replace(/\/$/, ''), JSON.stringify({ boardId: BOARD_ID, ...faults })] as const,
  );
}

/** The version the slot table lists as running. */
async function runningVersion(panel: Locator): Promise<string> {
  const row = panel.locator('[data-testid="firmware-slot"]', { hasText: 'active' });
  return (await row.locator('td').nth(1).innerText()).trim();
}

describe('the Firmware panel', () => {
  it('uploads with resume, tests, resets, reverts and confirms an image', async () => {
    const { page, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    const scan = page.getByTestId('ble-scan');

    // A board without MCUmgr has no Firmware panel.
    const sensorRow = scan.locator('[data-testid="scan-row"][data-name="DB Sensor"]');
    await sensorRow.getByRole('button', { name: 'Connect DB Sensor' }).click();
    const sensor = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Sensor' });
    await expectText(sensor.getByTestId('link-state'), 'Connected');
    expect(await sensor.getByTestId('firmware-panel').count()).toBe(0);
    await sensor.getByRole('button', { name: 'Disconnect' }).click();

    const row = scan.locator('[data-testid="scan-row"][data-name="DB Zephyr MCUmgr"]');
    await row.getByRole('button', { name: 'Connect DB Zephyr MCUmgr' }).click();
    const board = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr MCUmgr' });
    const panel = board.getByTestId('firmware-panel');
    await expect.poll(() => panel.getByTestId('firmware-slot').count()).toBeGreaterThan(0);
    const before = await runningVersion(panel);
    const upload = panel.getByRole('button', { name: 'Upload' });
    expect(await upload.isDisabled()).toBe(true);
    await expectText(panel, 'Choose an MCUboot image file first.');
    await atEachSize(page, () => shoot(page, 'firmware-panel-slots'));

    // Not an image: refused before anything goes to the board, saying what is wrong.
    const file = panel.getByLabel('Image file');
    await file.setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('These are release notes, not an image. '.repeat(3)),
    });
    await expectText(panel.getByRole('alert'), 'not an MCUboot image');
    expect(await upload.isDisabled()).toBe(true);

    const version = '1.5.7';
    const image = Buffer.from(
      buildImage({
        version: [1, 5, 7, 0],
        payload: new Uint8Array(14_000).map((_, i) => (i * 31 + 7) & 0xff),
      }),
    );
    await file.setInputFiles({
      name: 'zephyr.signed.bin',
      mimeType: 'application/octet-stream',
      buffer: image,
    });
    await expectText(panel.getByTestId('chosen-image'), `zephyr.signed.bin · ${version}`);

    // The link drops mid-upload: it is connected again and the upload resumes.
    expect(
      await setFaults(page, url, {
        dropLinkDuringWrite: true,
        dropLinkAfterWrites: 40,
        dropLinkCharacteristic: MCUMGR_CHARACTERISTIC,
      }),
    ).toBe(200);
    await upload.click();
    const outcome = panel.getByTestId('firmware-outcome');
    await expectText(outcome, `Uploaded ${version}`);
    await expectText(outcome, 'the upload resumed at byte');
    // One rate on the screen after the drop: the progress line ends on the outcome's, and both
    // say the reconnect counts (issue 45).
    const rate = / at (\d+\.\d kB\/s) \(reconnect included\)\./.exec(
      await outcome.innerText(),
    )?.[1];
    expect(rate).toBeDefined();
    const progress = panel.getByTestId('firmware-progress');
    await expectText(progress, `${rate} (reconnect included)`);
    await expectText(progress, `${(image.length / 1000).toFixed(1)} kB of`);
    await expectText(progress, 'resumed from byte');
    // Beside the rate, what the link got: the bench's fast adapter takes DLE, 2M and 7.5 ms,
    // and the board's MCUmgr parameters (buf_count 4) a window of 3.
    await expectText(
      progress.getByTestId('firmware-link'),
      '2M PHY · 251-octet PDUs · 7.5 ms interval · window 3',
    );
    expect(await progress.locator('progress').getAttribute('value')).toBe(String(image.length));
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, outcome)).toBe(true);
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'firmware-panel-uploaded');
    });

    // Confirm waits for an image on test; Test marks the new one; Reset boots it.
    await expectText(panel, `The running image (${before}) is confirmed already.`);
    await panel.getByRole('button', { name: `Test ${version}` }).click();
    await expectText(outcome, `${version} is marked for test`);
    await expectText(panel, `${version} is marked for test: reset the board to boot it.`);
    await panel.getByRole('button', { name: 'Reset' }).click();
    await expectText(outcome, `The board runs the new image, ${version}, on test`);
    expect(await runningVersion(panel)).toBe(version);
    await expectText(board.getByTestId('link-state'), 'Connected');
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, outcome)).toBe(true);
      await shoot(page, 'firmware-panel-on-test');
    });

    // Not confirmed: the next reset reverts it.
    await panel.getByRole('button', { name: 'Reset' }).click();
    await expectText(
      outcome,
      `The board reverted: the image on test was not confirmed. It runs ${before} again.`,
    );
    expect(await runningVersion(panel)).toBe(before);
    await atEachSize(page, () => shoot(page, 'firmware-panel-reverted'));

    await panel.getByRole('button', { name: `Test ${version}` }).click();
    await expectText(outcome, 'marked for test');
    await panel.getByRole('button', { name: 'Reset' }).click();
    await expectText(outcome, 'runs the new image');
    await panel.getByRole('button', { name: 'Confirm' }).click();
    await expectText(outcome, 'Confirmed');
    await expectText(panel, `The running image (${version}) is confirmed already.`);
    await panel.getByRole('button', { name: 'Reset' }).click();
    await expectText(outcome, `The board is back and runs ${version}, confirmed.`);

    const echo = panel.getByRole('form', { name: 'Echo' });
    await echo.getByLabel('Echo text').fill('bench once');
    await echo.getByRole('button', { name: 'Echo' }).click();
    await expectText(panel.getByTestId('firmware-echo'), '“bench once”');
    await atEachSize(page, () => shoot(page, 'firmware-panel-confirmed'));

    await board.getByRole('button', { name: 'Disconnect' }).first().click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => board.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('cancels an upload, and the next one resumes where it stopped', async () => {
    const { page, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'BLE bench').click();
    const board = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Zephyr MCUmgr' });
    await page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB Zephyr MCUmgr"]')
      .getByRole('button', { name: 'Connect DB Zephyr MCUmgr' })
      .click();
    const panel = board.getByTestId('firmware-panel');
    await expect.poll(() => panel.getByTestId('firmware-slot').count()).toBeGreaterThan(0);
    const cancel = panel.getByRole('button', { name: 'Cancel upload' });
    expect(await cancel.count()).toBe(0);

    const version = '1.6.7';
    const image = Buffer.from(
      buildImage({
        version: [1, 6, 7, 0],
        payload: new Uint8Array(30_000).map((_, i) => (i * 29 + 7) & 0xff),
      }),
    );
    await panel.getByLabel('Image file').setInputFiles({
      name: 'zephyr.signed.bin',
      mimeType: 'application/octet-stream',
      buffer: image,
    });
    await expectText(panel.getByTestId('chosen-image'), `zephyr.signed.bin · ${version}`);
    // A slow link, so the upload is still running when Cancel is pressed (the bench's adapter
    // has Data Length Extension: test/e2e/fixture.ts).
    expect(await setFaults(page, url, { slowLinkFactor: 16 })).toBe(200);
    await panel.getByRole('button', { name: 'Upload' }).click();
    const bar = panel.getByTestId('firmware-progress').locator('progress');
    // Past the first chunks: an offset of one first chunk cannot be told from a fresh start.
    await expect
      .poll(async () => Number(await bar.getAttribute('value')), { timeout: 30_000 })
      .toBeGreaterThan(5_000);
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'firmware-panel-uploading');
    });
    await cancel.click();
    const outcome = panel.getByTestId('firmware-outcome');
    await expectText(outcome, 'Upload cancelled at ');
    // A cancel the person asked for is said plainly, not drawn as a failure.
    expect(await outcome.getAttribute('class')).toBe('note');
    const stopped = /cancelled at (\d+) of (\d+) bytes/.exec(await outcome.innerText());
    expect(Number(stopped?.[2])).toBe(image.length);
    const offset = Number(stopped?.[1]);
    expect(offset).toBeGreaterThan(5_000);
    expect(offset).toBeLessThan(image.length);
    expect(await cancel.count()).toBe(0);
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, outcome)).toBe(true);
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'firmware-panel-cancelled');
    });

    expect(await setFaults(page, url, { slowLinkFactor: 1 })).toBe(200);
    await panel.getByRole('button', { name: 'Upload' }).click();
    await expectText(outcome, `Uploaded ${version}`);
    await expectText(outcome, `the upload resumed at byte ${offset}.`);

    await board.getByRole('button', { name: 'Disconnect' }).first().click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => board.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
