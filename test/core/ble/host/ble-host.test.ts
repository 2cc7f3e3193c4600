// The BLE process through its app-side host: real noble over the simulated bench in a child
// process, scanning and GATT across the boundary, and a crash that fails what was pending,
// is reported, and leaves the app able to start a new process.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BleHost, forkHost } from '../../../../src/core/ble/host/ble-host';
import { BleError, normalizeUuid, type Advertisement } from '../../../../src/core/ble/port';
import { remoteCentral } from '../../../../src/core/ble/host/remote-central';
import { startChildrenFromSources } from '../../../helpers/bundled-children';

// Its BLE processes load the sources through tsx, as under the package's launcher.
startChildrenFromSources();

const BOARDS = resolve('resources/sim/nrf52-devkit.json');
const hosts: BleHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

async function start(setup?: object) {
  const dir = mkdtempSync(join(tmpdir(), 'ble-host-'));
  const stateFile = join(dir, 'sim-state.json');
  const setupFile = setup && join(dir, 'sim-bench-setup.json');
  if (setupFile) writeFileSync(setupFile, JSON.stringify(setup));
  const host = await BleHost.start(
    forkHost({ adapters: ['sim'], boardFiles: [BOARDS], stateFile, setupFile }),
  );
  hosts.push(host);
  return host;
}

async function firstAd(host: BleHost, filter = {}): Promise<Advertisement> {
  let stop: () => Promise<void> = async () => {};
  const ad = await new Promise<Advertisement>((resolvePromise, reject) => {
    remoteCentral(host, 'cli')
      .startScan(filter, resolvePromise)
      .then((h) => (stop = h.stop), reject);
  });
  await stop();
  return ad;
}

describe('BLE process', { timeout: 30_000 }, () => {
  it('scans and reads a board across the process boundary', async () => {
    const host = await start();
    expect(host.state()).toBe('poweredOn');
    expect(host.pid).toBeGreaterThan(0);
    const ad = await firstAd(host, { name: 'nRF52' });
    expect(ad.localName).toContain('nRF52');

    const link = await remoteCentral(host, 'cli').connect(ad.id, { timeoutMs: 5000 });
    const services = await link.discover();
    expect(services.map((s) => s.uuid)).toContain(normalizeUuid('180a'));
    const model = await link.read('180a', '2a24');
    expect(new TextDecoder().decode(model)).toBe('nRF52840-DK');
    const down = new Promise<string>((r) => link.onDisconnect(r));
    await link.disconnect();
    expect(await down).toBeTruthy();
  });

  it('brings the saved set-up onto its bench: the boards it loaded, with their faults', async () => {
    const tray = JSON.stringify({
      boards: [{ name: 'Tray {n}', address: 'c0:ff:ee:00:00:01', count: 2 }],
    });
    const host = await start({
      version: 1,
      loads: [{ source: { fileName: 'tray.json', text: tray }, boardIds: ['c0ffee000002'] }],
      removed: [],
      faults: { c0ffee000002: { refuseConnection: true } },
    });
    const boards = await host.sim('boards', {});
    expect(boards.map((b) => b.name)).toEqual(['DB nRF52 DK', 'Tray 02']);
    expect(boards[1]?.faults.refuseConnection).toBe(true);
  });

  it('fails pending work with a BleError when the process dies, and says it crashed', async () => {
    const host = await start();
    const ad = await firstAd(host, { name: 'nRF52' });
    const exits: { reason: string; expected: boolean }[] = [];
    host.onExit((reason, expected) => exits.push({ reason, expected }));
    const link = await remoteCentral(host, 'cli').connect(ad.id, { timeoutMs: 5000 });
    const linkDown = new Promise<string>((r) => link.onDisconnect(r));

    process.kill(host.pid!, 'SIGKILL');
    const error = await link.read('180a', '2a24').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BleError);
    expect((error as BleError).message).toMatch(/BLE process/);
    expect(await linkDown).toMatch(/BLE process stopped/);
    expect(exits).toEqual([{ reason: 'ended by signal SIGKILL', expected: false }]);
    expect(host.running).toBe(false);

    const again = await start();
    expect((await firstAd(again, { name: 'nRF52' })).localName).toContain('nRF52');
  });
});
