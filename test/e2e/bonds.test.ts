// The station's bonds on the BLE bench: the Zephyr Secure board (loaded from its board file)
// paired with its passkey is listed under the simulated adapter with its name and key; Forget
// empties the list in every window while the link stays encrypted; connected again, the pairing
// asks for the passkey again, and Forget all, once confirmed, empties the list again. The flow
// runs once; its pictures are taken at both window sizes (atEachSize).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  expectText,
  FLOW_SIZE,
  nav,
  shoot,
  useBench,
  secureBoardFile,
} from './fixture';

const bench = useBench();
/** The fixed passkey resources/sim/zephyr-secure.json shows on its display. */
const PASSKEY = '246801';

/** Connects to `name` from the scan and pairs with MITM, typing the passkey it asks for. */
async function connectAndPair(page: Page, name: string): Promise<Locator> {
  const row = page.getByTestId('ble-scan').locator(`[data-testid="scan-row"][data-name="${name}"]`);
  await row.getByRole('button', { name: `Connect ${name}` }).click();
  const board = page.locator('[data-testid="gatt-explorer"]', { hasText: name });
  const card = board.getByTestId('link-card');
  await expectText(card.getByTestId('link-state'), 'Connected');
  const pairing = card.getByRole('form', { name: 'Pairing' });
  await pairing.getByLabel('IO capability').selectOption('keyboardDisplay');
  await pairing.getByLabel('MITM').check();
  await pairing.getByRole('button', { name: 'Pair' }).click();
  const prompt = page.getByRole('alertdialog', { name: new RegExp(`Enter the passkey ${name}`) });
  await expectText(prompt, 'Enter the passkey');
  await prompt.getByLabel('Passkey').fill(PASSKEY);
  await prompt.getByRole('button', { name: 'Pair' }).click();
  await expectText(card.getByTestId('link-security'), 'Level 4');
  return board;
}

describe('bonds on the BLE bench', () => {
  it('lists the paired board under its adapter, forgets it, and pairs afresh after', async () => {
    const { page, context, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const BOARD = 'Bond Secure';
    const ADDRESS = 'e8:2b:7c:60:00:01';
    await nav(page, 'BLE bench').click();
    await page
      .getByTestId('sim-bench')
      .getByTestId('board-file')
      .setInputFiles({
        name: 'bond-secure.json',
        mimeType: 'application/json',
        buffer: secureBoardFile(BOARD, ADDRESS),
      });
    const bonds = page.getByTestId('ble-bonds');
    const adapter = bonds.locator('[data-testid="adapter-bonds"][data-spec="sim"]');
    await expectText(adapter, 'No bonds on this adapter');

    let board = await connectAndPair(page, BOARD);
    const row = adapter.locator(`[data-testid="bond-row"][data-board="${ADDRESS}"]`);
    await expectText(row, BOARD);
    await expectText(row, 'LE Secure Connections · authenticated · 16 octets');
    await expectText(row, 'Passkey Entry');
    await atEachSize(page, async () => {
      await row.scrollIntoViewIfNeeded();
      await shoot(page, 'bonds-listed');
    });
    // A second window on the same app follows the bonds too.
    const other = await context.newPage();
    await other.setViewportSize(FLOW_SIZE);
    await other.goto(url);
    await nav(other, 'BLE bench').click();
    const otherAdapter = other
      .getByTestId('ble-bonds')
      .locator('[data-testid="adapter-bonds"][data-spec="sim"]');
    await expectText(otherAdapter, BOARD);

    await row.getByRole('button', { name: `Forget ${BOARD} (${ADDRESS})` }).click();
    await expectText(adapter.getByTestId('bonds-said'), 'Forgot 1 bond.');
    await expectText(adapter, 'No bonds on this adapter');
    expect(await row.count()).toBe(0);
    await expectText(otherAdapter, 'No bonds on this adapter');
    await other.close();
    // The open link keeps its encryption until it drops.
    await expectText(board.getByTestId('link-card').getByTestId('link-security'), 'Level 4');
    await atEachSize(page, () => shoot(page, 'bonds-forgotten'));
    await board.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => board.count()).toBe(0);

    // Connected again: no bond to encrypt with, so the pairing asks for the passkey again.
    board = await connectAndPair(page, BOARD);
    await expectText(row, BOARD);
    await adapter.getByRole('button', { name: 'Forget all bonds of adapter 1' }).click();
    const confirm = adapter.getByRole('alertdialog', { name: 'Forget all bonds of adapter 1' });
    await expectText(confirm, `Forget 1 bond of Adapter 1: ${BOARD} (${ADDRESS})?`);
    await atEachSize(page, async () => {
      await confirm.scrollIntoViewIfNeeded();
      await shoot(page, 'bonds-forget-all');
    });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expectText(row, BOARD);
    await adapter.getByRole('button', { name: 'Forget all bonds of adapter 1' }).click();
    await confirm.getByRole('button', { name: 'Forget all' }).click();
    await expectText(adapter, 'No bonds on this adapter');

    await board.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => board.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
