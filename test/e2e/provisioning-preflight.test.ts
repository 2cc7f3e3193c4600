// A batch over the default simulated bench (nRF52, sensor, ESP32, starter and Zephyr Secure
// boards) with devicebench-v1, through the UI: the boards whose firmware derives the PSDI are
// skipped with the reason and the profile that fits them, in view, and the batch spends exactly
// as many PSDIs as boards it verified (the plan's next PSDI says so). The Zephyr Secure board asks
// for pairing the profile does not state: the batch asks its passkey in view, in every window;
// refused in the second window, the board fails in the window's words under its pair step, and
// the prompt leaves every window (issue 45, point 3). The batch runs once; the prompt in view and
// the skip reasons whole in the window, the pill and the PSDIs on one line, are checked at both
// window sizes (atEachSize).
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  expectText,
  FLOW_SIZE,
  useBench,
  shoot,
  createProduct,
  inView,
} from './fixture';
import { PAIRING_FAILED } from '../../src/core/usecases/provisioning/batch-events';

const bench = useBench();

const SKIP_REASON =
  'does not match profile devicebench-v1: its PSDI characteristic (8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00) does not allow write (it allows read); it matches "DeviceBench v1 (firmware derives the PSDI)" (devicebench-v1-device-psdi) or "Platform starter firmware" (platform-starter). Nothing was reserved or written.';

describe('a batch over the mixed bench', () => {
  const product = 'Mixed';

  it('skips the boards of another profile with their reason and spends a PSDI per verified board', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, product);

    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: product });
    await plan.getByLabel('Prefix').fill('MX-');
    await expectText(plan.getByTestId('psdi-preview'), 'MX-000001');

    // A second window, to see the passkey prompt there and answer it from there.
    const other = await bench().context.newPage();
    await other.setViewportSize(FLOW_SIZE);
    await other.goto(bench().url);
    const asks = (p: typeof page) =>
      p.getByRole('alertdialog', { name: /Enter the passkey DB Zephyr Secure shows/ });

    const batch = page.getByTestId('prov-batch');
    await batch.getByLabel('Only boards that match the profile').check();
    await batch.getByRole('button', { name: 'Start batch' }).click();
    await asks(page).getByLabel('Passkey').waitFor({ timeout: 30_000 });
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, asks(page))).toBe(true);
    });
    await asks(other).getByRole('button', { name: 'Reject' }).click();
    const status = batch.getByTestId('batch-summary').getByRole('status');
    await expect
      .poll(() => status.innerText(), { timeout: 40_000 })
      .toMatch(
        /^Finished: 3 boards done — 2 verified, 1 failed, 0 in progress; 2 of another profile skipped, no PSDI reserved$/,
      );

    const rows = batch.getByTestId('batch-board');
    for (const name of ['DB ESP32-C3', 'DB Starter']) {
      const row = rows.filter({ hasText: name });
      await expectText(row, 'skipped');
      expect(await row.getByTestId('batch-board-detail').innerText()).toBe(SKIP_REASON);
    }
    for (const name of ['DB nRF52 DK', 'DB Sensor'])
      await expectText(rows.filter({ hasText: name }), 'verified');
    // The Zephyr Secure board fits the layout but guards it at level 4: its refused pairing is
    // the pair step's, in two sentences naming the window's own forms, the reason behind
    // Details; and its prompt has left both windows.
    const secure = rows.filter({ hasText: 'DB Zephyr Secure' });
    await expectText(secure, 'pair failed');
    const detail = secure.getByTestId('batch-board-detail');
    expect(await detail.innerText()).toBe(`${PAIRING_FAILED}\nDetails`);
    await detail.getByText('Details', { exact: true }).click();
    await expectText(detail, '0x01 passkey entry failed');
    expect(await detail.innerText()).not.toMatch(/--passkey|--io-capability/);
    for (const window of [page, other])
      await expect
        .poll(() => window.getByRole('region', { name: 'Pairing requests' }).count())
        .toBe(0);
    await other.close();

    // PSDIs spent == boards verified: the next one is the third.
    await expectText(plan.getByTestId('psdi-preview'), 'MX-000003');

    // The reasons are read where they are: in the window, whole, no sideways scroll.
    const reason = rows.filter({ hasText: 'DB Starter' }).getByTestId('batch-board-detail');
    type Box = {
      scrollWidth: number;
      clientWidth: number;
      scrollHeight: number;
      clientHeight: number;
    };
    const fits = (el: Box) =>
      el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight;
    await atEachSize(page, async (size) => {
      await reason.scrollIntoViewIfNeeded();
      const box = await reason.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
      expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
      expect(await reason.evaluate(fits)).toBe(true);
      expect(
        await page.locator('html').evaluate((el: Box) => el.scrollWidth <= el.clientWidth),
      ).toBe(true);
      // The failed board's step is one pill on one line, not "pair" over "failed".
      const pill = secure.getByText('pair failed', { exact: true });
      const lines = await pill.evaluate(
        (el: { getClientRects(): { length: number } }) => el.getClientRects().length,
      );
      expect(lines).toBe(1);
      const pillBox = await pill.boundingBox();
      expect(pillBox!.height).toBeLessThan(20);
      // A verified board's PSDI is one line, not "MX-" over "000001".
      for (const name of ['DB nRF52 DK', 'DB Sensor']) {
        const psdi = rows.filter({ hasText: name }).getByText(/^MX-\d{6}$/);
        // Lines of the text itself: a cell's own box is one rectangle however it wraps.
        type TextRange = { selectNodeContents(node: unknown): void; getClientRects(): unknown[] };
        const psdiLines = await psdi.evaluate(
          (el: { ownerDocument: { createRange(): TextRange } }) => {
            const range = el.ownerDocument.createRange();
            range.selectNodeContents(el);
            return range.getClientRects().length;
          },
        );
        expect(psdiLines).toBe(1);
      }
      await shoot(page, 'provisioning-preflight-skipped');
    });
    expect(pageErrors).toEqual([]);
  });
});
