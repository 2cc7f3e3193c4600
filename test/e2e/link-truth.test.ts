// The bench shows what the BLE process holds (docs/decisions.md, "The BLE process holds the
// links"): a second window and a reload show the same connected board with Disconnect; adding an
// adapter keeps a live link and says so; closing the link's adapter and restarting the BLE
// process ask first, naming the link, and say what they closed; a link the board dropped
// reconnects with its log and values, its old error marked stale. Each flow runs once; what must
// be in view, and the pictures, are looked at in both window sizes.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  expectText,
  FLOW_SIZE,
  inView,
  nav,
  opStatus,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

const SENSOR_ID = 'd63a41002001';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const BUTTON = 'a3c80001-7f2e-4b61-9c0d-5e1f2a3b4c5d';

function card(page: Page): Locator {
  return page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Sensor' });
}

function sensorRow(page: Page): Locator {
  return page.getByTestId('ble-scan').locator('[data-testid="scan-row"][data-name="DB Sensor"]');
}

/** Opens the BLE bench and connects DB Sensor, until its card says connected. */
async function connectSensor(page: Page): Promise<void> {
  await nav(page, 'BLE bench').click();
  await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).click();
  await expectText(card(page).getByTestId('gatt-connection-state'), 'connected');
}

describe('the links the BLE process holds', () => {
  it('shows the connected board in a second window and after a reload, with Disconnect', async () => {
    const { page, context, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await connectSensor(page);
    await card(page)
      .getByRole('button', { name: `Read ${TEMPERATURE}` })
      .click();
    const value = card(page).locator(
      `[data-testid="characteristic"][data-uuid="${TEMPERATURE.replace(/-/g, '')}"]`,
    );
    await value.getByTestId('read-value').waitFor();

    const other = await context.newPage();
    try {
      await other.setViewportSize(FLOW_SIZE);
      await other.goto(url);
      await nav(other, 'BLE bench').click();
      await expectText(card(other).getByTestId('gatt-connection-state'), 'connected');
      await expectText(card(other).getByTestId('link-state'), 'Connected');
      await card(other).getByRole('button', { name: 'Disconnect' }).waitFor();
      // The same log and the value read in the first window.
      await expectText(card(other).getByRole('table', { name: 'GATT log entries' }), 'read');
      await card(other)
        .locator(`[data-testid="characteristic"][data-uuid="${TEMPERATURE.replace(/-/g, '')}"]`)
        .getByTestId('read-value')
        .waitFor();
      await atEachSize(other, async () => {
        await expect.poll(() => inView(other, card(other).getByTestId('link-card'))).toBe(true);
        await shoot(other, 'link-truth-second-window');
      });

      // A reload of the first window keeps the card.
      await page.reload();
      await nav(page, 'BLE bench').click();
      await card(page).getByRole('button', { name: 'Disconnect' }).waitFor();
      await expectText(card(page).getByRole('table', { name: 'GATT log entries' }), 'read');
      await atEachSize(page, () => shoot(page, 'link-truth-reloaded'));

      // Disconnect in one window ends the card in both.
      await card(other).getByRole('button', { name: 'Disconnect' }).click();
      await card(other).getByRole('button', { name: 'Dismiss' }).click();
      await card(page).waitFor({ state: 'detached' });
      await card(other).waitFor({ state: 'detached' });
      await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).waitFor();
    } finally {
      await other.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('adds an adapter beside a live link, asks before closing the link’s adapter, and says what a restart closed', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await connectSensor(page);
    const adapter = page.getByTestId('ble-adapter');
    const said = adapter.getByTestId('adapter-said');

    await adapter.getByLabel('Add an adapter').fill('hci0');
    await adapter.getByRole('button', { name: 'Add', exact: true }).click();
    await adapter.locator('[data-testid="adapter-row"][data-spec="hci0"]').waitFor();
    await expectText(said, 'Added hci0 without restarting the BLE process; every link stayed up.');
    await expectText(card(page).getByTestId('gatt-connection-state'), 'connected');
    await expectText(
      adapter.locator('[data-testid="adapter-row"][data-spec="sim"]').getByTestId('adapter-links'),
      '1/5 links',
    );
    await atEachSize(page, () => shoot(page, 'link-truth-adapter-added'));

    // Removing the adapter the link goes through names the link and asks; Cancel keeps both.
    await adapter.getByRole('button', { name: 'Remove adapter 1 (sim)' }).click();
    const confirm = adapter.getByTestId('adapter-confirm');
    await expectText(confirm, 'Removing sim drops 1 link: DB Sensor');
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, confirm)).toBe(true);
      await shoot(page, 'link-truth-adapter-confirm');
    });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await adapter.locator('[data-testid="adapter-row"][data-spec="sim"]').count()).toBe(1);

    // Removing the other one drops nothing and asks nothing.
    await adapter.getByRole('button', { name: 'Remove adapter 2 (hci0)' }).click();
    await expectText(
      said,
      'Removed hci0 without restarting the BLE process; every link stayed up.',
    );
    await expectText(card(page).getByTestId('gatt-connection-state'), 'connected');

    // A restart asks, then says what it closed; the card goes with the link.
    await adapter.getByRole('button', { name: 'Restart BLE process' }).click();
    await expectText(confirm, 'Restarting the BLE process drops 1 link: DB Sensor');
    await confirm.getByRole('button', { name: 'Restart and drop' }).click();
    await expectText(said, 'Restarted the BLE process');
    await expectText(said, 'it closed 1 link: DB Sensor');
    await card(page).waitFor({ state: 'detached' });
    await atEachSize(page, () => shoot(page, 'link-truth-restarted'));
    await sensorRow(page).getByRole('button', { name: 'Connect DB Sensor' }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('reconnects a dropped link with its log and values, the old error marked stale', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await connectSensor(page);
    const board = card(page);
    const temperature = board.locator(
      `[data-testid="characteristic"][data-uuid="${TEMPERATURE.replace(/-/g, '')}"]`,
    );
    await temperature.getByRole('button', { name: `Read ${TEMPERATURE}` }).click();
    const read = temperature.getByTestId('read-value');
    await read.waitFor();
    const valueBefore = await read.innerText();
    // Notifications of the board's button are on before the drop.
    const subscribe = board.getByRole('button', { name: `Subscribe to ${BUTTON}` });
    const unsubscribe = board.getByRole('button', { name: `Unsubscribe from ${BUTTON}` });
    await subscribe.click();
    await unsubscribe.waitFor();
    const log = board.getByRole('table', { name: 'GATT log entries' });
    const notifications = log.locator('[data-testid="gatt-log-entry"]', { hasText: 'notify' });
    /** Presses the board's button and waits for its notification in the log. */
    const pressed = async () => {
      const before = await notifications.count();
      expect(await opStatus(page, 'sim:pressButton', { boardId: SENSOR_ID })).toBe(200);
      await expect.poll(() => notifications.count()).toBe(before + 1);
    };
    await pressed();

    // The board drops the link during the next write to its LED.
    expect(
      await opStatus(page, 'sim:setFaults', {
        boardId: SENSOR_ID,
        dropLinkDuringWrite: true,
        dropLinkCharacteristic: LED,
      }),
    ).toBe(200);
    const led = board.locator(
      `[data-testid="characteristic"][data-uuid="${LED.replace(/-/g, '')}"]`,
    );
    await led.getByRole('textbox').fill('01');
    await led.getByRole('button', { name: 'Write' }).click();
    await expectText(board.getByTestId('gatt-connection-state'), 'disconnected');
    await board.getByTestId('link-dropped').waitFor();
    await expectText(led.getByTestId('stale-error'), 'stale');
    await expectText(led.getByTestId('stale-error'), 'from before the link dropped');
    const reconnect = board.getByRole('button', { name: 'Reconnect', exact: true });
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, reconnect)).toBe(true);
      await shoot(page, 'link-truth-dropped');
    });
    expect(
      await opStatus(page, 'sim:setFaults', { boardId: SENSOR_ID, dropLinkDuringWrite: false }),
    ).toBe(200);

    await reconnect.click();
    await expectText(board.getByTestId('gatt-connection-state'), 'connected');
    await expectText(board.getByTestId('link-state'), 'Connected');
    // The log and the value read before the drop are still there; the error stays marked stale.
    await expectText(log, 'reconnected');
    expect(await log.innerText()).toMatch(
      /read[\s\S]*Temperature[\s\S]*disconnect[\s\S]*error\s+stale[\s\S]*reconnected: MTU/,
    );
    expect(await read.innerText()).toBe(valueBefore);
    await expectText(led.getByTestId('stale-error'), 'from before the link was made again');
    await expectText(log, 'stale');
    // The button's notifications were renewed on the new link, without a click.
    await unsubscribe.waitFor();
    await expectText(log, 'renewed');
    await pressed();
    await atEachSize(page, () => shoot(page, 'link-truth-reconnected'));

    // A new MTU is a new link too: the log and values stay.
    const mtu = board.getByRole('form', { name: 'MTU' });
    await mtu.getByLabel('MTU to ask (23–517)').fill('100');
    await mtu.getByRole('button', { name: 'Reconnect with this MTU' }).click();
    await expectText(board.getByTestId('link-mtu'), '100');
    await expectText(log, 'asked for 100');
    expect(await read.innerText()).toBe(valueBefore);
    expect(await log.innerText()).toMatch(/read/);
    // …and the subscription is renewed across the new MTU too.
    await unsubscribe.waitFor();
    await pressed();
    // The write works on the new link, and its error no longer shows.
    await led.getByRole('button', { name: 'Write' }).click();
    await led.getByTestId('stale-error').waitFor({ state: 'detached' });
    await expectText(log, 'write');

    await board.getByRole('button', { name: 'Disconnect' }).click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await board.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('clears the log in the BLE process: a reload and a second window find it empty', async () => {
    const { page, context, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await connectSensor(page);
    await card(page)
      .getByRole('button', { name: `Read ${TEMPERATURE}` })
      .click();
    const entries = (p: Page) => card(p).getByTestId('gatt-log-entry');
    await expect.poll(() => entries(page).count()).toBeGreaterThanOrEqual(3);
    const other = await context.newPage();
    try {
      await other.setViewportSize(FLOW_SIZE);
      await other.goto(url);
      await nav(other, 'BLE bench').click();
      await expect.poll(() => entries(other).count()).toBeGreaterThanOrEqual(3);

      const clear = card(page).getByRole('button', { name: 'Clear log' });
      await clear.click();
      // Both windows empty at once, and a reload does not bring it back.
      await expect.poll(() => entries(page).count()).toBe(0);
      await expect.poll(() => entries(other).count()).toBe(0);
      await page.reload();
      await nav(page, 'BLE bench').click();
      await card(page).getByRole('button', { name: 'Disconnect' }).waitFor();
      await page.waitForTimeout(300);
      expect(await entries(page).count()).toBe(0);
      await atEachSize(page, () => shoot(page, 'link-truth-log-cleared'));

      // What happens next is logged as before, in both windows.
      await card(page)
        .getByRole('button', { name: `Read ${TEMPERATURE}` })
        .click();
      await expectText(card(other).getByRole('table', { name: 'GATT log entries' }), 'read');
      expect(await entries(page).count()).toBe(1);
      await card(page).getByRole('button', { name: 'Disconnect' }).click();
      await card(page).getByRole('button', { name: 'Dismiss' }).click();
      await card(page).waitFor({ state: 'detached' });
    } finally {
      await other.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
