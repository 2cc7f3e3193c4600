// Asking for an MTU through real noble over the virtual controller: each connection's Exchange
// MTU Request carries the MTU asked for it, and the link's MTU is the smaller of that and the
// board's own (its board file's `mtu`), as ATT settles it.
import { afterEach, describe, expect, it } from 'vitest';
import { ATT_OP } from '../../../src/core/ble/att/codes';
import { rig, sensorBoard, SENSOR_SERVICE, LED, type Rig } from './fixture';

let r: Rig;
afterEach(() => r.close());

/** The MTUs of the Exchange MTU Requests sent and Responses received, as the trace saw them. */
function exchanges() {
  const seen: string[] = [];
  return {
    seen,
    trace: (direction: 'sent' | 'received', p: Uint8Array) => {
      const b = Buffer.from(p);
      // ACL data on the ATT channel (L2CAP CID 0x0004): the opcode follows the two headers.
      if (b[0] !== 0x02 || b.length < 12 || b.readUInt16LE(7) !== 0x0004) return;
      if (direction === 'sent' && b[9] === ATT_OP.mtuReq)
        seen.push(`request ${b.readUInt16LE(10)}`);
      if (direction === 'received' && b[9] === ATT_OP.mtuRsp)
        seen.push(`response ${b.readUInt16LE(10)}`);
    },
  };
}

describe('asking for an MTU', () => {
  it('sends the MTU asked for each connection; the link takes the smaller of it and the board’s', async () => {
    const trace = exchanges();
    r = rig([sensorBoard({ mtu: 185 })], {}, { trace: trace.trace });
    const ad = await r.find({ name: 'sensor' });

    const small = await r.drive(r.central.connect(ad.id, { mtu: 100 }));
    expect(small.mtu).toBe(100);
    expect(small.linkInfo?.()?.mtu).toBe(100);
    await expect(
      r.drive(small.write(SENSOR_SERVICE, LED, new Uint8Array(98), { withoutResponse: true })),
    ).rejects.toThrow('98 bytes do not fit a write without response (MTU 100 carries 97)');
    await r.drive(small.disconnect());

    const large = await r.drive(r.central.connect(ad.id, { mtu: 517 }));
    expect(large.mtu).toBe(185);
    expect(large.linkInfo?.()?.mtu).toBe(185);
    await r.drive(large.disconnect());

    const unasked = await r.drive(r.central.connect(ad.id));
    expect(trace.seen).toEqual([
      'request 100',
      'response 185',
      'request 517',
      'response 185',
      // noble's own, once nothing is asked.
      'request 256',
      'response 185',
    ]);
    expect(unasked.mtu).toBe(185);
  });
});
