// "Keep link keys in traces" on the BLE bench's HCI trace panel: off, a saved trace has the LTK a
// session recorded redacted and says so; on, the panel warns what a trace then holds, the setting
// is in the data folder, and the saved trace keeps the LTK and says anyone with it can decrypt
// the link (docs/decisions/ble-and-hci.md, "Keys in traces"). The flow runs once; the warning's
// picture is taken at both window sizes (atEachSize).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceWriter } from '../../src/core/ble/hci/trace-store';
import { traceDirOf } from '../../src/core/usecases/station-files';
import { atEachSize, downloadedBytes, expectText, FLOW_SIZE, shoot, useBench } from './fixture';

const LTK = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');

const bench = useBench({
  prepareDataDir: (dataDir) => {
    // A session 20 s ago that kept its keys: LE Enable Encryption with the LTK.
    const writer = new TraceWriter(traceDirOf(dataDir), {
      now: () => Date.now() - 20_000,
      keepKeys: true,
    });
    writer.record(
      'sent',
      Buffer.concat([Buffer.from('0119201c400011223344556677883412', 'hex'), LTK]),
    );
    writer.close();
  },
});

describe('keeping the link keys in HCI traces', () => {
  it('redacts them unless the box is ticked, which warns what a trace then holds', async () => {
    const { page, pageErrors, dataDir } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await page.getByRole('button', { name: 'BLE bench', exact: true }).click();
    const panel = page.getByTestId('ble-trace');
    const box = panel.getByLabel('Keep link keys in traces');
    await panel.getByLabel('Time').selectOption({ label: 'Last minute' });
    const save = async () => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        panel.getByRole('button', { name: 'HCI trace of ble-bench' }).click(),
      ]);
      return (await downloadedBytes(download)).includes(LTK);
    };

    await expect.poll(() => box.isEnabled()).toBe(true);
    expect(await box.isChecked()).toBe(false);
    await expectText(panel, 'Link keys (LTK, IRK, CSRK) are redacted in every trace');
    expect(await save()).toBe(false);
    await expectText(panel.getByRole('status'), '(1 link key redacted)');

    await box.check();
    await expectText(
      panel.getByRole('alert'),
      'Traces hold the link keys in clear from now on: anyone with one can decrypt the link.',
    );
    await atEachSize(page, async () => {
      await panel.scrollIntoViewIfNeeded();
      await shoot(page, 'hci-trace-keep-keys');
    });
    const settings = () => JSON.parse(readFileSync(join(dataDir, 'trace-settings.json'), 'utf8'));
    expect(settings()).toEqual({ keepKeys: true });
    expect(await save()).toBe(true);
    await expectText(
      panel.getByRole('status'),
      'It holds 1 link key in clear: anyone with it can decrypt the link.',
    );

    // A page opened afresh shows the saved choice; turned off, the next trace has none.
    await page.reload();
    await page.getByRole('button', { name: 'BLE bench', exact: true }).click();
    await expect.poll(() => box.isChecked()).toBe(true);
    await box.uncheck();
    await expect.poll(settings).toEqual({ keepKeys: false });
    await panel.getByLabel('Time').selectOption({ label: 'Last minute' });
    expect(await save()).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});
