// "HCI trace" on the BLE bench: with traces a BLE process session left in the data folder,
// the button downloads the btsnoop file of the chosen window.
import { describe, expect, it } from 'vitest';
import { traceDirOf } from '../../src/core/usecases/station-files';
import { parseBtsnoop } from '../../src/core/ble/hci/btsnoop';
import { TraceWriter } from '../../src/core/ble/hci/trace-store';
import { expectText, useBench, downloadedBytes } from './fixture';

const bench = useBench({
  prepareDataDir: (dataDir) => {
    // A session 30 s and 20 s ago: an HCI Reset and its Command Complete.
    const clock = { at: Date.now() - 30_000 };
    const writer = new TraceWriter(traceDirOf(dataDir), { now: () => clock.at });
    writer.record('sent', Buffer.from([0x01, 0x03, 0x0c, 0x00]));
    clock.at += 10_000;
    writer.record('received', Buffer.from([0x04, 0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00]));
    writer.close();
  },
});

describe('HCI trace', () => {
  it('downloads the last minutes of HCI traffic from the BLE bench', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    const panel = page.getByTestId('ble-trace');
    await panel.getByLabel('Time').selectOption({ label: 'Last minute' });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'HCI trace of ble-bench' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^devicebench-hci-ble-bench-.+\.btsnoop$/);
    const { records, trailingBytes } = parseBtsnoop(await downloadedBytes(download));
    expect(trailingBytes).toBe(0);
    expect(records.map((r) => [r.direction, Buffer.from(r.data).toString('hex')])).toEqual(
      expect.arrayContaining([
        ['sent', '01030c00'],
        ['received', '040e0401030c00'],
      ]),
    );
    await expectText(panel.getByRole('status'), 'saved to devicebench-hci-ble-bench-');

    expect(pageErrors).toEqual([]);
  });
});
