// noble's hci.js throwing on a packet, on a socket that cannot reset its controller (the
// simulated bench's virtual controller, as a kernel adapter): the tap, where every socket's
// packets reach noble, keeps the exception in and ends the links instead; the operation fails
// with its link, nothing hangs, and the central connects again (docs/decisions.md, "A noisy
// serial line").
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rig, sensorBoard, LED, SENSOR_SERVICE, type Rig } from './fixture';

const require = createRequire(import.meta.url);
interface HciClass {
  prototype: { onSocketData(packet: Buffer): void };
}

const ACL = 0x02;
/** Set: noble throws on the next ACL packet it is given, as it did on a packet cut short. */
let throwOnAcl = false;
let Hci: HciClass;
let onSocketData: HciClass['prototype']['onSocketData'];

beforeAll(async () => {
  // noble's hci.js is loaded once a central has pointed it at our sockets (the first rig).
  await rig([]).close();
  Hci = require('@abandonware/noble/lib/hci-socket/hci.js') as HciClass;
  onSocketData = Hci.prototype.onSocketData;
  // noble binds its handler when its socket opens, so this is in place before the rig is made.
  Hci.prototype.onSocketData = function (this: unknown, packet: Buffer) {
    if (throwOnAcl && packet[0] === ACL) {
      throwOnAcl = false;
      throw new RangeError('The value of "offset" is out of range.');
    }
    onSocketData.call(this, packet);
  };
});
afterAll(() => {
  Hci.prototype.onSocketData = onSocketData;
});

let r: Rig;
afterEach(() => r.close());

describe('an exception from noble on a packet of the virtual controller', () => {
  it('ends the link instead of escaping; the read fails with it and the board connects again', async () => {
    r = rig([sensorBoard()]);
    const ad = await r.find({});
    const link = await r.drive(r.central.connect(ad.id));
    expect(Buffer.from(await r.drive(link.read(SENSOR_SERVICE, LED))).toString('hex')).toBe('00');
    throwOnAcl = true;
    await expect(r.drive(link.read(SENSOR_SERVICE, LED))).rejects.toThrow(
      /link lost|disconnected/i,
    );
    expect(throwOnAcl).toBe(false);
    // The controller ended the link too: the board is free for the next connection.
    for (let t = 0; r.bench.view(ad.id).connected && t < 2_000; t += 10) await r.clock.advance(10);
    expect(r.bench.view(ad.id).connected).toBe(false);
    const again = await r.drive(r.central.connect(ad.id));
    expect(Buffer.from(await r.drive(again.read(SENSOR_SERVICE, LED))).toString('hex')).toBe('00');
  });
});
