// The BLE process's configuration as the supervisor fills it: traces go to the data folder's
// traces/, on the simulated bench and on hardware.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostSupervisor, legacyAdapter } from '../../../../src/core/usecases/bench/host-supervisor';
import { traceDirOf } from '../../../../src/core/usecases/station-files';
import type { Advertisement } from '../../../../src/core/ble/port';
import {
  hostConfigSchema,
  type HostChannel,
  type HostConfig,
  type HostMessage,
} from '../../../../src/core/ble/host/protocol';
import { remoteCentral } from '../../../../src/core/ble/host/remote-central';

/** A BLE process that is ready at once and keeps the config it was started with. */
function launcher(configs: HostConfig[]) {
  return (config: HostConfig): HostChannel => {
    configs.push(config);
    let exit: ((reason: string) => void) | undefined;
    return {
      pid: 1,
      send: () => undefined,
      onMessage(handler: (message: HostMessage) => void) {
        setTimeout(
          () => handler({ type: 'event', event: 'ready', state: 'poweredOn', adapters: [] }),
          0,
        );
      },
      onExit(handler) {
        exit = handler;
      },
      kill: () => exit?.('killed'),
    };
  };
}

describe('HostSupervisor', () => {
  it('gives the BLE process the adapter list and the data folder traces/', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'supervisor-'));
    const configs: HostConfig[] = [];
    const supervisor = await HostSupervisor.open(dataDir, launcher(configs));
    await supervisor.ensure();
    // A stopped process starts on the new list (a running one changes its adapters in place).
    await supervisor.stop();
    await supervisor.setAdapters(['hci0', 'serial:/dev/ttyACM0']);
    await supervisor.stop();
    expect(traceDirOf(dataDir)).toBe(join(dataDir, 'traces'));
    expect(configs.map((c) => [c.adapters, c.traceDir])).toEqual([
      [['sim'], join(dataDir, 'traces')],
      [['hci0', 'serial:/dev/ttyACM0'], join(dataDir, 'traces')],
    ]);
    for (const config of configs) expect(hostConfigSchema.parse(config)).toEqual(config);
    expect(
      hostConfigSchema.safeParse({ adapters: ['sim'], traceDir: '' }).error?.issues[0],
    ).toMatchObject({ path: ['traceDir'], message: 'is empty' });
    expect(hostConfigSchema.safeParse({ adapters: ['simulated'] }).error?.issues[0]).toMatchObject({
      path: ['adapters', 0],
      message: expect.stringMatching(/use `sim`/),
    });
    // The list is kept: the next supervisor opens the same adapters.
    const reopened = await HostSupervisor.open(dataDir, launcher([]));
    expect(reopened.adapterList()).toEqual(['hci0', 'serial:/dev/ttyACM0']);
  });

  it('reads a settings file from before adapter specs as the spec its mode meant', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'supervisor-old-'));
    writeFileSync(join(dataDir, 'ble.json'), JSON.stringify({ mode: 'hardware' }));
    const supervisor = await HostSupervisor.open(dataDir, launcher([]));
    expect(supervisor.adapterList()).toEqual([legacyAdapter('hardware')]);
    expect(legacyAdapter('hardware', 'linux')).toBe('hci0');
    expect(legacyAdapter('hardware', 'darwin')).toBe('native');
    expect(legacyAdapter('simulated', 'win32')).toBe('sim');
    writeFileSync(join(dataDir, 'ble.json'), JSON.stringify({ mode: 'simulated' }));
    expect((await HostSupervisor.open(dataDir, launcher([]))).adapterList()).toEqual(['sim']);
  });
});

describe('HostSupervisor over a real BLE process', { timeout: 60_000 }, () => {
  it('keeps the boards loaded and the faults set across a switch to hardware and back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'supervisor-real-'));
    const supervisor = await HostSupervisor.open(dataDir);
    try {
      const start = await supervisor.sim('boards', {});
      const loaded = await supervisor.sim('loadBoards', { text: TRAY, source: 'tray.json' });
      expect(loaded.map((b) => b.name)).toEqual(['Tray 01', 'Tray 02']);
      const [first, second] = loaded;
      await supervisor.sim('removeBoard', { boardId: second!.id });
      const removedDefault = start[0]!;
      await supervisor.sim('removeBoard', { boardId: removedDefault.id });
      await supervisor.sim('setFaults', {
        boardId: first!.id,
        faults: { refuseConnection: true, slowLink: 4 },
      });
      const before = await supervisor.sim('boards', {});

      const hardware = await supervisor.setAdapters(['hci0']);
      expect(hardware.adapters.map((a) => a.spec)).toEqual(['hci0']);
      await expect(supervisor.sim('boards', {})).rejects.toThrow(/simulated bench is off/);
      const back = await supervisor.setAdapters(['sim']);
      expect(back.host.running).toBe(true);

      const after = await supervisor.sim('boards', {});
      expect(after.map((b) => b.id).sort()).toEqual(before.map((b) => b.id).sort());
      expect(after.some((b) => b.id === removedDefault.id)).toBe(false);
      expect(after.some((b) => b.id === second!.id)).toBe(false);
      const kept = after.find((b) => b.id === first!.id);
      expect(kept?.faults).toMatchObject({ refuseConnection: true, slowLink: 4 });

      // A crash restarts into the same bench as well.
      process.kill(supervisor.status().host.pid!, 'SIGKILL');
      await new Promise((r) => supervisor.once('status', r));
      const again = await supervisor.sim('boards', {});
      expect(again.find((b) => b.id === first!.id)?.faults.refuseConnection).toBe(true);
      expect(supervisor.status().host.crashes).toBe(1);
    } finally {
      await supervisor.stop();
    }
  });
});

describe('adapter changes over a real BLE process', { timeout: 60_000 }, () => {
  it('adds and removes adapters without a restart, asks before dropping a link, and says what a restart closed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'supervisor-adapters-'));
    const supervisor = await HostSupervisor.open(dataDir);
    try {
      const host = await supervisor.ensure();
      const pid = host.pid;
      const ad = await new Promise<Advertisement>((found, reject) => {
        let stop = async () => {};
        remoteCentral(host, 'cli')
          .startScan({ name: 'DB Sensor' }, (heard) => {
            void stop();
            found(heard);
          })
          .then((h) => (stop = h.stop), reject);
      });
      const link = await (await supervisor.central('explorer')).connect(ad.id);

      const added = await supervisor.setAdapters(['sim', 'hci0']);
      expect(added.adapters.map((a) => a.spec)).toEqual(['sim', 'hci0']);
      expect([added.host.pid, added.closed]).toEqual([pid, []]);
      const [listed] = await supervisor.links();
      expect(listed).toMatchObject({ state: 'connected', user: 'explorer', name: 'DB Sensor' });

      // Closing the adapter the link goes through is asked first, naming the link.
      expect((await supervisor.plan(['hci0'])).drops.map((l) => l.name)).toEqual(['DB Sensor']);
      await expect(supervisor.setAdapters(['hci0'])).rejects.toThrow(
        /dropLinks: the change closes an adapter with a link \(DB Sensor \([0-9a-f:]+\)\): confirm to drop it/,
      );
      const removed = await supervisor.setAdapters(['sim']);
      expect([removed.host.pid, removed.closed]).toEqual([pid, []]);
      expect(removed.adapters.map((a) => a.spec)).toEqual(['sim']);
      expect((await supervisor.links())[0]?.state).toBe('connected');

      // A restart answers what it closed.
      expect((await supervisor.plan()).drops.map((l) => l.name)).toEqual(['DB Sensor']);
      const restarted = await supervisor.restart();
      expect(restarted.host.pid).not.toBe(pid);
      expect(restarted.closed.map((l) => l.name)).toEqual(['DB Sensor']);
      expect(await supervisor.links()).toEqual([]);
      expect(await new Promise((r) => link.onDisconnect(r))).toMatch(/BLE process/);
    } finally {
      await supervisor.stop();
    }
  });
});

const TRAY = JSON.stringify({
  boards: [{ name: 'Tray {n}', address: 'c0:ff:ee:00:00:01', count: 2 }],
});
