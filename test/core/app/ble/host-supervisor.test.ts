// The BLE process's configuration as the supervisor fills it: traces go to the data folder's
// traces/, on the simulated bench and on hardware.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostSupervisor, traceDirOf } from '../../../../src/core/app/ble/host-supervisor';
import {
  hostConfigSchema,
  type HostChannel,
  type HostConfig,
  type HostMessage,
} from '../../../../src/core/ble/host/protocol';

/** A BLE process that is ready at once and keeps the config it was started with. */
function launcher(configs: HostConfig[]) {
  return (config: HostConfig): HostChannel => {
    configs.push(config);
    let exit: ((reason: string) => void) | undefined;
    return {
      pid: 1,
      send: () => undefined,
      onMessage(handler: (message: HostMessage) => void) {
        setTimeout(() => handler({ type: 'event', event: 'ready', state: 'poweredOn' }), 0);
      },
      onExit(handler) {
        exit = handler;
      },
      kill: () => exit?.('killed'),
    };
  };
}

describe('HostSupervisor', () => {
  it('gives the BLE process the data folder traces/ in both modes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'supervisor-'));
    const configs: HostConfig[] = [];
    const supervisor = await HostSupervisor.open(dataDir, launcher(configs));
    await supervisor.ensure();
    await supervisor.setMode('hardware');
    await supervisor.stop();
    expect(traceDirOf(dataDir)).toBe(join(dataDir, 'traces'));
    expect(configs.map((c) => [c.mode, c.traceDir])).toEqual([
      ['simulated', join(dataDir, 'traces')],
      ['hardware', join(dataDir, 'traces')],
    ]);
    for (const config of configs) expect(hostConfigSchema.parse(config)).toEqual(config);
    expect(
      hostConfigSchema.safeParse({ mode: 'hardware', traceDir: '' }).error?.issues[0],
    ).toMatchObject({
      path: ['traceDir'],
      message: 'is empty',
    });
  });
});
