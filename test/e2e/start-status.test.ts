// The start page asks the platform for every product's scenario set; a product without one is
// answered 404, which is "nothing there yet", not a failure: the status bar shows it neutral,
// not red (docs/decisions.md, "The status bar's 404"). Each flow runs once; what must be in
// view, cut text and the screenshots (kept under test-results/) are checked at both window sizes
// (atEachSize).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  nav,
  useBench,
  shoot,
  createProduct,
} from './fixture';

/** One contract operation through the bench server, as any other client would call it. */
async function call<T>(page: Page, op: string, input: unknown): Promise<T> {
  const body = JSON.stringify(input);
  const result = (await page.evaluate(
    `fetch('/api/ops/${op}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(body)} }).then((r) => r.json())`,
  )) as { ok: boolean; value: T };
  expect(result.ok).toBe(true);
  return result.value;
}

/** Wholly inside the window. */
async function expectInView(page: Page, locator: Locator): Promise<void> {
  const box = (await locator.boundingBox())!;
  const size = page.viewportSize()!;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(size.height);
  expect(box.x + box.width).toBeLessThanOrEqual(size.width);
}

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const SET = {
  autoClose: true,
  suppressionInterval: 1000,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [{ type: 'GATT_READ', serviceUuid: SENSOR, characteristicUuid: TEMPERATURE }],
    },
  ],
};

describe('start page probes', () => {
  const bench = useBench();

  it('shows the 404 for a product without a scenario set as neutral, not red', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, 'Probe lamp');

    await page
      .getByRole('navigation', { name: 'Areas' })
      .getByRole('button', { name: 'Start', exact: true })
      .click();
    await expectText(page.getByTestId('workflow-step').nth(3), 'No scenario set saved yet');
    const activity = page.getByTestId('status-activity');
    // The probe was the last request, and its 404 is drawn neutral.
    await expectText(activity, 'scenario');
    const last = activity.getByTestId('status-last');
    await expectText(last, '404');
    expect(await last.getAttribute('class')).toBe('muted');
    expect(await page.getByTestId('status-bar').locator('.bad').count()).toBe(0);
    await atEachSize(page, () => shoot(page, 'start-probe-404'));
    expect(pageErrors).toEqual([]);
  });

  it('tells a newcomer about the simulated boards and shows one product at a time, draft included', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const step = (id: string) => page.locator(`[data-testid="workflow-step"][data-step="${id}"]`);
    // No board verified yet: one line points at the BLE bench and its simulated boards.
    const newcomer = page.getByTestId('start-newcomer');
    await expectText(newcomer, 'simulated boards');
    await expectText(newcomer, 'without hardware');
    await atEachSize(page, () => expectInView(page, newcomer));

    // A second product with a saved set; the first has none.
    const products = await call<{ id: string; name: string }[]>(
      page,
      'things:listTrialProducts',
      {},
    );
    const lamp = products.find((p) => p.name === 'Probe lamp')!;
    const thermostat = await call<{ id: string }>(page, 'things:createTrialProduct', {
      name: 'Probe thermostat',
    });
    await call(page, 'things:putScenarioSet', { productId: thermostat.id, scenarioSet: SET });
    await page.reload();
    const chooser = page.getByTestId('start-product');
    await chooser.selectOption(lamp.id);
    await expectText(step('upload'), 'No scenario set saved yet');
    await expectText(step('dry-run'), 'Dry runs of Probe lamp');
    await expectText(step('dry-run'), 'Saved set: none saved yet');
    for (const id of ['dry-run', 'upload'])
      expect(await step(id).innerText()).not.toContain('Probe thermostat');
    await chooser.selectOption(thermostat.id);
    await expectText(step('upload'), 'Scenario set saved rev 1');
    await expectText(step('upload'), 'Probe thermostat');
    await expectText(step('dry-run'), 'Saved set rev 1: not dry-run yet');
    expect(await step('upload').innerText()).not.toContain('Probe lamp');

    // An unsaved draft of the lamp's set is said, labelled, beside its (missing) saved set.
    await chooser.selectOption(lamp.id);
    await nav(page, 'Scenarios').click();
    const editor = page.getByTestId('scenario-editor');
    await editor.getByRole('tab', { name: 'JSON' }).click();
    await editor.getByTestId('scenario-json').fill(JSON.stringify(SET, null, 2));
    await editor.getByRole('tab', { name: 'Form' }).click();
    await nav(page, 'Start').click();
    await expectText(step('dry-run'), 'Draft (unsaved): not dry-run yet');
    await expectText(step('upload'), 'Draft (unsaved): in the editor, not uploaded yet');
    await expectText(step('upload'), 'No scenario set saved yet');
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await expectInView(page, newcomer);
      await shoot(page, 'start-per-product');
    });
    expect(pageErrors).toEqual([]);
  });
});
