// The adapter picker keeps the bench: a typed spec is checked by the one parser as it is typed,
// `native` says why an HCI dongle is better; a board loaded from a file and a fault set on it are
// still there after sim → hci0 → sim; the scan rows of the old process are gone, not left as
// ghost Connect buttons; and a failing Connect shows its error under that board's row, in view.
// The flow runs once; the error in view and the screenshots (under test-results/) are checked at
// both window sizes (1024×640 and 1280×800, atEachSize).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, useBench, shoot } from './fixture';

/** Types `spec` into the picker and adds it. */
async function addAdapter(page: Page, spec: string) {
  const picker = page.getByTestId('ble-adapter');
  await picker.getByLabel('Add an adapter').fill(spec);
  await picker.getByRole('button', { name: 'Add', exact: true }).click();
  await picker.locator(`[data-testid="adapter-row"][data-spec="${spec}"]`).waitFor();
}

async function removeAdapter(page: Page, spec: string) {
  const picker = page.getByTestId('ble-adapter');
  await picker
    .getByRole('button', { name: new RegExp(`^Remove adapter \\d+ \\(${spec}\\)$`) })
    .click();
  await picker.locator(`[data-testid="adapter-row"][data-spec="${spec}"]`).waitFor({
    state: 'detached',
  });
}

const TRAY = JSON.stringify({ boards: [{ name: 'Mode Tray', address: 'c0:ff:ee:00:00:31' }] });

describe('bench mode switch', () => {
  const bench = useBench();

  it('checks typed specs, keeps loaded boards and faults, drops stale rows, shows the Connect error by its row', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'BLE bench' }).click();
    await expectText(page.getByTestId('adapter-state'), 'Ready');
    const picker = page.getByTestId('ble-adapter');
    expect(await picker.getByTestId('adapter-links').first().innerText()).toContain('0/5 links');

    // A spec is checked as it is typed, in the parser's words; native says what to use instead.
    const field = picker.getByLabel('Add an adapter');
    await field.fill('serial:');
    await expectText(picker.getByTestId('adapter-spec-problem'), 'the serial port is empty');
    expect(await picker.getByRole('button', { name: 'Add', exact: true }).isDisabled()).toBe(true);
    await field.fill('native');
    await expectText(picker.getByTestId('native-warning'), 'nRF52840');
    await atEachSize(page, () => shoot(page, 'adapter-picker'));
    await field.fill('');

    // Load a board from a file and make it refuse connections.
    const sim = page.getByTestId('sim-bench');
    await sim.getByTestId('board-file').setInputFiles({
      name: 'mode-tray.json',
      mimeType: 'application/json',
      buffer: Buffer.from(TRAY),
    });
    const row = sim.getByTestId('sim-board').filter({ hasText: 'Mode Tray' });
    await row.waitFor();
    const faults = page.getByTestId('faults-panel');
    await faults.getByLabel('Board').selectOption('c0ffee000031');
    const form = faults.getByRole('form', { name: 'Faults of Mode Tray' });
    await form.getByLabel('Refuse connection').check();
    await form.getByRole('button', { name: 'Apply faults' }).click();
    const active = faults.getByTestId('active-fault').filter({ hasText: 'Mode Tray' });
    await expectText(active, 'refuses connections');
    const scan = page.getByTestId('ble-scan');
    await scan.locator('[data-testid="scan-row"][data-name="Mode Tray"]').waitFor();

    // A kernel adapter instead: the simulated rows go with the simulated process.
    await addAdapter(page, 'hci0');
    await removeAdapter(page, 'sim');
    await sim.waitFor({ state: 'detached' });
    await expect.poll(() => scan.getByTestId('scan-row').count()).toBe(0);
    await expect.poll(() => page.getByTestId('adapter-state').innerText()).not.toContain('Ready');

    // Back to the simulated bench: the board and its fault are there.
    await addAdapter(page, 'sim');
    await removeAdapter(page, 'hci0');
    await expectText(page.getByTestId('adapter-state'), 'Ready');
    await row.waitFor();
    await expectText(active, 'refuses connections');

    // Connect to it: refused, and the error sits under its row, in the window.
    const tray = scan.locator('[data-testid="scan-row"][data-name="Mode Tray"]');
    await tray.getByRole('button', { name: 'Connect Mode Tray' }).click();
    const error = scan.getByTestId('row-action-error');
    await error.waitFor({ timeout: 20_000 });
    // Said once, no address in another form: the row above names the board.
    expect((await error.innerText()).trim()).toBe(
      'connect: the board refused the connection: Connection Failed to be Established (0x3e)',
    );
    expect(
      await tray.evaluate(
        (tr) => tr.nextElementSibling?.querySelector('[data-testid="row-action-error"]') !== null,
      ),
    ).toBe(true);
    expect(await page.getByTestId('gatt-explorer').count()).toBe(0);
    await atEachSize(page, async (size) => {
      const box = await error.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
      await shoot(page, 'bench-mode');
    });
    expect(pageErrors).toEqual([]);
  });
});
