// Faults and link requests through the app's contract: every fault of the panel is set, listed,
// announced on `sim:boards` and kept in sim-bench-setup.json; a link request answers the link
// and announces it on `ble:link`; a reconnect asks for an MTU; bad input is refused naming the
// field.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimBoard } from '../../../../src/core/app/contracts/sim';
import { scanFor, useApp } from '../../../helpers/app';

const get = useApp('app-faults-link');
const SENSOR = 'd63a41002001';
const LED = 'a3c800037f2e4b619c0d5e1f2a3b4c5d';

describe('faults and link requests through the contract', () => {
  it('sets every fault, announces the boards and keeps the faults in sim-bench-setup.json', async () => {
    const announced = new Promise<SimBoard[]>((resolve) => {
      const off = get().app.subscribe('sim:boards', (boards) => {
        off();
        resolve(boards as SimBoard[]);
      });
    });
    const board = await get().ok<SimBoard>('sim:setFaults', {
      boardId: SENSOR,
      refusePairing: true,
      forgetBonds: true,
      dropLinkDuringWrite: true,
      dropLinkAfterWrites: 2,
      dropLinkCharacteristic: LED,
      refuseAccess: { operation: 'write', characteristic: LED, code: 0x03 },
    });
    const faults = {
      refuseConnection: false,
      dropLinkDuringWrite: true,
      dropLinkAfterWrites: 2,
      dropLinkCharacteristic: LED,
      slowLinkFactor: 1,
      refusePairing: true,
      forgetBonds: true,
      refuseAccess: { operation: 'write', characteristic: LED, code: 0x03 },
    };
    expect(board.faults).toEqual(faults);
    expect((await announced).find((b) => b.id === SENSOR)?.faults).toEqual(faults);
    const setup = JSON.parse(
      await readFile(join(get().dataDir, 'sim-bench-setup.json'), 'utf8'),
    ) as {
      faults: Record<
        string,
        { refusePairing?: boolean; forgetBonds?: boolean; refuseAccess?: object }
      >;
    };
    expect(setup.faults[SENSOR]).toMatchObject({
      refusePairing: true,
      forgetBonds: true,
      refuseAccess: { operation: 'write', code: 3 },
    });

    const cleared = await get().ok<SimBoard>('sim:setFaults', {
      boardId: SENSOR,
      refusePairing: false,
      forgetBonds: false,
      dropLinkDuringWrite: false,
      refuseAccess: null,
    });
    expect(cleared.faults.refuseAccess).toBeUndefined();
    expect(cleared.faults.forgetBonds).toBe(false);
    const bad = await get().fails('sim:setFaults', {
      boardId: SENSOR,
      refuseAccess: { operation: 'write', characteristic: 'led', code: 0x300 },
    });
    expect(bad.fields?.map((f) => f.field).sort()).toEqual([
      'refuseAccess.characteristic',
      'refuseAccess.code',
    ]);
  });

  it('asks for connection parameters and a PHY, answering and announcing the link', async () => {
    const device = await scanFor(get(), 'DB Sensor');
    const connection = await get().ok<{ connectionId: string; link: { intervalMs: number } }>(
      'ble:connect',
      { deviceId: device.id },
    );
    expect(connection.link.intervalMs).toBe(15);
    const { connectionId } = connection;
    const announced = new Promise<unknown>((resolve) => {
      const off = get().app.subscribe('ble:link', (change) => {
        off();
        resolve(change);
      });
    });
    const link = await get().ok('ble:updateConnection', {
      connectionId,
      parameters: { minIntervalMs: 45, maxIntervalMs: 45, latency: 1, supervisionTimeoutMs: 1000 },
    });
    expect(link).toMatchObject({ intervalMs: 45, latency: 1, supervisionTimeoutMs: 1000 });
    expect(await announced).toMatchObject({ connectionId, link: { intervalMs: 45 } });
    expect(
      await get().ok('ble:setPhy', { connectionId, phy: { tx: '2M', rx: '2M' } }),
    ).toMatchObject({
      txPhy: '2M',
      rxPhy: '2M',
    });
    const refused = await get().fails('ble:updateConnection', {
      connectionId,
      parameters: { minIntervalMs: 7, maxIntervalMs: 5000, latency: 500, supervisionTimeoutMs: 50 },
    });
    expect([...new Set(refused.fields?.map((f) => f.field))].sort()).toEqual([
      'parameters.latency',
      'parameters.maxIntervalMs',
      'parameters.minIntervalMs',
      'parameters.supervisionTimeoutMs',
    ]);
    // An MTU out of ATT's range is refused at its field, before the link is touched.
    const tooBig = await get().fails('ble:reconnect', { connectionId, mtu: 600 });
    expect(tooBig.fields?.map((f) => [f.field, f.message])).toEqual([
      ['mtu', 'must be at most 517'],
    ]);
    const again = await get().ok<{ connectionId: string; mtu: number; link: { mtu: number } }>(
      'ble:reconnect',
      { connectionId, mtu: 100 },
    );
    expect([again.mtu, again.link.mtu]).toEqual([100, 100]);
    // The same link, on a new link-layer connection: its card and log stay (link-record.ts).
    expect(again.connectionId).toBe(connectionId);
    await get().ok('ble:disconnect', { connectionId: again.connectionId });
  });
});
