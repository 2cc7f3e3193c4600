// `devicebench provision` with an MCUmgr settings profile, as a child process over the simulated
// bench: stock Zephyr boards take the product's identity as settings, reset and are verified;
// the audit log holds one verified record per board.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditStore } from '../../src/core/audit/open-store';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

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
            psdiCharacteristicUuid: 'devicebench/psdi_characteristic_uuid',
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
});
