// Every fault a simulated board can have, seen through the BleCentral API.
import { afterEach, describe, expect, it } from 'vitest';
import { rig, sensorBoard, SENSOR_SERVICE, LED, TEMPERATURE, type Rig } from './fixture';
import { BleError } from '../../../src/core/ble/port';

let r: Rig;
afterEach(() => r.close());

describe('simulated faults', () => {
  it('refuses connections while refuseConnection is set, and connects once it is cleared', async () => {
    r = rig([sensorBoard({ faults: { refuseConnection: true } })]);
    const ad = await r.find({ name: 'sensor' });
    const err = await r.drive(r.central.connect(ad.id)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BleError);
    expect(err).toMatchObject({
      step: 'connect',
      deviceId: ad.id,
      // The address is not in the text: the caller names the board, once, in its own form.
      message: 'the board refused the connection: Connection Failed to be Established (0x3e)',
    });
    expect(r.bench.setFaults(ad.id, {}).faults.refuseConnection).toBe(false);
    const link = await r.drive(r.central.connect(ad.id));
    expect(link.id).toBe(ad.id);
  });

  it('refuses a share of connections given a probability, the same share under the same seed', async () => {
    const outcomes = async () => {
      r = rig([sensorBoard({ faults: { refuseConnection: 0.5 } })]);
      const ad = await r.find({ name: 'sensor' });
      const results: boolean[] = [];
      for (let i = 0; i < 16; i++) {
        const link = await r.drive(r.central.connect(ad.id)).catch(() => null);
        results.push(link !== null);
        if (link) await r.drive(link.disconnect());
      }
      await r.close();
      return results;
    };
    const first = await outcomes();
    expect(first.filter(Boolean).length).toBeGreaterThan(2);
    expect(first.filter((ok) => !ok).length).toBeGreaterThan(2);
    expect(await outcomes()).toEqual(first);
    r = rig([]);
  });

  it('drops the link during the matching write: the write fails, onDisconnect fires, the fault fires once', async () => {
    r = rig([
      sensorBoard({ faults: { dropLinkDuringWrite: { characteristic: LED, afterWrites: 1 } } }),
    ]);
    const ad = await r.find({ name: 'sensor' });
    const link = await r.drive(r.central.connect(ad.id));
    const reasons: string[] = [];
    link.onDisconnect((reason) => reasons.push(reason));
    await r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1)));
    const err = await r
      .drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(0)))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BleError);
    expect(err).toMatchObject({
      step: 'write',
      deviceId: ad.id,
      // Said once: "link lost", then the controller's reason, not "… (link lost)" again.
      message: expect.stringMatching(
        /^writing characteristic [0-9a-f-]{36}: link lost: connection timeout \(0x08\)$/,
      ),
    });
    expect(reasons).toEqual(['connection timeout (0x08)']);
    const view = r.bench.view(ad.id);
    expect(view.connected).toBe(false);
    expect(view.faults.dropLinkDuringWrite).toBeUndefined();
    // The interrupted write was not stored, and the next link works.
    const again = await r.drive(r.central.connect((await r.find({ name: 'sensor' })).id));
    expect(Array.from(await r.drive(again.read(SENSOR_SERVICE, LED)))).toEqual([1]);
    await r.drive(again.write(SENSOR_SERVICE, LED, Uint8Array.of(0)));
  });

  it('makes every operation slower on a slow link', async () => {
    const timeOf = async (slowLink: number) => {
      r = rig([
        sensorBoard({ latency: { connectMs: 20, perOperationMs: 5 }, faults: { slowLink } }),
      ]);
      const ad = await r.find({ name: 'sensor' });
      const start = r.clock.now();
      const link = await r.drive(r.central.connect(ad.id));
      await r.drive(link.discover());
      for (let i = 0; i < 5; i++) await r.drive(link.read(SENSOR_SERVICE, TEMPERATURE));
      const elapsed = r.clock.now() - start;
      await r.close();
      return elapsed;
    };
    const normal = await timeOf(1);
    const slow = await timeOf(4);
    expect(normal).toBeGreaterThanOrEqual(20 + 5 * 5);
    expect(slow).toBeGreaterThanOrEqual(normal * 3.5);
    r = rig([]);
  });

  it('names the field of a bad fault', () => {
    r = rig([sensorBoard()]);
    expect(() => r.bench.setFaults('d63a41009901', { slowLink: 0.5 })).toThrow(
      /^faults\.slowLink: /,
    );
    expect(() => r.bench.setFaults('d63a41009901', { refuseConnection: 'yes' as never })).toThrow(
      /^faults\.refuseConnection: /,
    );
    expect(() => r.bench.setFaults('nope', {})).toThrow('no simulated board "nope"');
  });
});
