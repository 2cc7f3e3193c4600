// "HCI trace" of a real session: the BLE process runs noble's HCI stack over the simulated
// bench's controller, the tap writes every packet, and the BLE bench's button hands back what
// went over HCI while the user scanned and read a characteristic.
import { describe, expect, it } from 'vitest';
import { parseBtsnoop } from '../../src/core/ble/hci/btsnoop';
import { expectText, useBench, downloadedBytes } from './fixture';

const bench = useBench();

describe('HCI trace of a live session', () => {
  it('holds noble’s set-up commands, advertising reports and the ATT read of the session', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'BLE bench' }).click();
    await expectText(page.getByTestId('adapter-state'), 'Ready');
    const nrf = page
      .getByTestId('ble-scan')
      .locator('[data-testid="scan-row"][data-name="DB nRF52 DK"]');
    await nrf.waitFor();
    await nrf.getByRole('button', { name: 'Connect DB nRF52 DK' }).click();
    const explorer = page.getByTestId('gatt-explorer');
    await expectText(explorer.getByTestId('gatt-connection-state'), 'connected');
    await explorer.getByRole('button', { name: 'Read 2a29' }).click();
    await expectText(
      explorer.locator('[data-testid="characteristic"][data-uuid="2a29"]'),
      'Nordic Semiconductor',
    );
    const panel = page.getByTestId('ble-trace');
    await panel.getByLabel('Time').selectOption({ label: 'Last minute' });
    const trace = async (): Promise<string[]> => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        panel.getByRole('button', { name: 'HCI trace of ble-bench' }).click(),
      ]);
      const { records } = parseBtsnoop(await downloadedBytes(download));
      return records.map((r) => `${r.direction}:${Buffer.from(r.data).toString('hex')}`);
    };
    // The trace writer flushes every 250 ms: the trace is read again until the read's answer,
    // the session's last packet, is in it.
    let hex: string[] = [];
    await expect
      .poll(async () => (hex = await trace()).some((h) => /^received:02.{12}04000b/.test(h)), {
        timeout: 10_000,
      })
      .toBe(true);
    // noble's Read Local Version, and the controller's answer (HCI 5.3).
    expect(hex).toContain('sent:01011000');
    expect(hex.some((h) => h.startsWith('received:040e0c010110000c'))).toBe(true);
    // LE Advertising Reports (LE Meta 0x3e, subevent 0x02) from the scan.
    expect(hex.filter((h) => /^received:043e..02/.test(h)).length).toBeGreaterThan(5);
    // LE Create Connection, and an ATT Read Request (0x0a) on L2CAP CID 4 with its response.
    expect(hex.some((h) => h.startsWith('sent:010d20'))).toBe(true);
    // ACL: handle, length, then L2CAP length and CID 0x0004, then the ATT opcode.
    expect(hex.some((h) => /^sent:02.{12}04000a/.test(h))).toBe(true);
    expect(hex.some((h) => /^received:02.{12}04000b/.test(h))).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
