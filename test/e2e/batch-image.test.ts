// A batch that flashes then provisions, through the UI: a bench of eight
// stock Zephyr boards (MCUmgr, settings read at boot) loaded as a board file, the settings
// profile in the plan, an image chosen in the batch form (a file that is not one refused with
// the reader's words), and every board flashed (upload, test, reset, confirm) then provisioned
// through its settings and verified, the image's hash in each record and in its details in the
// audit log. The batch runs once; what is cut, and the pictures, are looked at in both window
// sizes.
import { describe, expect, it } from 'vitest';
import { buildImage } from '../core/ble/mcumgr/image-builder';
import {
  atEachSize,
  auditRecords,
  clippedText,
  createProduct,
  expectText,
  FLOW_SIZE,
  nav,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();
const MCUMGR_SERVICE = '8d53dc1d-1db7-4cd3-868b-8a527460aa84';
const BOARDS = 8;

interface Record {
  psdi: string;
  state: string;
  boardAddress: string;
  imageHash: string | null;
}

describe('a batch that flashes an image', () => {
  const prefix = 'FL-';
  const product = 'Flashed';
  const name = 'E2E Zephyr';

  it(
    'flashes then provisions eight Zephyr boards, the image hash in each record',
    { timeout: 240_000 },
    async () => {
      const { page, pageErrors } = bench();
      await page.setViewportSize(FLOW_SIZE);
      await nav(page, 'Device service').click();
      await createProduct(page, product);

      await nav(page, 'BLE bench').click();
      const sim = page.getByTestId('sim-bench');
      await sim.getByTestId('board-file').setInputFiles({
        name: 'zephyr-tray.json',
        mimeType: 'application/json',
        buffer: Buffer.from(
          JSON.stringify({
            boards: [
              {
                name,
                address: 'e8:2f:9a:30:00:01',
                count: BOARDS,
                advertising: { serviceUuids: [MCUMGR_SERVICE], intervalMs: 30 },
                latency: { connectMs: 10, perOperationMs: 2 },
                mcumgr: {
                  resetMs: 50,
                  identityKeys: {
                    serviceUuid: 'devicebench/service_uuid',
                    psdiServiceUuid: 'devicebench/psdi_service_uuid',
                    psdiCharacteristicUuid: 'devicebench/psdi_char_uuid',
                    psdi: 'devicebench/psdi',
                  },
                },
              },
            ],
          }),
        ),
      });
      await sim
        .getByTestId('sim-board')
        .filter({ hasText: `${name} 08` })
        .waitFor();

      await nav(page, 'Provisioning').click();
      const plan = page.getByTestId('prov-plan');
      await plan.getByLabel('Product').selectOption({ label: product });
      await plan.getByLabel('Provisioning profile').selectOption('zephyr-mcumgr-settings');
      await plan.getByLabel('Prefix').fill(prefix);
      await expectText(plan.getByTestId('psdi-preview'), `${prefix}000001`);

      const batch = page.getByTestId('prov-batch');
      await batch.getByLabel('Name contains').fill(name);
      await batch.getByLabel('Boards at once').fill('4');
      const file = batch.getByLabel('Batch image file');
      await file.setInputFiles({
        name: 'zephyr.hex',
        mimeType: 'text/plain',
        buffer: Buffer.from(':020000040000FA\n'.repeat(8)),
      });
      await expectText(batch.getByRole('alert'), 'not an MCUboot image');
      const image = Buffer.from(
        buildImage({
          version: [2, 0, 7, 0],
          payload: new Uint8Array(8_000).map((_, i) => (i * 17 + 7) & 0xff),
        }),
      );
      await file.setInputFiles({
        name: 'app.signed.bin',
        mimeType: 'application/octet-stream',
        buffer: image,
      });
      const chosen = batch.getByTestId('chosen-image');
      await expectText(chosen, 'app.signed.bin · 2.0.7');
      const hash = await chosen.getAttribute('title');
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      await atEachSize(page, async () => {
        expect(await clippedText(page)).toEqual([]);
        await shoot(page, 'batch-image-chosen');
      });

      await batch.getByRole('button', { name: 'Start batch' }).click();
      const status = batch.getByTestId('batch-summary').getByRole('status');
      await expect
        .poll(() => status.innerText(), { timeout: 200_000, interval: 1_000 })
        .toContain(`Finished: ${BOARDS} boards done`);
      await atEachSize(page, () => shoot(page, 'batch-image-finished'));

      const records = await auditRecords<Record>(page, prefix);
      expect(records).toHaveLength(BOARDS);
      expect(new Set(records.map((r) => r.boardAddress)).size).toBe(BOARDS);
      for (const record of records)
        expect(record).toMatchObject({ state: 'verified', imageHash: hash });

      // Where a person looks for it: the record's details in the audit log, the first 8 digits
      // shown, the whole hash on hover.
      await nav(page, 'Audit log').click();
      const log = page.getByTestId('audit-log');
      await log.getByLabel('PSDI or board address').fill(`${prefix}000001`);
      await log.getByRole('button', { name: 'Search', exact: true }).click();
      const row = log.getByTestId('audit-row').filter({ hasText: `${prefix}000001` });
      await row.getByRole('button', { name: `Details of ${prefix}000001` }).click();
      const shown = log.getByTestId('audit-details').getByTestId('audit-image-hash');
      await shown.waitFor();
      await expectText(shown, `${hash!.slice(0, 8)}…`);
      expect(await shown.locator('code').getAttribute('title')).toBe(hash);
      await shown.getByRole('button', { name: `Copy image hash of ${prefix}000001` }).waitFor();
      await atEachSize(page, async () => {
        expect(await clippedText(page)).toEqual([]);
        await shoot(page, 'batch-image-audit-details');
      });
      expect(pageErrors).toEqual([]);
    },
  );
});
