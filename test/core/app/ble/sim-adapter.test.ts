// The controller a data folder's simulated bench emulates, through the app's contract: the BLE
// process opens its `sim` adapter with the data folder's sim-adapter.json, so the bench holds as
// many links as the dongle the user described, and says why it cannot start on a file that is
// not one (docs/decisions/simulated-bench.md, "The
// controller a data folder emulates").
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useApp } from '../../../helpers/app';

const get = useApp('app-sim-adapter', {
  prepareDataDir: (dataDir) =>
    writeFileSync(
      join(dataDir, 'sim-adapter.json'),
      JSON.stringify({ maxConnections: 2, dataLength: 251, aclBufferSize: 251 }),
    ),
});

const refused = useApp('app-sim-adapter-bad', {
  prepareDataDir: (dataDir) =>
    writeFileSync(join(dataDir, 'sim-adapter.json'), JSON.stringify({ dataLength: 300 })),
});

describe("the data folder's sim-adapter.json through the contract", () => {
  it('opens the simulated adapter as the file describes it', async () => {
    const status = await get().ok<{ adapters: { spec: string; linkCapacity: number }[] }>(
      'ble:getStatus',
    );
    expect(status.adapters).toEqual([expect.objectContaining({ spec: 'sim', linkCapacity: 2 })]);
  });

  it('says why the BLE process cannot start on a file that is not one, naming the field', async () => {
    const status = await refused().ok<{ guidance?: string; host: { running: boolean } }>(
      'ble:getStatus',
    );
    expect(status.host.running).toBe(false);
    expect(status.guidance).toMatch(
      /^The BLE process could not start: sim-adapter\.json: dataLength: .*251/,
    );
  });
});
