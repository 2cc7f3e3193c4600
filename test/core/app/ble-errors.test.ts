// BLE errors said once, through the app's contract and the BLE process: the characteristic by
// its name beside its UUID, a wrong-length write measured against the characteristic's longest
// value, and a write the properties do not allow refused before it is sent.
import { describe, expect, it } from 'vitest';
import { scanFor, useApp } from '../../helpers/app';

const get = useApp('app-ble-errors');
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);
const fails = (name: string, input: unknown) => get().fails(name, input);

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';

describe('GATT errors in the explorer', () => {
  it('name the characteristic and, for 0x0d, what the board expects against what was written', async () => {
    const board = await scanFor(get(), 'DB Sensor');
    const { connectionId } = await ok<{ connectionId: string }>('ble:connect', {
      deviceId: board.id,
    });
    try {
      const long = await fails('ble:write', {
        connectionId,
        serviceUuid: SENSOR,
        characteristicUuid: LED,
        data: '010203',
      });
      expect(long.message).toMatch(
        /^writing LED \(a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d\): the board answered ATT error 0x0d \(invalid attribute value length\) to writeReq on handle 0x[0-9a-f]{4}: it expects at most 1 byte, got 3$/,
      );
      const readOnly = await fails('ble:write', {
        connectionId,
        serviceUuid: SENSOR,
        characteristicUuid: TEMPERATURE,
        data: '01',
      });
      expect(readOnly.message).toBe(
        'write: Temperature (a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d) does not allow write (it allows read, notify)',
      );
    } finally {
      await ok('ble:disconnect', { connectionId });
    }
  });
});
