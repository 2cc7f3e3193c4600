// The line end to end: Settings → Audit and PSDI pool switched to a PostgreSQL server of its own
// (the password never shown back), the Line page showing another station and the record it
// holds, and the audit log filtered by that station. A record that station settles while this
// one lists it is said to be settled when Finish is clicked, not refused (issue 44).
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { reserveInput } from '../core/audit/fixture';
import { usePostgres } from '../helpers/postgres';
import { expectText, nav, useBench } from './fixture';

const PASSWORD = 'e2e-line-pw-Z8q3';
const postgres = usePostgres({ password: PASSWORD });
const bench = useBench();

describe('a station on a shared PostgreSQL', () => {
  it('joins the line, shows its stations and what they hold, and filters the log by station', async () => {
    const { page, pageErrors } = bench();
    const url = await postgres.database();

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const panel = page.getByTestId('audit-pool');
    await expectText(panel.getByTestId('audit-pool-active'), 'This machine');
    await panel.getByLabel('A shared PostgreSQL (a production line)').check();
    await panel.getByRole('textbox', { name: 'Connection URL' }).fill(url);
    await panel.getByLabel('Password').fill(PASSWORD);
    await panel.getByRole('textbox', { name: 'Station name' }).fill('line-1');
    await panel.getByRole('button', { name: 'Save' }).click();
    await expectText(panel.getByTestId('audit-pool-active'), 'Shared PostgreSQL');
    await expectText(panel.getByTestId('audit-pool-active'), 'connected');
    await expectText(panel.getByTestId('audit-pool-active'), 'line-1');
    expect(await page.content()).not.toContain(PASSWORD);

    // Another station holds a PSDI whose commit went unanswered.
    const other = await openAuditStore({
      location: { kind: 'postgres', url, password: PASSWORD },
      station: 'line-2',
    });
    try {
      const held = await other.reserve(reserveInput(7, 'LINE-E2E-1'));
      await other.markFailed(held.id, { step: 'commit', error: 'no answer', psdiHeld: true });

      await page.getByRole('button', { name: 'Line', exact: true }).click();
      await expectText(page.getByTestId('line-stations'), 'line-2');
      await expectText(page.getByTestId('line-unfinished'), 'LINE-E2E-1');
      await expectText(page.getByTestId('line-failures'), 'commit');

      await page.getByRole('button', { name: 'Audit log', exact: true }).click();
      await page.getByLabel('Station').selectOption('line-2');
      await expectText(page.getByTestId('audit-table'), 'LINE-E2E-1');

      // Listed here as unfinished; line-2's operator releases it before Finish is clicked.
      await nav(page, 'Provisioning').click();
      const unfinished = page.getByTestId('unfinished');
      await expectText(unfinished, 'LINE-E2E-1');
      await other.releaseHeld(held.id, { reason: 'board lost', by: 'ana' });
      await unfinished
        .getByRole('button', { name: `Finish record ${held.id} (LINE-E2E-1)` })
        .click();
      await expect
        .poll(() => unfinished.getByTestId('unfinished-done').innerText())
        .toMatch(
          new RegExp(
            `^record #${held.id}: already released by line-2 at \\d{2}:\\d{2} — nothing to do$`,
          ),
        );
      await expect.poll(() => unfinished.getByTestId('unfinished-record').count()).toBe(0);
      expect(await unfinished.getByRole('alert').count()).toBe(0);
    } finally {
      await other.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
