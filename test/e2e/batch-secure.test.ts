// A batch of eight boards built as phones expect, through the UI: the Zephyr Secure board's
// definition (resources/sim/zephyr-secure.json: SC only, its passkey on its display, bonds,
// privacy) loaded eight times as a board file, a profile that needs level 4, two boards at once.
// Every board's passkey prompt is answered in view — several stand at once, the top one whole and
// the others one line each, so the batch's progress stays in view — and every board is verified
// after its reboot over the bonded link, one PSDI each. The batch runs once; each prompt being in
// view, the stacked prompts beside the progress, and the pictures are checked at both window
// sizes (atEachSize).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEachSize,
  auditRecords,
  expectText,
  FLOW_SIZE,
  nav,
  shoot,
  useBench,
  createProduct,
  loadSecureBoards,
  planSecureProfile,
} from './fixture';

const bench = useBench();
const BOARDS = 8;
const PASSKEY = '246801';

interface Record {
  psdi: string;
  state: string;
  boardAddress: string;
}

/** Whether the whole of `locator` is inside the window and not cut off by the prompts' stack. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const stack = await page.getByRole('region', { name: 'Pairing requests' }).boundingBox();
  const view = page.viewportSize();
  if (!box || !stack || !view) return false;
  // Half a pixel either way: the stack is centred with a transform, at fractional positions.
  const inside = (outer: { x: number; y: number; width: number; height: number }) =>
    box.x >= outer.x - 0.5 &&
    box.y >= outer.y - 0.5 &&
    box.x + box.width <= outer.x + outer.width + 0.5 &&
    box.y + box.height <= outer.y + outer.height + 0.5;
  return inside({ x: 0, y: 0, ...view }) && inside(stack);
}

/** Whether the whole of `locator` is in the window and clear of the prompts' stack. */
async function clearOfPrompts(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const stack = await page.getByRole('region', { name: 'Pairing requests' }).boundingBox();
  const view = page.viewportSize();
  if (!box || !stack || !view) return false;
  const inWindow =
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.width <= view.width &&
    box.y + box.height <= view.height;
  const apart =
    box.y >= stack.y + stack.height ||
    box.y + box.height <= stack.y ||
    box.x >= stack.x + stack.width ||
    box.x + box.width <= stack.x;
  return inWindow && apart;
}

describe('a batch of boards that need their passkey', () => {
  const prefix = 'SEC-';
  const product = 'Secure tray';
  const name = 'E2E Secure';

  it(
    'answers every passkey prompt in view and verifies eight boards, one PSDI each',
    { timeout: 240_000 },
    async () => {
      const { page, pageErrors } = bench();
      await page.setViewportSize(FLOW_SIZE);
      await nav(page, 'Device service').click();
      await createProduct(page, product);

      await loadSecureBoards(page, name, 'e8:2b:7c:40:00:01', BOARDS);
      const plan = await planSecureProfile(page, product);
      await plan.getByLabel('Prefix').fill(prefix);
      await expectText(plan.getByTestId('psdi-preview'), `${prefix}000001`);

      const batch = page.getByTestId('prov-batch');
      await batch.getByLabel('Name contains').fill(name);
      await batch.getByLabel('Boards at once').fill('2');
      await batch.getByRole('button', { name: 'Start batch' }).click();

      // Answer each open prompt as it stands, checking it is whole in the window first.
      const summary = batch.getByTestId('batch-summary');
      const status = summary.getByRole('status');
      const open = page
        .getByRole('alertdialog', { name: new RegExp(`Enter the passkey ${name} \\d+ shows`) })
        .and(page.locator('[data-state="open"]'));
      // Only the top prompt is whole; the others stand as one line each.
      const whole = open.filter({ has: page.getByLabel('Passkey') });
      const answered = new Set<string>();
      let mostAtOnce = 0;
      let shot = false;
      while (!(await status.innerText().catch(() => '')).includes('Finished')) {
        let count = await open.count();
        if (answered.size === 0 && count > 0) {
          // The first two boards pair at once: let both prompts stand before answering one.
          // Counted once per turn: a prompt that appears between two counts is the second's.
          await expect.poll(() => open.count(), { timeout: 20_000 }).toBe(2);
          count = await open.count();
        }
        mostAtOnce = Math.max(mostAtOnce, count);
        if (count === 0) {
          await page.waitForTimeout(200);
          continue;
        }
        const prompt = whole.first();
        const title = await prompt.getByRole('heading').innerText();
        expect(answered.has(title), `${title} asked twice`).toBe(false);
        await atEachSize(page, async (size) => {
          await expect
            .poll(() => inView(page, prompt), { message: `${title} at ${size.width}` })
            .toBe(true);
        });
        if (count > 1 && !shot) {
          expect(await whole.count()).toBe(1);
          // The others stand as one line each, naming their board first.
          const line = open.filter({ hasNot: page.getByLabel('Passkey') }).first();
          await expectText(line, `${name} `);
          await atEachSize(page, async () => {
            expect((await line.boundingBox())!.height).toBeLessThan(40);
            // The batch's progress stays in view beside the prompts.
            await summary.scrollIntoViewIfNeeded();
            expect(await clearOfPrompts(page, summary), 'batch progress covered').toBe(true);
            await shoot(page, 'batch-secure-prompts');
          });
          shot = true;
          // A line opens into the whole prompt on a click.
          const lineTitle = await line.getAttribute('aria-label');
          await line.getByRole('button', { expanded: false }).click();
          const opened = page.getByRole('alertdialog', { name: lineTitle! });
          await expect.poll(() => opened.getByLabel('Passkey').count()).toBe(1);
        }
        await prompt.getByLabel('Passkey').fill(PASSKEY);
        await prompt.getByRole('button', { name: 'Pair' }).click();
        answered.add(title);
        // Answered once the BLE process says so: then the card no longer asks.
        await expect.poll(() => open.filter({ hasText: title }).count()).toBe(0);
      }
      await expectText(status, `Finished: ${BOARDS} boards done`);
      expect(answered.size).toBe(BOARDS);
      expect(mostAtOnce).toBeGreaterThan(1);
      await atEachSize(page, () => shoot(page, 'batch-secure-finished'));

      const records = await auditRecords<Record>(page, prefix);
      expect(records).toHaveLength(BOARDS);
      for (const record of records) expect(record.state).toBe('verified');
      expect(new Set(records.map((r) => r.psdi)).size).toBe(BOARDS);
      // Each record names its own board, by the address it showed on the air when provisioned.
      expect(new Set(records.map((r) => r.boardAddress)).size).toBe(BOARDS);
      expect(pageErrors).toEqual([]);
    },
  );
});
