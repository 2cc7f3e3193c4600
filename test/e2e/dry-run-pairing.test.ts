// A dry run that pairs as a phone does, against the Zephyr Secure board (LE Secure Connections
// only, the passkey 246801 on its display; loaded by the test, so it starts unbonded): the option
// on the run panel, the board's passkey asked in the pairing prompt and typed there, the pairing
// and the encryption drawn on the link lane with their method and key, and the next connection
// encrypted with the bond, without pairing again. The run happens once; the prompt and the
// timeline are pictured in both window sizes.
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  chooseRun,
  createProduct,
  expectText,
  FLOW_SIZE,
  loadSecureBoards,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

/** One connection that reads the board's maker name, then closes. */
const readMaker = {
  autoClose: true,
  suppressionInterval: 0,
  scenarios: [
    {
      id: 'maker',
      trigger: { type: 'IMMEDIATE' },
      actions: [
        {
          type: 'GATT_READ',
          serviceUuid: '0000180a-0000-1000-8000-00805f9b34fb',
          characteristicUuid: '00002a29-0000-1000-8000-00805f9b34fb',
        },
      ],
    },
  ],
};

describe('a dry run that pairs as a phone does', () => {
  it('asks for the passkey, then draws the pairing and the encryption', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const BOARD = 'DR Secure';
    await loadSecureBoards(page, BOARD, 'e8:2b:7c:60:00:01');
    const product = 'Paired run';
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, product);

    const panel = await chooseRun(page, product, BOARD, {
      name: 'read-maker.json',
      json: readMaker,
    });
    await panel.getByLabel('Run length').selectOption('cycles');
    await panel.getByLabel('Connections').fill('2');
    await panel.getByLabel(/Pair as a phone does/).check();
    await panel.getByRole('button', { name: 'Start dry run' }).click();

    const prompt = page.getByRole('alertdialog', {
      name: new RegExp(`Enter the passkey ${BOARD}`),
    });
    await expectText(prompt, 'Enter the passkey');
    await atEachSize(page, () => shoot(page, 'dry-run-pairing-prompt'));
    await prompt.getByLabel('Passkey').fill('246801');
    await prompt.getByRole('button', { name: 'Pair' }).click();

    const view = page.getByTestId('run-view');
    await expect
      .poll(() => view.getByTestId('run-state').innerText(), { timeout: 60_000 })
      .toContain('finished (connections done)');
    await expectText(view.getByTestId('run-results'), '2 · 0 failed');
    await view.getByRole('button', { name: 'Fit', exact: true }).click();
    const link = view.getByTestId('timeline-lane-link');
    const paired = link.locator('[data-testid="timeline-block"][data-kind="paired"]');
    const encrypted = link.locator('[data-testid="timeline-block"][data-kind="encrypted"]');
    // One pairing; the second connection is encrypted with the bond.
    await expect.poll(() => paired.count()).toBe(1);
    await expect.poll(() => encrypted.count()).toBe(2);
    expect(await link.locator('[data-kind="pairing-failed"]').count()).toBe(0);

    const detail = view.getByTestId('timeline-detail');
    await paired.click();
    await expectText(detail, 'Paired, Passkey Entry');
    await expectText(detail, 'LE Secure Connections · authenticated · 16 octets');
    await encrypted.first().click();
    await expectText(detail, 'Encrypted, LE Secure Connections · authenticated');
    await encrypted.last().click();
    await expectText(detail, 'Encrypted with the bond, LE Secure Connections · authenticated');
    await atEachSize(page, () => shoot(page, 'dry-run-pairing-timeline'));
    expect(pageErrors).toEqual([]);
  });
});
