// Provisioning that explains itself (docs/decisions.md), through the UI: one board's steps live,
// a refused write stopped at once blaming the firmware (its GATT fits the profile), a lost link
// shown as a retry in the record, batch rows named, the plan's real next PSDI, and a held PSDI
// released from the audit log after a confirmation. The flow runs once; where the result shows
// (under the clicked row, in view) and the pictures are looked at in both window sizes.
// Screenshots go to test-results/ for a person.
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  createProduct,
  expectText,
  FLOW_SIZE,
  inView,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

const PSDI_CHARACTERISTIC = '8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00';
const PLATFORM_PSDI = '26e2b12b-85f0-4f3f-9fdd-91d114270e6e';

function board(name: string, address: string, faults: object = {}) {
  return {
    name,
    address,
    advertising: { intervalMs: 30 },
    provisioning: { profile: 'devicebench-v1', rebootMs: 50 },
    faults,
  };
}

describe('provisioning flows', () => {
  const prefix = 'XE-';
  const names = {
    refuser: 'E2E Refuser',
    dropper: 'E2E Dropper',
    keeper: 'E2E Keeper',
    tray: 'E2E Tray',
    long: 'E2E Long',
  };
  const product = 'Explained';
  /** A product with no batch of its own: the batch of `product` must not show under it. */
  const otherProduct = 'Explained elsewhere';

  it('sets up a product and boards', async () => {
    const { page } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, product);
    await createProduct(page, otherProduct);
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const sim = page.getByTestId('sim-bench');
    await sim.getByTestId('board-file').setInputFiles({
      name: 'explain.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({
          boards: [
            board(names.refuser, 'e8:12:9c:10:00:01', {
              refuseAccess: { operation: 'write', characteristic: PSDI_CHARACTERISTIC, code: 3 },
            }),
            board(names.dropper, 'e8:12:9c:10:00:02', {
              dropLinkDuringWrite: { characteristic: PSDI_CHARACTERISTIC },
            }),
            board(names.keeper, 'e8:12:9c:10:00:03', {
              refuseAccess: { operation: 'read', characteristic: PLATFORM_PSDI, code: 2 },
            }),
            { ...board(names.tray, 'e8:12:9c:10:01:01'), count: 2 },
            { ...board(names.long, 'e8:12:9c:10:02:01'), count: 4 },
          ],
        }),
      ),
    });
    await sim.getByTestId('sim-board').filter({ hasText: names.keeper }).waitFor();
    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: product });
    await plan.getByLabel('Prefix').fill(prefix);
    await expectText(plan.getByTestId('psdi-preview'), `${prefix}000001`);
  });

  async function provision(name: string) {
    const { page } = bench();
    const row = page
      .getByTestId('prov-scan')
      .locator(`[data-testid="scan-row"][data-name="${name}"]`);
    await row.getByRole('button', { name: `Provision ${name}` }).click();
    const result = page.getByTestId('single-result').filter({ hasText: name }).first();
    await result.waitFor({ timeout: 30_000 });
    // The steps and the result are where the click was: under the clicked row, both in view.
    const detail = page.getByTestId('prov-scan').getByTestId('row-detail');
    await detail.getByTestId('single-row-result').waitFor();
    await atEachSize(page, async () => {
      await expect.poll(() => inView(page, row)).toBe(true);
      await expect.poll(() => inView(page, detail.getByTestId('single-row-result'))).toBe(true);
      const [rowBox, detailBox] = [(await row.boundingBox())!, (await detail.boundingBox())!];
      expect(detailBox.y).toBeGreaterThanOrEqual(rowBox.y + rowBox.height - 1);
    });
    // The panel's hint is gone once it has a result.
    expect(await page.getByTestId('prov-single').innerText()).not.toContain('Choose “Provision”');
    return result;
  }

  it('a refused write stops at once, blames the firmware not the profile, and burns no PSDI', async () => {
    const { page, pageErrors } = bench();
    const result = await provision(names.refuser);
    await expectText(result, 'write not permitted');
    await expectText(result, 'its GATT matches profile devicebench-v1');
    expect(await result.innerText()).not.toContain('firmware derives the PSDI');
    // Said once: the one try that failed is the error itself, not a history line beside it.
    expect((await result.innerText()).split('write not permitted')).toHaveLength(2);
    expect(await result.getByTestId('record-history').count()).toBe(0);
    const steps = page.getByTestId('single-steps');
    // The steps follow the run's events, which may land just after its result.
    await expect
      .poll(() => steps.locator('[data-step="write"]').getAttribute('data-state'))
      .toBe('failed');
    expect(await steps.locator('[data-step="commit"]').getAttribute('data-state')).toBe('pending');
    await expectText(page.getByTestId('prov-plan').getByTestId('psdi-preview'), `${prefix}000001`);
    await expectText(page.getByTestId('single-row-result'), 'write not permitted');
    await atEachSize(page, () => shoot(page, 'provisioning-refused'));
    expect(pageErrors).toEqual([]);
  });

  it('shows each step live, a lost link as attempt 2, and the next PSDI after it', async () => {
    const { page, pageErrors } = bench();
    const result = await provision(names.dropper);
    await expectText(result, 'verified');
    await expectText(result, `${prefix}000001`);
    await expectText(result.getByTestId('record-history'), 'attempt 2 after link lost');
    const steps = page.getByTestId('single-steps');
    // Progress comes over the event stream, the result as the call's answer: either may land first.
    for (const step of ['select', 'reserve', 'connect', 'discover', 'write', 'commit', 'verify'])
      await expect
        .poll(() => steps.locator(`[data-step="${step}"]`).getAttribute('data-state'))
        .toBe('done');
    await expectText(steps.locator('[data-step="write"]'), 'attempt 2');
    // The step's line names the characteristic as the profile does, not by its UUID alone.
    await expectText(steps.locator('[data-step="write"]'), `writing PSDI (${PSDI_CHARACTERISTIC})`);
    expect(await steps.innerText()).not.toContain(`characteristic ${PSDI_CHARACTERISTIC}`);
    await expectText(page.getByTestId('prov-plan').getByTestId('psdi-preview'), `${prefix}000002`);
    await atEachSize(page, () => shoot(page, 'provisioning-steps'));
    expect(pageErrors).toEqual([]);
  });

  it('names the boards of a batch, under its own product only', async () => {
    const { page, pageErrors } = bench();
    const batch = page.getByTestId('prov-batch');
    // No batch ran yet: no summary before this one starts.
    expect(await batch.getByTestId('batch-summary').count()).toBe(0);
    await batch.getByLabel('Name contains').fill(names.tray);
    await batch.getByLabel('At most (boards)').fill('2');
    await batch.getByRole('button', { name: 'Start batch' }).click();
    await expect
      .poll(() => batch.getByTestId('batch-summary').getByRole('status').innerText(), {
        timeout: 30_000,
      })
      .toContain('Finished: 2 boards done');
    const cells = batch.getByTestId('batch-board-name');
    await expect
      .poll(async () =>
        (await cells.allInnerTexts()).map((t) => t.split(' ').slice(0, 3).join(' ')),
      )
      .toEqual(expect.arrayContaining([`${names.tray} 01`, `${names.tray} 02`]));
    await expectText(batch.getByTestId('batch-product'), `Batch of ${product}`);
    await atEachSize(page, () => shoot(page, 'provisioning-batch-names'));
    // Another product's plan shows none of it; back on this product, it is there again.
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: otherProduct });
    await expect.poll(() => batch.getByTestId('batch-summary').count()).toBe(0);
    await plan.getByLabel('Product').selectOption({ label: product });
    await expectText(batch.getByTestId('batch-product'), `Batch of ${product}`);
    await expectText(plan.getByTestId('psdi-preview'), prefix);
    expect(pageErrors).toEqual([]);
  });

  it('a stopped batch reads "n of m — stopped" and its bar is not full', async () => {
    const { page, pageErrors } = bench();
    const batch = page.getByTestId('prov-batch');
    await batch.getByLabel('Boards at once').fill('1');
    await batch.getByLabel('Name contains').fill(names.long);
    await batch.getByLabel('At most (boards)').fill('');
    await batch.getByRole('button', { name: 'Start batch' }).click();
    const status = batch.getByTestId('batch-summary').getByRole('status');
    await expect
      .poll(() => status.innerText(), { timeout: 30_000 })
      .toMatch(/^Running: [1-3] of 4/);
    await batch.getByRole('button', { name: 'Stop batch' }).click();
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/— stopped/);
    const [, done, total] = /^(\d+) of (\d+) — stopped/.exec(await status.innerText()) ?? [];
    expect(Number(total)).toBe(4);
    expect(Number(done)).toBeLessThan(4);
    const bar = batch.getByRole('progressbar', { name: 'Batch progress' });
    expect(Number(await bar.getAttribute('max'))).toBe(4);
    expect(Number(await bar.getAttribute('value'))).toBe(Number(done));
    await expectText(batch.getByTestId('batch-product'), `Batch of ${product}`);
    await atEachSize(page, async () => {
      await batch.scrollIntoViewIfNeeded();
      await shoot(page, 'provisioning-batch-stopped');
    });
    expect(pageErrors).toEqual([]);
  });

  it('releases a held PSDI from the audit log after a confirmation, and logs it', async () => {
    const { page, pageErrors } = bench();
    const result = await provision(names.keeper);
    await expectText(result, 'failed');
    await page.getByRole('button', { name: 'Audit log', exact: true }).click();
    const log = page.getByTestId('audit-log');
    await log.getByLabel('Product').selectOption({ label: product });
    const row = log.getByTestId('audit-row').filter({ hasText: names.keeper });
    await row.waitFor();
    const psdi = (await row.locator('td').nth(2).innerText()).trim();
    // The release is in the record's details, where the history says what happened.
    await row.getByRole('button', { name: `Details of ${psdi}` }).click();
    const details = log.getByTestId('audit-details');
    // The read-back refused by rule ended the run at once: its error, no retry in the history.
    await expectText(details, 'step verify: the board refused the read-back of the PSDI');
    await expectText(details, 'read not permitted');
    const release = details.getByRole('button', { name: `Release PSDI ${psdi}` });
    await release.click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, 'may carry');
    // Cancel first: nothing changes.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await row.getAttribute('data-state')).toBe('failed');
    await release.click();
    await dialog.getByLabel('Why it can be used again').fill('board erased on the bench');
    await atEachSize(page, () => shoot(page, 'provisioning-release-confirm'));
    await dialog.getByRole('button', { name: 'Release PSDI' }).click();
    await dialog.waitFor({ state: 'detached' });
    const released = log.getByTestId('audit-row').filter({ hasText: names.keeper });
    await expect.poll(() => released.getAttribute('data-state')).toBe('released');
    expect(await release.count()).toBe(0);
    await expectText(details, 'released by');
    await expectText(details, 'board erased on the bench');
    await atEachSize(page, () => shoot(page, 'provisioning-released'));
    // Back on Provisioning, the released PSDI is the next one again.
    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: product });
    await expectText(plan.getByTestId('psdi-preview'), psdi);
    expect(pageErrors).toEqual([]);
  });
});
