// The scenario form marks every problem its badge counts, where it belongs (the field, or the
// scenario for a rule about a whole scenario), in the JSON view's words, and still does after
// leaving the page and coming back and after a reload. No hint contradicts a rule. The flow runs
// once; the badge's jump to the first problem is checked at both window sizes (atEachSize).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, shoot, useBench, nav, createProduct } from './fixture';

const bench = useBench();

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** Three problems the rules find: two on a field, one on a whole scenario. */
const threeProblems = {
  autoClose: false,
  suppressionInterval: 500,
  scenarios: [
    { trigger: { type: 'IMMEDIATE' }, actions: [] },
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: SENSOR, characteristicUuid: TEMPERATURE, data: '0x01' },
      ],
    },
  ],
};

/** The badge's count and the marks the form shows, each mark's words. */
async function badgeAndMarks(page: Page): Promise<{ badge: string; marks: string[] }> {
  const editor = page.getByTestId('scenario-editor');
  const badge = await editor.getByTestId('validation-summary').innerText();
  const marks = await editor
    .getByTestId('scenario-form')
    .locator('.field-error > div')
    .allInnerTexts();
  return { badge, marks };
}

async function expectMarked(page: Page): Promise<void> {
  await expect.poll(async () => (await badgeAndMarks(page)).marks.length).toBe(3);
  const { badge } = await badgeAndMarks(page);
  expect(badge).toBe('3 problems');
  // The scenario without actions is marked on its card, in the JSON view's words.
  const first = page.getByTestId('scenario').first();
  await expectText(
    first.locator('.field-error'),
    'may be empty only for a BLE_NOTIFICATION scenario',
  );
  expect(await first.innerText()).not.toContain('No actions: the scenario only collects');
}

describe('the form marks what the badge counts', () => {
  it('marks each problem where it belongs, after leaving and coming back and after a reload', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Device service').click();
    await createProduct(page, 'Marked problems');
    await nav(page, 'Scenarios').click();
    const editor = page.getByTestId('scenario-editor');
    await editor.getByTestId('import-file').setInputFiles({
      name: 'three-problems.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(threeProblems)),
    });
    await expectMarked(page);

    // The same words as the JSON view.
    await editor.getByRole('tab', { name: 'JSON' }).click();
    const json = await editor.getByTestId('json-problems').locator('li').allInnerTexts();
    expect(json).toHaveLength(3);
    expect(json.some((p) => p.includes('may be empty only for a BLE_NOTIFICATION scenario'))).toBe(
      true,
    );
    await editor.getByRole('tab', { name: 'Form' }).click();

    // Away and back (the browser's Back), then a reload: still marked.
    await nav(page, 'Start').click();
    await page.goBack();
    await expectMarked(page);
    await page.reload();
    expect(page.url()).toContain('#/scenarios');
    await expectMarked(page);

    // The badge takes the user to the first problem, in view at both sizes.
    await atEachSize(page, async (size) => {
      await page.locator('main.content').evaluate((el: { scrollTop: number }) => {
        el.scrollTop = 0;
      });
      await editor.getByTestId('validation-summary').click();
      const mark = editor.getByTestId('scenario-form').locator('.field-error').first();
      await expect
        .poll(async () => {
          const box = await mark.boundingBox();
          return box !== null && box.y >= 0 && box.y + box.height <= size.height;
        })
        .toBe(true);
      await shoot(page, 'form-marks-problems');
    });
    expect(pageErrors).toEqual([]);
  });
});
