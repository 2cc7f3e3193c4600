// The adapter's edges: no adapter at all, a binding that fails to start, state mapping, and
// several subscribers on one characteristic.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { createHardwareCentral } from '../../../src/core/ble/radio/native-central';
import { NoAdapterCentral } from '../../../src/core/ble/radio/no-adapter-central';
import { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import { BleError } from '../../../src/core/ble/port';
import { rig, sensorBoard, SENSOR_SERVICE, BUTTON, type Rig } from './fixture';

const require = createRequire(import.meta.url);
const withBindings =
  require('@abandonware/noble/with-bindings') as typeof import('@abandonware/noble/with-bindings');

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

describe('NobleCentral', () => {
  it('never throws for the machine adapter: without one it is noAdapter and says why', async () => {
    const central = createHardwareCentral({ adapterTimeoutMs: 200 });
    try {
      if (central instanceof NoAdapterCentral) {
        expect(central.state()).toBe('noAdapter');
        expect(central.stateReason()).toMatch(/could not be loaded/);
        await expect(central.startScan({}, () => undefined)).rejects.toMatchObject({
          name: 'BleError',
          step: 'adapter',
        });
        await expect(central.connect('aabbccddeeff')).rejects.toMatchObject({
          step: 'adapter',
          deviceId: 'aabbccddeeff',
        });
      } else {
        expect([
          'unknown',
          'resetting',
          'unsupported',
          'unauthorized',
          'poweredOff',
          'poweredOn',
          'noAdapter',
        ]).toContain(central.state());
      }
    } finally {
      await central.close();
    }
  });

  it('turns a binding that fails to initialise into noAdapter with the reason', async () => {
    class BrokenBinding extends EventEmitter {
      init(): void {
        throw new Error('No compatible USB Bluetooth 4.0 device found!');
      }
    }
    const central = new NobleCentral(withBindings(new BrokenBinding()), { adapterTimeoutMs: 100 });
    const states: string[] = [];
    central.onStateChange((s) => states.push(s));
    await new Promise((resolve) => setImmediate(resolve));
    expect(central.state()).toBe('noAdapter');
    expect(states).toEqual(['noAdapter']);
    expect(central.stateReason()).toContain('No compatible USB Bluetooth 4.0 device found!');
    const err = await central.startScan({}, () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BleError);
    expect((err as BleError).message).toContain(
      'the Bluetooth adapter is noAdapter: Initialization of USB device failed',
    );
    await central.close();
  });

  it('maps noble states and follows changes', async () => {
    class Binding extends EventEmitter {
      init(): void {
        process.nextTick(() => this.emit('stateChange', 'unauthorized'));
      }
    }
    const binding = new Binding();
    const central = new NobleCentral(withBindings(binding));
    await new Promise((resolve) => setImmediate(resolve));
    expect(central.state()).toBe('unauthorized');
    binding.emit('stateChange', 'somethingNew');
    expect(central.state()).toBe('unknown');
    await central.close();
  });

  it('gives every subscriber of a characteristic its notifications and unsubscribes on the last', async () => {
    r = rig([sensorBoard()]);
    const ad = await r.find({ name: 'sensor' });
    const link = await r.drive(r.central.connect(ad.id));
    const a: number[] = [];
    const b: number[] = [];
    const offA = await r.drive(link.subscribe(SENSOR_SERVICE, BUTTON, (d) => a.push(d[0]!)));
    const offB = await r.drive(link.subscribe(SENSOR_SERVICE, BUTTON, (d) => b.push(d[0]!)));
    r.bench.pressButton(ad.id);
    await r.clock.advance(20);
    await r.drive(offA());
    r.bench.pressButton(ad.id);
    await r.clock.advance(20);
    expect(a).toEqual([1]);
    expect(b).toEqual([1, 2]);
    await r.drive(offB());
    r.bench.pressButton(ad.id);
    await r.clock.advance(20);
    expect(b).toEqual([1, 2]);
  });
});
