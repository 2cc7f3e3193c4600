// The H4 framer against arbitrary chunking and garbage: every packet comes out whole and in
// order, and every skipped byte is counted in runs that end at the next packet.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { H4Framer, H4_MAX_DATA_PAYLOAD } from '../../../../src/core/ble/hci/h4-framer';
import { HCI_PACKET } from '../../../../src/core/ble/hci/codes';
import { controllerPacketFault } from '../../../../src/core/ble/hci/packet-shape';

const event = fc
  .tuple(fc.integer({ min: 0x01, max: 0x5f }), fc.uint8Array({ maxLength: 255 }))
  .map(([code, params]) =>
    Buffer.concat([Buffer.from([HCI_PACKET.event, code, params.length]), params]),
  );

const acl = fc
  .tuple(fc.integer({ min: 0, max: 0xffff }), fc.uint8Array({ maxLength: 300 }))
  .map(([handle, data]) => {
    const header = Buffer.alloc(5);
    header[0] = HCI_PACKET.acl;
    header.writeUInt16LE(handle, 1);
    header.writeUInt16LE(data.length, 3);
    return Buffer.concat([header, data]);
  });

/** Bytes that start no packet a host receives. */
const garbage = fc
  .uint8Array({ minLength: 1, maxLength: 40 })
  .map((bytes) =>
    Buffer.from(bytes.map((b) => (b === HCI_PACKET.event || b === HCI_PACKET.acl ? 0xa5 : b))),
  );

/** Splits `stream` at the given cut points (any positions, any number). */
function chunks(stream: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, stream.length]) {
    out.push(stream.subarray(from, cut));
    from = cut;
  }
  return out;
}

function hostFramer() {
  const packets: Buffer[] = [];
  const resyncs: number[] = [];
  const framer = new H4Framer({
    accept: [HCI_PACKET.event, HCI_PACKET.acl],
    onPacket: (p) => packets.push(p),
    onResync: (skipped) => resyncs.push(skipped),
  });
  return { framer, packets, resyncs };
}

describe('H4 framer', () => {
  it('reassembles any packets across any chunk boundaries, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(event, acl), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (sent, cuts) => {
          const { framer, packets, resyncs } = hostFramer();
          for (const chunk of chunks(Buffer.concat(sent), cuts)) framer.push(chunk);
          expect(packets).toEqual(sent);
          expect(resyncs).toEqual([]);
          expect(framer.counts).toEqual({
            packets: sent.length,
            resyncs: 0,
            skippedBytes: 0,
            malformed: 0,
          });
        },
      ),
    );
  });

  it('skips garbage before a packet, counting each run once and every byte of it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.option(garbage, { nil: undefined }), fc.oneof(event, acl)), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (items, cuts) => {
          const stream = Buffer.concat(items.flatMap(([g, p]) => (g ? [g, p] : [p])));
          const { framer, packets, resyncs } = hostFramer();
          for (const chunk of chunks(stream, cuts)) framer.push(chunk);
          expect(packets).toEqual(items.map(([, p]) => p));
          const runs = items.flatMap(([g]) => (g ? [g.length] : []));
          expect(resyncs).toEqual(runs);
          expect(framer.counts.skippedBytes).toBe(runs.reduce((a, b) => a + b, 0));
        },
      ),
    );
  });

  it('takes an ACL header asking for more than any controller sends as garbage', () => {
    const { framer, packets, resyncs } = hostFramer();
    const implausible = Buffer.alloc(5);
    implausible[0] = HCI_PACKET.acl;
    implausible.writeUInt16LE(H4_MAX_DATA_PAYLOAD + 1, 3);
    const reset = Buffer.from([HCI_PACKET.event, 0x0e, 4, 1, 0x03, 0x0c, 0]);
    // Without the check the framer would wait for 4 KiB and swallow the real event.
    framer.push(Buffer.concat([implausible, reset]));
    expect(packets).toEqual([reset]);
    expect(resyncs).toEqual([5]);
  });

  it('holds a partial packet until the rest arrives, and a garbage run until a packet ends it', () => {
    const { framer, packets, resyncs } = hostFramer();
    framer.push(Buffer.from([0x00, 0xff, HCI_PACKET.event, 0x0e]));
    expect(packets).toEqual([]);
    expect(framer.pendingSkipped).toBe(2);
    framer.push(Buffer.from([1, 0x42]));
    expect(packets).toEqual([Buffer.from([HCI_PACKET.event, 0x0e, 1, 0x42])]);
    expect(resyncs).toEqual([2]);
    expect(framer.pendingSkipped).toBe(0);
  });

  it('drops a framed packet its check refuses and reads the bytes after its first again', () => {
    const packets: Buffer[] = [];
    const malformed: string[] = [];
    const resyncs: number[] = [];
    const framer = new H4Framer({
      accept: [HCI_PACKET.event, HCI_PACKET.acl],
      onPacket: (p) => packets.push(p),
      onResync: (skipped) => resyncs.push(skipped),
      check: controllerPacketFault,
      onMalformed: (_p, why) => malformed.push(why),
    });
    const reset = Buffer.from([HCI_PACKET.event, 0x0e, 4, 1, 0x03, 0x0c, 0]);
    // A noise header whose length swallows the real event: framed, it is no event at all.
    framer.push(Buffer.concat([Buffer.from([HCI_PACKET.event, 0x13, reset.length]), reset]));
    expect(malformed).toEqual(['a Number Of Completed Packets of 7 bytes for 4 handles']);
    expect(packets).toEqual([reset]);
    expect(resyncs).toEqual([3]);
    expect(framer.counts).toMatchObject({ packets: 1, malformed: 1, skippedBytes: 3 });
  });

  it('gives up a packet that never finishes and reads what it held again', () => {
    const { framer, packets, resyncs } = hostFramer();
    const reset = Buffer.from([HCI_PACKET.event, 0x0e, 4, 1, 0x03, 0x0c, 0]);
    framer.push(Buffer.concat([Buffer.from([HCI_PACKET.event, 0x0e, 0x20]), reset]));
    expect(packets).toEqual([]);
    expect(framer.held).toBe(10);
    framer.abandonHeld();
    expect(packets).toEqual([reset]);
    expect(resyncs).toEqual([3]);
    expect(framer.held).toBe(0);
  });
});
