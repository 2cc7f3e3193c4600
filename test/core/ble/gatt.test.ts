import { afterEach, describe, expect, it } from 'vitest';
import { rig, sensorBoard, SENSOR_SERVICE, BUTTON, TEMPERATURE, LED, type Rig } from './fixture';
import { BleError, type BleConnection } from '../../../src/core/ble/port';

let r: Rig;
afterEach(() => r.close());

async function connected(): Promise<BleConnection> {
  r = rig([sensorBoard()]);
  const ad = await r.find({ name: 'sensor' });
  return r.drive(r.central.connect(ad.id));
}

const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

describe('GATT through noble over the simulated bench', () => {
  it('connects, reports the board MTU and discovers every service and characteristic', async () => {
    const link = await connected();
    expect(link.id).toBe('d63a41009901');
    expect(link.mtu).toBe(185);
    const services = await r.drive(link.discover());
    expect(services).toEqual([
      {
        uuid: 'a3c800007f2e4b619c0d5e1f2a3b4c5d',
        characteristics: [
          { uuid: 'a3c800017f2e4b619c0d5e1f2a3b4c5d', properties: ['read', 'notify'] },
          { uuid: 'a3c800027f2e4b619c0d5e1f2a3b4c5d', properties: ['read', 'notify'] },
          {
            uuid: 'a3c800037f2e4b619c0d5e1f2a3b4c5d',
            properties: ['read', 'writeWithoutResponse', 'write'],
          },
        ],
      },
    ]);
    expect(r.bench.view(link.id).connected).toBe(true);
  });

  it('reads, writes with and without response, and reads back', async () => {
    const link = await connected();
    expect(hex(await r.drive(link.read(SENSOR_SERVICE, TEMPERATURE)))).toBe('fa08');
    await r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1)));
    expect(hex(await r.drive(link.read(SENSOR_SERVICE, LED)))).toBe('01');
    await r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(0), { withoutResponse: true }));
    expect(
      hex(await r.drive(link.read(SENSOR_SERVICE.toUpperCase(), LED.replaceAll('-', '')))),
    ).toBe('00');
  });

  it('names the step, device and characteristic when an operation cannot be done', async () => {
    const link = await connected();
    await expect(
      r.drive(link.write(SENSOR_SERVICE, TEMPERATURE, Uint8Array.of(1))),
    ).rejects.toMatchObject({
      // Refused by the properties check, as final as the board's own refusal.
      name: 'NotAllowedError',
      step: 'write',
      deviceId: link.id,
      message:
        'characteristic a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d does not allow write (it allows read, notify)',
    });
    await expect(r.drive(link.read(SENSOR_SERVICE, '2a19'))).rejects.toMatchObject({
      step: 'read',
      message: expect.stringContaining(
        'has no characteristic 00002a19-0000-1000-8000-00805f9b34fb',
      ),
    });
    await expect(
      r.drive(link.write(SENSOR_SERVICE, LED, new Uint8Array(200), { withoutResponse: true })),
    ).rejects.toMatchObject({
      step: 'write',
      message: expect.stringContaining('MTU 185 carries 182'),
    });
    // A value longer than the characteristic holds: the board answers an ATT error.
    await expect(
      r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1, 2))),
    ).rejects.toMatchObject({
      step: 'write',
      message: expect.stringContaining('ATT error 0x0d (invalid attribute value length)'),
    });
    // The link is still usable after each refusal.
    expect(hex(await r.drive(link.read(SENSOR_SERVICE, LED)))).toBe('00');
  });

  it('refuses to connect to a device no scan has seen', async () => {
    r = rig([sensorBoard()]);
    const err = await r.drive(r.central.connect('aabbccddeeff')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BleError);
    expect(err).toMatchObject({
      step: 'connect',
      deviceId: 'aabbccddeeff',
      message: expect.stringContaining('scan for it first'),
    });
  });

  it('delivers button presses to subscribers, and stops after unsubscribe', async () => {
    const link = await connected();
    const values: string[] = [];
    const unsubscribe = await r.drive(
      link.subscribe(SENSOR_SERVICE, BUTTON, (d) => values.push(hex(d))),
    );
    r.bench.pressButton(link.id);
    r.bench.pressButton(link.id, 'button');
    await r.clock.advance(50);
    expect(values).toEqual(['01', '02']);
    // A read returns the latest value; it is not a notification.
    expect(hex(await r.drive(link.read(SENSOR_SERVICE, BUTTON)))).toBe('02');
    expect(values).toEqual(['01', '02']);
    await r.drive(unsubscribe());
    r.bench.pressButton(link.id);
    await r.clock.advance(50);
    expect(values).toEqual(['01', '02']);
    expect(() => r.bench.pressButton(link.id, 'reset')).toThrow('has no button "reset"');
  });

  it('sends periodic notifications while subscribed', async () => {
    const link = await connected();
    const values: string[] = [];
    const unsubscribe = await r.drive(
      link.subscribe(SENSOR_SERVICE, TEMPERATURE, (d) => values.push(hex(d))),
    );
    await r.clock.advance(350);
    expect(values).toEqual(['0409', '0409', '0409']);
    await r.drive(unsubscribe());
    await r.clock.advance(500);
    expect(values.length).toBe(3);
  });

  it('notifies a drifting reading that stays in its range and moves by at most its step', async () => {
    r = rig([
      sensorBoard({
        notifications: {
          periodic: [
            {
              characteristic: TEMPERATURE,
              intervalMs: 100,
              payload: {
                kind: 'drift',
                type: 'int16le',
                min: 2290,
                max: 2310,
                start: 2300,
                step: 4,
              },
            },
          ],
        },
      }),
    ]);
    const ad = await r.find({ name: 'sensor' });
    const link = await r.drive(r.central.connect(ad.id));
    const values: number[] = [];
    await r.drive(
      link.subscribe(SENSOR_SERVICE, TEMPERATURE, (d) =>
        values.push(Buffer.from(d).readInt16LE(0)),
      ),
    );
    await r.clock.advance(3_050);
    expect(values.length).toBe(30);
    expect(new Set(values).size).toBeGreaterThan(3);
    let last = 2300;
    for (const v of values) {
      expect(v).toBeGreaterThanOrEqual(2290);
      expect(v).toBeLessThanOrEqual(2310);
      expect(Math.abs(v - last)).toBeLessThanOrEqual(4);
      last = v;
    }
    expect(hex(await r.drive(link.read(SENSOR_SERVICE, TEMPERATURE)))).toBe(
      Buffer.from(Int16Array.of(last).buffer).toString('hex'),
    );
  });

  it('reports its own disconnect once, and refuses operations afterwards', async () => {
    const link = await connected();
    const reasons: string[] = [];
    link.onDisconnect((reason) => reasons.push(reason));
    await r.drive(link.disconnect());
    expect(reasons).toEqual(['disconnected by this computer (0x16)']);
    expect(r.bench.view(link.id).connected).toBe(false);
    await expect(r.drive(link.read(SENSOR_SERVICE, LED))).rejects.toMatchObject({
      step: 'read',
      message: expect.stringContaining('not connected'),
    });
  });

  it('does not advertise while connected, and does again after', async () => {
    const link = await connected();
    expect(await r.collect({ name: 'sensor' }, 200)).toEqual([]);
    await r.drive(link.disconnect());
    expect((await r.collect({ name: 'sensor' }, 200)).length).toBeGreaterThan(0);
  });

  it('times a connection out when the board does not answer', async () => {
    r = rig([sensorBoard({ latency: { connectMs: 5_000 } })]);
    const ad = await r.find({ name: 'sensor' });
    const err = await r.drive(r.central.connect(ad.id, { timeoutMs: 50 })).catch((e: unknown) => e);
    expect(err).toMatchObject({
      name: 'BleError',
      step: 'connect',
      message: 'no connection within 50 ms',
    });
  });
});
