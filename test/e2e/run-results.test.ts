// A dry run's outcome where the eye is, and a Start page that tells the saved set's runs from the
// draft's. The product's set is saved through the contract (as the CLI or another station
// would), so the run panel must offer it without the editor's help. Each run happens once; what
// is in view, the table's wrapping and the pictures are checked at both window sizes
// (atEachSize).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, shoot, useBench } from './fixture';

const bench = useBench();

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** A write the board refuses: GATT_ERROR on every connection. */
const refusedWrite = {
  autoClose: true,
  suppressionInterval: 0,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: SENSOR, characteristicUuid: TEMPERATURE, data: 'AQ==' },
      ],
    },
  ],
};
/** A read the board allows. */
const allowedRead = {
  autoClose: true,
  suppressionInterval: 0,
  scenarios: [
    {
      id: 'read-the-temperature',
      trigger: { type: 'IMMEDIATE' },
      actions: [{ type: 'GATT_READ', serviceUuid: SENSOR, characteristicUuid: TEMPERATURE }],
    },
  ],
};

/** One contract operation through the bench server, as any other client would call it. */
async function call<T>(page: Page, op: string, input: unknown): Promise<T> {
  const body = JSON.stringify(input);
  const result = (await page.evaluate(
    `fetch('/api/ops/${op}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(body)} }).then((r) => r.json())`,
  )) as { ok: boolean; value: T };
  expect(result.ok).toBe(true);
  return result.value;
}

/** Whole inside the window, without scrolling. */
async function expectInView(page: Page, locator: Locator): Promise<void> {
  const box = (await locator.boundingBox())!;
  const size = page.viewportSize()!;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(size.height);
  expect(box.x + box.width).toBeLessThanOrEqual(size.width);
}

function widths(locator: Locator): Promise<[number, number]> {
  return locator.evaluate((el: { scrollWidth: number; clientWidth: number }) => [
    el.scrollWidth,
    el.clientWidth,
  ]);
}

async function startRun(page: Page, source: RegExp): Promise<Locator> {
  const panel = page.getByTestId('run-panel');
  await panel.getByRole('radio', { name: source }).check();
  const boardSelect = panel.getByTestId('run-board');
  const sensor = boardSelect.locator('option', { hasText: 'DB Sensor' });
  await sensor.waitFor({ state: 'attached' });
  await boardSelect.selectOption((await sensor.getAttribute('value')) ?? '');
  await panel.getByLabel('Connections').fill('1');
  await panel.getByRole('button', { name: 'Start dry run' }).click();
  await expectText(page.getByTestId('run-view').getByTestId('run-state'), 'finished');
  return panel.getByTestId('run-outcome');
}

describe('a dry run’s outcome in view', () => {
  it('offers a set saved elsewhere, and says how its run ended where Start is', async () => {
    const { page, url, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const product = await call<{ id: string }>(page, 'things:createTrialProduct', {
      name: 'Saved elsewhere',
    });
    await call(page, 'things:putScenarioSet', {
      productId: product.id,
      scenarioSet: refusedWrite,
    });
    await page.goto(`${url}#/scenarios?product=${product.id}`);
    const panel = page.getByTestId('run-panel');
    await panel.getByRole('radio', { name: 'Saved set (revision 1)' }).waitFor();
    expect(await panel.getByRole('radio', { name: 'Saved set (revision 1)' }).isDisabled()).toBe(
      false,
    );

    const outcome = await startRun(page, /^Saved set/);
    await expectText(outcome, 'Dry run #');
    await expectText(outcome, 'GATT_ERROR');
    await expectText(outcome.getByTestId('run-outcome-counts'), '1 result · 1 failed');
    // The platform names saved scenarios itself; the failure says what the board refused.
    const failure = outcome.getByTestId('run-outcome-failure');
    await expectText(failure, 'First failure: scenario ');
    await expectText(failure, 'ended GATT_ERROR');
    await expectText(failure, 'does not allow write');
    await outcome.getByRole('button', { name: /in past runs/ }).waitFor();
    await outcome.getByRole('button', { name: /^HCI trace of scenario-run-/ }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      outcome.getByRole('button', { name: 'Run as JSON' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^scenario-run-\d+\.json$/);

    const view = page.getByTestId('run-view');
    const table = view.getByTestId('result-events').locator('.table-scroll');
    await atEachSize(page, async () => {
      await page.locator('main.content').evaluate((el: { scrollTop: number }) => {
        el.scrollTop = 0;
      });
      await expectInView(page, outcome);
      await shoot(page, 'run-results-outcome');

      // The results wrap: no sideways scroll, and no column squeezed to a letter a line.
      await table.scrollIntoViewIfNeeded();
      const [scroll, client] = await widths(table);
      expect(scroll).toBeLessThanOrEqual(client);
      for (const cell of await view.getByTestId('result-event').first().locator('td').all())
        expect((await cell.boundingBox())!.width).toBeGreaterThan(30);
      // The result badge on the timeline starts inside its track, not under the lane's label.
      const lane = view.getByTestId('timeline-lane-0');
      const badge = lane.getByTestId('timeline-badge').first();
      await expectText(badge, 'GATT_ERROR');
      const track = (await lane.locator('.tl-track').boundingBox())!;
      const badgeBox = (await badge.boundingBox())!;
      expect(badgeBox.x).toBeGreaterThanOrEqual(track.x);
      expect(badgeBox.x + badgeBox.width).toBeLessThanOrEqual(track.x + track.width + 1);
      await shoot(page, 'run-results-table');
    });
    expect(pageErrors).toEqual([]);
  });

  it('tells the saved set’s last run from the draft’s on the Start page', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    // The draft reads what the saved set writes: it passes where the saved set fails.
    const editor = page.getByTestId('scenario-editor');
    await editor.getByTestId('import-file').setInputFiles({
      name: 'read.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(allowedRead)),
    });
    await expectText(editor.getByTestId('validation-summary'), 'valid');
    const outcome = await startRun(page, /^Editor draft/);
    await expectText(outcome, 'SUCCESS');
    await expectText(outcome.getByTestId('run-outcome-counts'), '1 result · 0 failed');

    await page
      .getByRole('navigation', { name: 'Areas' })
      .getByRole('button', { name: 'Start', exact: true })
      .click();
    const step = page.locator('[data-testid="workflow-step"][data-step="dry-run"]');
    const runs = step.getByTestId('workflow-run');
    await expect.poll(() => runs.count()).toBe(2);
    await expectText(runs.nth(0), 'Saved set rev 1: 1 of 1 failed');
    expect(await runs.nth(0).innerText()).not.toContain('SUCCESS');
    // The draft is still in the editor, unsaved: its line says so.
    await expectText(runs.nth(1), 'Draft (unsaved): SUCCESS');
    expect(await step.getAttribute('class')).not.toContain('done');
    await atEachSize(page, async () => {
      await expectInView(page, runs.nth(1));
      await shoot(page, 'run-results-start');
    });
    expect(pageErrors).toEqual([]);
  });
});
