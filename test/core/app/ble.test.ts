// The BLE bench through the app's contract: the BLE process on the simulated bench, a UI scan in
// batches, provisioning one board into the audit log and its CSV, field-named errors for bad
// files and plans, and a crashed BLE process reported and restarted.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFor as scanOn, useApp } from '../../helpers/app';
import type { ProvisioningRecord } from '../../../src/core/audit/records';
import type { AuditExportProgress } from '../../../src/core/app/contracts/audit';

/** Where the "save dialog" puts exports: the main process's choice, never the page's. */
const exportDir = mkdtempSync(join(tmpdir(), 'app-ble-export-'));
const get = useApp('app-ble', { chooseExportFile: async (name) => join(exportDir, name) });
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);
const fails = (name: string, input: unknown) => get().fails(name, input);
const scanFor = (name: string) => scanOn(get(), name);

describe('BLE bench', () => {
  it('starts the simulated bench in its own process', async () => {
    const status = await ok<{ adapters: unknown[]; adapterState: string; host: { pid: number } }>(
      'ble:getStatus',
    );
    expect(status).toMatchObject({
      adapters: [
        {
          spec: 'sim',
          description: 'the simulated bench',
          state: 'poweredOn',
          linksInUse: 0,
          linkCapacity: 5,
          writesConfirmed: true,
        },
      ],
      adapterState: 'poweredOn',
    });
    expect(status.host.pid).not.toBe(process.pid);
    const boards = await ok<{ name: string }[]>('sim:listBoards');
    expect(boards.map((b) => b.name)).toEqual(
      expect.arrayContaining(['DB nRF52 DK', 'DB ESP32-C3']),
    );
  });

  it('provisions a scanned board, verifies it, and records it in the audit log and its CSV', async () => {
    const product = await ok<{ id: string; serviceUuid: string }>('things:createTrialProduct', {
      name: 'Bench lamp',
    });
    await ok('provisioning:savePlan', {
      productId: product.id,
      profileId: 'devicebench-v1',
      psdi: { kind: 'sequence', prefix: 'LAMP-', start: 1, width: 4 },
    });
    const board = await scanFor('nRF52');
    const steps: string[] = [];
    const off = get().app.subscribe('provisioning:progress', (p) => {
      const progress = p as { step: string; phase: string };
      if (progress.phase === 'finished') steps.push(progress.step);
    });
    const { record } = await ok<{ record: ProvisioningRecord }>('provisioning:provisionOne', {
      productId: product.id,
      deviceId: board.id,
    });
    off();
    expect(record).toMatchObject({ state: 'verified', psdi: 'LAMP-0001', productId: product.id });
    expect(steps).toEqual(expect.arrayContaining(['connect', 'write', 'commit', 'verify']));

    const provisioned = (
      await ok<{ name: string; provisioned?: { psdi: string } }[]>('sim:listBoards')
    ).find((b) => b.name === 'DB nRF52 DK');
    expect(provisioned?.provisioned?.psdi).toBe('LAMP-0001');

    const page = await ok<{ items: ProvisioningRecord[]; total: number }>('audit:search', {
      productId: product.id,
    });
    expect(page.total).toBe(1);
    const progress: AuditExportProgress[] = [];
    const stop = get().app.subscribe('audit:exportProgress', (p) =>
      progress.push(p as AuditExportProgress),
    );
    const saved = await ok<{ saved: true; file: string; rows: number }>('audit:exportCsv', {
      query: { productId: product.id },
      exportId: 'lamp-export',
    });
    stop();
    expect(saved).toMatchObject({ saved: true, rows: 1 });
    expect(saved.file.startsWith(exportDir) && saved.file.endsWith('.csv')).toBe(true);
    expect(readFileSync(saved.file, 'utf8')).toContain('LAMP-0001');
    expect(progress.at(-1)).toEqual({ exportId: 'lamp-export', rows: 1, total: 1, done: true });
  });

  it('verifies the starter-style board end to end: the product has the platform PSDI pair, the board derives its PSDI, noble pairs to read it', async () => {
    const product = await ok<{
      id: string;
      psdiServiceUuid: string;
      psdiCharacteristicUuid: string;
    }>('things:createTrialProduct', { name: 'Starter gadget' });
    expect(product).toMatchObject({
      psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
      psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
    });
    await ok('provisioning:savePlan', {
      productId: product.id,
      profileId: 'platform-starter',
      // The firmware derives the PSDI: the plan's sequence is never used.
      psdi: { kind: 'sequence', prefix: 'UNUSED-', start: 1, width: 4 },
    });
    const board = await scanFor('Starter');
    const { record } = await ok<{ record: ProvisioningRecord }>('provisioning:provisionOne', {
      productId: product.id,
      deviceId: board.id,
    });
    expect(record).toMatchObject({
      state: 'verified',
      psdiSource: 'device',
      psdi: 'STARTER-D25A7E003001',
      productId: product.id,
    });
  });

  it('runs a batch up to its limit and counts only the boards it took on', async () => {
    const product = await ok<{ id: string }>('things:createTrialProduct', { name: 'Tray run' });
    await ok('provisioning:savePlan', {
      productId: product.id,
      profileId: 'devicebench-v1',
      psdi: { kind: 'random', length: 8 },
    });
    await ok('sim:loadBuiltIn', { name: 'blank-tray.json' });
    const finished = new Promise<{ total: number; succeeded: number; state: string }>((resolve) => {
      const off = get().app.subscribe('provisioning:batch', (s) => {
        const summary = s as { total: number; succeeded: number; state: string };
        if (summary.state === 'finished') {
          off();
          resolve(summary);
        }
      });
    });
    const started = await ok<{ state: string }>('provisioning:startBatch', {
      productId: product.id,
      concurrency: 2,
      name: 'Tray',
      limit: 3,
    });
    expect(started.state).toBe('running');
    const listed = await ok<{ runId: string }[]>('provisioning:listBatches');
    expect(listed[0]?.runId).toBe((started as { runId?: string }).runId);
    expect(await finished).toMatchObject({ total: 3, succeeded: 3 });
    expect((await ok<{ state: string }[]>('provisioning:listBatches'))[0]?.state).toBe('finished');
    const page = await ok<{ items: ProvisioningRecord[] }>('audit:search', {
      productId: product.id,
    });
    expect(new Set(page.items.map((r) => r.psdi)).size).toBe(3);
    expect(page.items.every((r) => r.state === 'verified')).toBe(true);
  });

  it('refuses a bad board file and a bad plan, naming the file and field', async () => {
    const badBoards = await fails('sim:loadBoards', {
      fileName: 'tray.json',
      text: JSON.stringify({ boards: [{ name: 'X', gatt: [{ uuid: 'not-a-uuid' }] }] }),
    });
    expect(badBoards.code).toBe('invalid_input');
    expect(badBoards.message).toContain('tray.json');
    expect(badBoards.message).toContain('uuid');

    const badPlan = await fails('provisioning:savePlan', {
      productId: 'p',
      profileId: 'devicebench-v1',
      psdi: { kind: 'random', length: 2 },
    });
    expect(badPlan.fields?.map((f) => f.field)).toContain('psdi.length');
    const unknownProfile = await fails('provisioning:savePlan', {
      productId: 'p',
      profileId: 'nope',
      psdi: { kind: 'sequence' },
    });
    expect(unknownProfile.fields?.[0]?.field).toBe('profileId');
  });

  it('reports a crashed BLE process and starts a new one on request', async () => {
    const before = await ok<{ host: { pid: number; crashes: number } }>('ble:getStatus');
    const reported = new Promise<{ host: { running: boolean; crashes: number } }>((resolve) => {
      const off = get().app.subscribe('ble:status', (s) => {
        const status = s as { host: { running: boolean; crashes: number } };
        if (!status.host.running) {
          off();
          resolve(status);
        }
      });
    });
    process.kill(before.host.pid, 'SIGKILL');
    const crashed = await reported;
    expect(crashed.host.crashes).toBe(before.host.crashes + 1);

    const after = await ok<{
      host: { running: boolean; pid: number; crashes: number; lastCrash: { reason: string } };
    }>('ble:restartHost');
    expect(after.host.running).toBe(true);
    expect(after.host.pid).not.toBe(before.host.pid);
    expect(after.host.lastCrash.reason).toMatch(/SIGKILL/);
    // The provisioned board kept its identity across the restart, as flash would.
    const boards = await ok<{ name: string; provisioned?: { psdi: string } }[]>('sim:listBoards');
    expect(boards.find((b) => b.name === 'DB nRF52 DK')?.provisioned?.psdi).toBe('LAMP-0001');
  });
});
