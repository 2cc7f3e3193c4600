// The audit log's export in the browser: the count of matching records by the link, a streamed
// download of 2,500 records, and the page reporting the rows as the bench server sends them. The
// export runs once; the page that reports it is pictured at both window sizes (atEachSize).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { fillLog } from '../core/audit/fixture';
import { atEachSize, expectText, FLOW_SIZE, shoot, useBench, downloadedBytes } from './fixture';

const COUNT = 2500;
const bench = useBench();

describe('audit log export', () => {
  it('downloads every matching record as CSV with its progress', async () => {
    const { page, dataDir, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    const store = await openAuditStore({
      location: { kind: 'local', file: join(dataDir, 'audit.sqlite') },
      station: 'e2e-export',
    });
    try {
      await fillLog(store, COUNT);
    } finally {
      await store.close();
    }
    await page.getByRole('button', { name: 'Audit log', exact: true }).click();
    const log = page.getByTestId('audit-log');
    const status = log.getByTestId('export-status');
    await expectText(status, '2,500 records match');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      log.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^devicebench-audit-.*\.csv$/);
    const rows = (await downloadedBytes(download)).toString('utf8').split('\r\n');
    expect(rows.slice(1, -1)).toHaveLength(COUNT);
    await expectText(status, 'Exported 2,500 records');
    await atEachSize(page, () => shoot(page, 'audit-export-done'));
    expect(pageErrors).toEqual([]);
  });
});
