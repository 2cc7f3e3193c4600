// The bench's use cases a command stands on, called directly: a station opened on the
// simulated bench scans with the bench's filters, strongest first, writes its traces only once
// it used the radio, and a settings environment that is not there is refused at `env`, naming
// those that are.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanBoards, scanFilterSchema } from '../../../../src/core/usecases/bench/scan';
import { openStationAdapters } from '../../../../src/core/usecases/bench/station';
import { settingsEnvironment } from '../../../../src/core/usecases/bench/station-platform';
import { SetupError } from '../../../../src/core/usecases/errors';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'station-scan-'));
  dirs.push(dir);
  return join(dir, 'data');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const wait = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the station and its scan', { timeout: 30_000 }, () => {
  it('opens the data folder’s simulated bench and scans it with the filters, strongest first', async () => {
    const dir = dataDir();
    const station = await openStationAdapters({ dataDir: dir, adapters: [{ kind: 'sim' }] });
    try {
      // Nothing used the radio yet: the data folder has no traces.
      expect(existsSync(join(dir, 'traces'))).toBe(false);
      let heard = 0;
      const all = await scanBoards(
        station.central,
        scanFilterSchema.parse({}),
        wait(1_000),
        (n) => (heard = n),
      );
      expect(all.boards.map((b) => b.localName).sort()).toEqual([
        'DB ESP32-C3',
        'DB Sensor',
        'DB Starter',
        'DB Zephyr MCUmgr',
        'DB Zephyr Secure',
        'DB nRF52 DK',
      ]);
      expect(heard).toBe(all.boards.length);
      const rssi = all.boards.map((b) => b.rssi);
      expect(rssi).toEqual([...rssi].sort((a, b) => b - a));
      expect(all.adapters).toMatchObject([{ spec: 'sim' }]);
      expect(existsSync(join(dir, 'traces'))).toBe(true);

      const named = await scanBoards(
        station.central,
        scanFilterSchema.parse({ name: 'sensor' }),
        wait(1_000),
      );
      expect(named.boards.map((b) => b.localName)).toEqual(['DB Sensor']);
    } finally {
      await station.close();
    }
  });

  it('refuses a filter’s bad RSSI, naming the field', () => {
    const parsed = scanFilterSchema.safeParse({ rssi: '-70.5' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['rssi']);
  });

  it('refuses an environment Settings does not have at `env`, naming those it has', async () => {
    const refused = await settingsEnvironment(dataDir(), 'nope').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SetupError);
    expect(refused).toMatchObject({ field: 'env' });
    expect((refused as SetupError).detail).toMatch(
      /^no environment "nope" in Settings \(there: "Local emulator"\)$/,
    );
  });
});
