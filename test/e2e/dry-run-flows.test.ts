// Dry runs that end and say why (docs/decisions.md): a count of connections
// the set can never reach is said before start with a duration offered; accepting runs for that
// long and ends saying so; the record counts the rows the table shows; results stay in the app
// by default, so no delivery fails; lane labels are whole and the link lane is the board's name;
// a failed action is named as the bench names its characteristic and numbered as the form does.
// A second window's Start on the board the run holds follows that run, and its panel is free
// when the run ends, rather than showing a refusal (issue 45: a refused panel recovers).
// The flow runs once; whole lane labels and the pictures are looked at in both window sizes.
// Screenshots of each step at each size are kept under test-results/.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  chooseRun,
  createProduct,
  expectText,
  FLOW_SIZE,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LONG_ID = 'write-the-temperature-which-the-board-only-reads-BLE_NOTIFICATION-ERROR';

/** autoClose false, and a write the board refuses: one GATT_ERROR row per connection. */
const neverCloses = {
  autoClose: false,
  suppressionInterval: 0,
  scenarios: [
    {
      id: LONG_ID,
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: SENSOR, characteristicUuid: TEMPERATURE, data: 'AQ==' },
      ],
    },
  ],
};

/** The Scenarios page of `page` with `product`, DB Sensor and the never-closing set chosen. */
function chooseNeverCloses(page: Page, product: string): Promise<Locator> {
  return chooseRun(page, product, 'DB Sensor', { name: 'never-closes.json', json: neverCloses });
}

/** [scrollWidth, clientWidth] of a label's text: it is cut when the first exceeds the second. */
function widths(locator: Locator): Promise<[number, number]> {
  return locator.evaluate((el: { scrollWidth: number; clientWidth: number }) => [
    el.scrollWidth,
    el.clientWidth,
  ]);
}

describe('dry runs that end and say why', () => {
  it('warns before start, runs for a duration instead, counts what it shows', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const product = 'Never closes';
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, product);

    const panel = await chooseNeverCloses(page, product);

    // Three connections of a set that never closes its link: said before start.
    await panel.getByLabel('Run length').selectOption('cycles');
    await panel.getByLabel('Connections').fill('3');
    const warning = panel.getByTestId('run-infeasible');
    await expectText(warning, 'can never reach 3 connections');
    await expectText(warning, 'autoClose false');
    const start = panel.getByRole('button', { name: 'Start dry run' });
    expect(await start.isDisabled()).toBe(true);
    await atEachSize(page, async () => {
      await warning.scrollIntoViewIfNeeded();
      await shoot(page, 'dry-run-warning');
    });

    // A second window ready to run the same board until stopped.
    const other = await bench().context.newPage();
    await other.setViewportSize(FLOW_SIZE);
    await other.goto(bench().url);
    const otherPanel = await chooseNeverCloses(other, product);
    await otherPanel.getByLabel('Run length').selectOption('stopped');

    // Accept the offer, for 2 s: the run ends at its deadline and says so.
    await warning.getByLabel('Seconds to run instead').fill('2');
    await warning.getByRole('button', { name: 'Run for 2 s instead' }).click();
    // Asked first, in the page's own dialog: nothing starts until the user says so.
    const dialog = page.getByRole('dialog', { name: 'Run for 2 s instead?' });
    expect(await page.getByTestId('run-view').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Start a 2 s dry run' }).click();
    const view = page.getByTestId('run-view');
    // While it runs: a progress bar, the time so far and the connection it is on.
    await expectText(view.getByTestId('run-progress'), 'connection 1');
    expect(await view.getByRole('progressbar', { name: 'Dry run running' }).count()).toBe(1);
    // The other window's Start follows this run: no refusal, the same run to its end, and
    // Start is there again once it ended.
    await otherPanel.getByRole('button', { name: 'Start dry run' }).click();
    const otherView = other.getByTestId('run-view');
    await expectText(otherView.getByTestId('run-state'), 'finished (stopped after 2 s as asked)');
    expect(await other.getByTestId('start-error').count()).toBe(0);
    expect(await otherPanel.getByRole('button', { name: 'Start dry run' }).isEnabled()).toBe(true);
    await other.close();
    await expectText(view.getByTestId('run-state'), 'finished (stopped after 2 s as asked)');
    expect(await view.getByTestId('run-progress').count()).toBe(0);
    await expect.poll(() => panel.getByTestId('run-infeasible').count()).toBe(0);

    // The record counts the rows the table shows: one refused write, one failure.
    const rows = view.getByTestId('result-event');
    await expect.poll(() => rows.count()).toBe(1);
    await expectText(rows.first(), 'GATT_ERROR');
    // The refused action by its name, numbered as the form numbers it (from 1), said once.
    await expectText(rows.first(), `action 1 GATT_WRITE: Temperature (${TEMPERATURE})`);
    expect(await view.innerText()).not.toContain('actions[0]');
    expect(await view.innerText()).not.toMatch(/write: writing|read: reading/);
    const failed = await rows
      .filter({ hasText: /GATT_ERROR|BLE_CONNECTION_ERROR|RUNTIME_ERROR/ })
      .count();
    await expectText(view.getByTestId('run-results'), `${await rows.count()} · ${failed} failed`);
    // The past runs list counts the same way (src/core/scenario/result-counts.ts).
    const past = page.getByTestId('past-run').first();
    await expect
      .poll(async () => (await past.locator('td').nth(4).innerText()).replace(/\s+/g, ' '))
      .toBe(`${await rows.count()} ${failed} failed`);

    // Results stayed in the app: nothing was delivered, so nothing failed to be. The view reads
    // the emulator's webhook log when the run ends; a second is ample for that local answer.
    await page.waitForTimeout(1_000);
    expect(await view.getByTestId('run-delivery').count()).toBe(0);
    expect(
      await view.getByTestId('timeline-lane-link').locator('[data-kind="error"]').count(),
    ).toBe(0);
    expect(await page.getByText('no webhook URL').count()).toBe(0);

    // Lane labels: whole (wrapped, not cut), the full text in the title; the link lane is the board.
    const scenarioLabel = view.getByTestId('timeline-lane-0').getByTestId('timeline-lane-label');
    expect(await scenarioLabel.getAttribute('title')).toContain(LONG_ID);
    await expectText(scenarioLabel, LONG_ID);
    // Counted from 1, as the form numbers scenarios and actions.
    expect(await scenarioLabel.innerText()).toMatch(/^#1 /);
    const linkLabel = view.getByTestId('timeline-lane-link').getByTestId('timeline-lane-label');
    await expectText(linkLabel, 'DB Sensor');
    await atEachSize(page, async () => {
      for (const label of await view.getByTestId('timeline-lane-label').all()) {
        const [scroll, client] = await widths(label);
        expect(scroll).toBeLessThanOrEqual(client);
        for (const part of await label.locator('span').all()) {
          const [partScroll, partClient] = await widths(part);
          expect(partScroll).toBeLessThanOrEqual(partClient);
        }
      }
    });
    // A finished run opens zoomed to where its actions are: the few ms of the refused write
    // get a block a person can see and click, not a sliver of a 2 s axis.
    expect(await view.getByRole('button', { name: 'Actions' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    const block = view
      .getByTestId('timeline-lane-0')
      .locator('[data-testid="timeline-block"][data-kind="action"]')
      .first();
    // Measured once the zoom is drawn (the lanes follow the events deferred): wider than the
    // 3 px every block has at least (styles.css, `.tl-block`).
    await expect.poll(async () => (await block.boundingBox())!.width).toBeGreaterThan(3);
    const zoomedWidth = (await block.boundingBox())!.width;
    // On the whole 2 s axis the same write is a sliver.
    await view.getByRole('button', { name: 'Fit' }).click();
    await expect.poll(async () => (await block.boundingBox())!.width).toBeLessThan(zoomedWidth / 2);
    await view.getByRole('button', { name: 'Actions' }).click();
    // The open run is marked in the list of past runs.
    await expectText(page.getByTestId('past-run').first(), 'shown above');
    await atEachSize(page, async () => {
      await view.getByTestId('timeline-lane-0').scrollIntoViewIfNeeded();
      await shoot(page, 'dry-run-finished');
    });
    expect(pageErrors).toEqual([]);
  });
});
