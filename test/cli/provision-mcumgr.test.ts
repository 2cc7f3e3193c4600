// `devicebench provision` with an MCUmgr settings profile, as a child process over the simulated
// bench: stock Zephyr boards take the product's identity as settings, reset and are verified;
// the audit log holds one verified record per board. With `--image`, each board of a batch is
// flashed first and its record carries the image's SHA-256, also in the CSV export.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { readMcubootImage } from '../../src/core/ble/mcumgr/image-file';
import { buildImage } from '../core/ble/mcumgr/image-builder';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';
import { withFastAdapter } from '../helpers/fast-adapter';

const plan = {
  profileId: 'zephyr-mcumgr-settings',
  psdi: { kind: 'sequence', prefix: 'ZS-', width: 4 },
};

/** A tray of stock Zephyr boards with MCUmgr, `c2:8e:30:00:00:01` up. */
function zephyrTray(dir: string, count: number, faults: Record<string, boolean> = {}): string {
  return writeJson(dir, `zephyr-${count}.json`, {
    boards: [
      {
        name: 'CLI Zephyr {n}',
        address: 'c2:8e:30:00:00:01',
        count,
        advertising: { intervalMs: 50, serviceUuids: ['8d53dc1d-1db7-4cd3-868b-8a527460aa84'] },
        latency: { connectMs: 20, perOperationMs: 4 },
        mcumgr: {
          resetMs: 100,
          identityKeys: {
            serviceUuid: 'devicebench/service_uuid',
            psdiServiceUuid: 'devicebench/psdi_service_uuid',
            psdiCharacteristicUuid: 'devicebench/psdi_char_uuid',
            psdi: 'devicebench/psdi',
          },
          faults,
        },
      },
    ],
  });
}

describe('devicebench provision through MCUmgr settings', { timeout: 90_000 }, () => {
  it('provisions a batch of Zephyr boards through their settings, each verified and recorded', async () => {
    const dir = tempDir('mcumgr-batch');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const result = await runCli([
      'provision',
      '--product',
      product,
      '--count',
      '2',
      '--plan',
      writeJson(dir, 'plan.json', plan),
      '--json',
      '--sim-boards',
      zephyrTray(dir, 2),
      '--data-dir',
      data,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ wanted: 2, verified: 2 });
    const log = await openAuditStore({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
    });
    try {
      const { items } = await log.search({ productId: product, limit: 10 });
      expect(items.map((r) => [r.psdi, r.state, r.profileId]).sort()).toEqual([
        ['ZS-0001', 'verified', 'zephyr-mcumgr-settings'],
        ['ZS-0002', 'verified', 'zephyr-mcumgr-settings'],
      ]);
    } finally {
      await log.close();
    }
  });

  it('a refused settings write fails the board and gives its PSDI back', async () => {
    const dir = tempDir('mcumgr-refused');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const result = await runCli([
      'provision',
      '--product',
      product,
      '--board',
      'c2:8e:30:00:00:01',
      '--plan',
      writeJson(dir, 'plan.json', plan),
      '--json',
      '--sim-boards',
      zephyrTray(dir, 1, { refuseSettingsWrites: true }),
      '--data-dir',
      data,
    ]);
    expect(result.code).not.toBe(0);
    const [board] = JSON.parse(result.stdout).boards;
    expect(board).toMatchObject({ state: 'failed', step: 'write', psdi: 'ZS-0001' });
    expect(board.error).toContain('write not supported');
    const log = await openAuditStore({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
    });
    try {
      const { items } = await log.search({ productId: product, limit: 10 });
      expect(items).toMatchObject([{ psdi: 'ZS-0001', psdiHeld: false, psdiReturned: true }]);
    } finally {
      await log.close();
    }
  });

  it('flashes an image to every board of a batch before provisioning it, its hash in each record', async () => {
    const dir = tempDir('mcumgr-image');
    const data = withFastAdapter(join(dir, 'data'));
    const product = await seedProduct(data);
    const imageBytes = buildImage({ version: [2, 0, 0, 0], payload: new Uint8Array(6_000) });
    const imageFile = join(dir, 'app.signed.bin');
    writeFileSync(imageFile, imageBytes);
    const imageHash = Buffer.from(readMcubootImage(imageBytes).hash).toString('hex');
    // The hash is the image's SHA-256 TLV, not the file's own digest.
    expect(imageHash).not.toBe(createHash('sha256').update(imageBytes).digest('hex'));
    const common = ['--sim-boards', zephyrTray(dir, 3), '--data-dir', data];
    const result = await runCli([
      'provision',
      '--product',
      product,
      '--count',
      '3',
      '--image',
      imageFile,
      '--plan',
      writeJson(dir, 'plan.json', plan),
      '--json',
      ...common,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ wanted: 3, verified: 3 });

    mkdirSync(join(dir, 'out'));
    const csv = join(dir, 'out', 'audit.csv');
    const [exported, slots] = await Promise.all([
      runCli(['audit', 'export', '--csv', csv, '--product', product, ...common]),
      runCli(['firmware', 'list', '--board', 'c2:8e:30:00:00:02', '--json', ...common]),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const [header, ...rows] = readFileSync(csv, 'utf8').trim().split('\r\n');
    const column = header!.split(',').indexOf('image_hash');
    expect(column).toBeGreaterThan(-1);
    expect(rows.map((row) => row.split(',')[column])).toEqual([imageHash, imageHash, imageHash]);
    // The board runs the image, confirmed, and still carries its identity.
    expect(slots.code, slots.stderr).toBe(0);
    expect(JSON.parse(slots.stdout)).toMatchObject({
      slots: expect.arrayContaining([
        expect.objectContaining({
          active: true,
          confirmed: true,
          version: '2.0.0',
          hash: imageHash,
        }),
      ]),
    });
  });

  it('refuses an --image file that is not an MCUboot image before the radio opens', async () => {
    const dir = tempDir('mcumgr-bad-image');
    const data = join(dir, 'data');
    const product = await seedProduct(data);
    const bad = join(dir, 'notes.txt');
    writeFileSync(bad, 'not an image');
    const result = await runCli([
      'provision',
      '--product',
      product,
      '--count',
      '1',
      '--image',
      bad,
      '--plan',
      writeJson(dir, 'plan.json', plan),
      '--sim-boards',
      zephyrTray(dir, 1),
      '--data-dir',
      data,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--image');
  });
});
