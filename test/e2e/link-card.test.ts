// A connected board is a card in view: Connect brings its link card and
// GATT table into view and the row says Connected; the card shows the controller's numbers and
// follows the requests (connection parameters, PHY, pairing as asked, an MTU through a reconnect)
// and says how the link is secured (method, key, bond); a bad request names its field; several
// connected boards are several cards. The flow runs once; what must be in view, and the
// pictures, are looked at in both window sizes.
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, inView, shoot, useBench } from './fixture';

// The default controller: the link's parameters as a common dongle sets them are what is shown.
const bench = useBench({ adapter: 'default' });

describe('the link card', () => {
  it('connects, shows the link in view, and changes it through the controller', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page
      .getByRole('navigation', { name: 'Areas' })
      .getByRole('button', { name: 'BLE bench', exact: true })
      .click();
    const scan = page.getByTestId('ble-scan');
    const row = scan.locator('[data-testid="scan-row"][data-name="DB Sensor"]');
    await row.getByRole('button', { name: 'Connect DB Sensor' }).click();

    const board = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Sensor' });
    const card = board.getByTestId('link-card');
    await expectText(card.getByTestId('link-state'), 'Connected');
    await expectText(row.getByTestId('row-status'), 'Connected');
    expect(await row.getByRole('button', { name: 'Disconnect DB Sensor' }).count()).toBe(1);
    // The card and the first characteristic of its GATT table are in the window, unscrolled.
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, card)).toBe(true);
      await expect.poll(() => inView(page, board.getByTestId('characteristic').first())).toBe(true);
    });
    await expectText(card.getByTestId('link-interval'), '15 ms');
    await expectText(card.getByTestId('link-timeout'), '420 ms');
    await expectText(card.getByTestId('link-mtu'), '185');
    await expectText(card.getByTestId('link-phy'), 'LE 1M');
    await expectText(card.getByTestId('link-security'), 'Level 1');
    await expect.poll(() => card.getByTestId('link-rssi').innerText()).toMatch(/^-\d+ dBm$/);
    await atEachSize(page, () => shoot(page, 'link-card-connected'));

    // A timeout the spec forbids is refused at its field, before anything is sent.
    const parameters = card.getByRole('form', { name: 'Connection parameters' });
    await parameters.getByLabel('Max interval (ms)').fill('100');
    await parameters.getByLabel('Timeout (ms)').fill('150');
    await parameters.getByRole('button', { name: 'Update parameters' }).click();
    await expectText(parameters, 'more than (1 + latency) × maximum interval × 2 = 200 ms');
    await parameters.getByLabel('Max interval (ms)').fill('50');
    await parameters.getByLabel('Timeout (ms)').fill('4000');
    await parameters.getByRole('button', { name: 'Update parameters' }).click();
    await expectText(card.getByTestId('link-interval'), '30 ms');
    await expectText(card.getByTestId('link-timeout'), '4000 ms');

    const phy = card.getByRole('form', { name: 'PHY' });
    await phy.getByLabel('PHY').selectOption('2M');
    await phy.getByRole('button', { name: 'Set PHY' }).click();
    await expectText(card.getByTestId('link-phy'), 'LE 2M');
    // Pair as asked, here without a bond: the card says how the link is secured.
    const pairing = card.getByRole('form', { name: 'Pairing' });
    expect(await card.getByTestId('link-key').count()).toBe(0);
    await pairing.getByLabel('Bond').uncheck();
    await pairing.getByRole('button', { name: 'Pair' }).click();
    await expectText(card.getByTestId('link-security'), 'Level 2');
    await expectText(card.getByTestId('link-pairing'), 'Just Works');
    await expectText(card.getByTestId('link-key'), 'LE legacy · unauthenticated · 16 octets');
    await expectText(card.getByTestId('link-bond'), 'Not bonded');
    expect(await pairing.getByRole('button', { name: 'Paired' }).isDisabled()).toBe(true);
    // The log says what was asked and what the link became.
    await expectText(board.getByRole('table', { name: 'GATT log entries' }), 'asked for a PHY');
    await atEachSize(page, async () => {
      expect(await inView(page, card)).toBe(true);
      await shoot(page, 'link-card-changed');
    });

    // ATT exchanges the MTU once per link: asking for another reconnects, and the card shows
    // the smaller of the ask and the board's own (185). Out of range is refused at the field.
    const mtu = card.getByRole('form', { name: 'MTU' });
    await mtu.getByLabel('MTU to ask (23–517)').fill('600');
    await mtu.getByRole('button', { name: 'Reconnect with this MTU' }).click();
    await expectText(mtu, 'must be at most 517');
    await mtu.getByLabel('MTU to ask (23–517)').fill('100');
    await mtu.getByRole('button', { name: 'Reconnect with this MTU' }).click();
    await expectText(card.getByTestId('link-mtu'), '100');
    expect(await mtu.getByLabel('MTU to ask (23–517)').inputValue()).toBe('100');
    await expectText(card.getByTestId('link-state'), 'Connected');
    await expectText(board.getByRole('table', { name: 'GATT log entries' }), 'asked for 100');
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, card.getByTestId('link-mtu'))).toBe(true);
      await shoot(page, 'link-card-mtu');
    });

    // A second board is a second card.
    const starter = scan.locator('[data-testid="scan-row"][data-name="DB Starter"]');
    await starter.getByRole('button', { name: 'Connect DB Starter' }).click();
    const second = page.locator('[data-testid="gatt-explorer"]', { hasText: 'DB Starter' });
    await expectText(second.getByTestId('link-state'), 'Connected');
    expect(await page.getByTestId('link-card').count()).toBe(2);
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, second.getByTestId('link-card'))).toBe(true);
      await shoot(page, 'link-card-two-boards');
    });

    // The options reach the station's Security Manager: MITM asked of a board that can only do
    // Just Works is refused in words, and nothing is encrypted; without MITM it pairs and bonds.
    const secondPairing = second.getByRole('form', { name: 'Pairing' });
    await secondPairing.getByLabel('MITM').check();
    await secondPairing.getByRole('button', { name: 'Pair' }).click();
    await expectText(second.getByTestId('link-card'), 'authentication requirements');
    await expectText(second.getByTestId('link-security'), 'Level 1');
    await secondPairing.getByLabel('MITM').uncheck();
    await secondPairing.getByRole('button', { name: 'Pair' }).click();
    await expectText(second.getByTestId('link-bond'), 'Bonded');
    await expectText(second.getByTestId('link-pairing'), 'Just Works');
    await atEachSize(page, async () => {
      expect(await inView(page, second.getByTestId('link-bond'))).toBe(true);
      await shoot(page, 'link-card-bonded');
    });

    // A Disconnect keeps the card, with Reconnect, until it is dismissed.
    await starter.getByRole('button', { name: 'Disconnect DB Starter' }).click();
    await second.getByRole('button', { name: 'Dismiss' }).click();
    await second.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Disconnect DB Sensor' }).click();
    await board.getByRole('button', { name: 'Dismiss' }).click();
    await board.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Connect DB Sensor' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
