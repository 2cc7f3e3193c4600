// The BLE process's method table: inputs are parsed where they cross into the process, a bad
// one refused with the method and field named (the process lives on), and the same table types
// the caller so a wrong call does not compile.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BleHost, forkHost } from '../../../../src/core/ble/host/ble-host';
import { parseRequest, ProtocolError } from '../../../../src/core/ble/host/protocol';

const hosts: BleHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

describe('parseRequest', () => {
  it('gives the parsed input of a known method', () => {
    const data = new Uint8Array([1, 2, 3]);
    expect(
      parseRequest({
        target: 'central',
        method: 'write',
        input: {
          connectionId: 'l',
          serviceUuid: 's',
          characteristicUuid: 'c',
          data,
          withoutResponse: false,
        },
      }),
    ).toEqual({
      method: 'write',
      input: {
        connectionId: 'l',
        serviceUuid: 's',
        characteristicUuid: 'c',
        data,
        withoutResponse: false,
      },
    });
  });

  it('refuses a bad input naming the method and the field', () => {
    const bad = () =>
      parseRequest({
        target: 'central',
        method: 'write',
        input: {
          connectionId: 'l',
          serviceUuid: 's',
          characteristicUuid: 'c',
          data: [1],
          withoutResponse: false,
        },
      });
    expect(bad).toThrow(ProtocolError);
    expect(bad).toThrow('write: data: must be a Uint8Array');
    expect(() =>
      parseRequest({
        target: 'sim',
        method: 'setFaults',
        input: { boardId: 'b', faults: { slowLink: 0 } },
      }),
    ).toThrow(/^setFaults: faults\.slowLink: /);
  });

  it('takes how to pair with a pair request, and refuses an IO capability it does not know', () => {
    expect(
      parseRequest({
        target: 'central',
        method: 'pair',
        input: { connectionId: 'l', io: 'keyboardDisplay', mitm: true },
      }),
    ).toEqual({
      method: 'pair',
      input: { connectionId: 'l', io: 'keyboardDisplay', mitm: true },
    });
    expect(() =>
      parseRequest({
        target: 'central',
        method: 'pair',
        input: { connectionId: 'l', io: 'keypad' },
      }),
    ).toThrow(/^pair: io: /);
  });

  it('refuses a method of the wrong table, or none, by name', () => {
    expect(() => parseRequest({ target: 'central', method: 'setFaults', input: {} })).toThrow(
      'no central method "setFaults"',
    );
    expect(() => parseRequest({ target: 'sim', method: 'toString', input: {} })).toThrow(
      'no sim method "toString"',
    );
  });
});

describe('BleHost over the method table', { timeout: 30_000 }, () => {
  it('has a bad input refused in the process, which keeps answering', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'ble-protocol-')), 'sim-state.json');
    const host = await BleHost.start(
      forkHost({
        adapters: ['sim'],
        boardFiles: [resolve('resources/sim/nrf52-devkit.json')],
        stateFile,
      }),
    );
    hosts.push(host);

    const refused = await host
      // @ts-expect-error: connect takes a device id, not a number
      .call('connect', { deviceId: 42, user: 'cli' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).name).toBe('ProtocolError');
    // In plain words: protocol.ts reads issues through platform/field-errors.ts.
    expect((refused as Error).message).toBe('connect: deviceId: must be text');

    // @ts-expect-error: a board needs its id
    const noId = await host.sim('factoryReset', {}).catch((e: unknown) => e);
    expect((noId as Error).message).toMatch(/^factoryReset: boardId: /);

    const [board] = await host.sim('boards', {});
    expect(board?.name).toContain('nRF52');
    const faulted = await host.sim('setFaults', { boardId: board!.id, faults: { slowLink: 3 } });
    expect(faulted.faults.slowLink).toBe(3);
    expect(host.running).toBe(true);
  });
});
