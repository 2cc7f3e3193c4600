// The host's share of a controller's ACL buffers among links (src/core/ble/hci/acl-scheduler.ts):
// a link with a long write must not hold the buffers the next link's connection event needs.
import { describe, expect, it } from 'vitest';
import { AclScheduler } from '../../../../src/core/ble/hci/acl-scheduler';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, commandPacket } from '../../../../src/core/ble/hci/codes';

const acl = (handle: number, n: number) =>
  Buffer.of(HCI_PACKET.acl, handle & 0xff, handle >> 8, 1, 0, n);
const handleOf = (packet: Buffer) => packet.readUInt16LE(1) & 0x0fff;

function event(code: number, params: number[]): Buffer {
  return Buffer.of(HCI_PACKET.event, code, params.length, ...params);
}

/** Command Complete of LE Read Buffer Size: 27-octet packets, `count` of them. */
const leBuffers = (count: number) =>
  event(HCI_EVENT.commandComplete, [1, 0x02, 0x20, 0, 27, 0, count]);

const completed = (handle: number, count: number) =>
  event(HCI_EVENT.numberOfCompletedPackets, [1, handle & 0xff, handle >> 8, count, 0]);

function scheduler(buffers = 4) {
  const sent: Buffer[] = [];
  const toHost: Buffer[] = [];
  const s = new AclScheduler({ toController: (p) => sent.push(p), toHost: (p) => toHost.push(p) });
  expect(s.fromController(leBuffers(buffers))).toBe(true);
  return { s, sent, toHost };
}

describe('AclScheduler', () => {
  it('gives freed buffers to the link completed longest ago, not to the one that queued first', () => {
    const { s, sent } = scheduler(4);
    // Link 0x40 queues a long write first, then 0x41 and 0x42 a few packets each.
    for (let i = 0; i < 10; i++) s.fromHost(acl(0x40, i));
    for (let i = 0; i < 3; i++) s.fromHost(acl(0x41, i));
    for (let i = 0; i < 3; i++) s.fromHost(acl(0x42, i));
    expect(sent.map(handleOf)).toEqual([0x40, 0x40, 0x40, 0x40]);
    // 0x40's event carried two: both buffers go to the links whose events come next.
    expect(s.fromController(completed(0x40, 2))).toBe(false);
    expect(sent.slice(4).map(handleOf)).toEqual([0x41, 0x41]);
    s.fromController(completed(0x41, 2));
    expect(sent.slice(6).map(handleOf)).toEqual([0x42, 0x42]);
    s.fromController(completed(0x42, 2));
    expect(sent.slice(8).map(handleOf)).toEqual([0x40, 0x40]);
    // 0x41 was completed before 0x42, and 0x42 before 0x40: their last packets go first.
    s.fromController(completed(0x40, 2));
    expect(sent.slice(10).map(handleOf)).toEqual([0x41, 0x42]);
    expect(sent.filter((p) => handleOf(p) === 0x40).map((p) => p[5])).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('tells the host each packet it took completed, once per turn, and keeps the controller’s', async () => {
    const { s, toHost } = scheduler(2);
    for (let i = 0; i < 3; i++) s.fromHost(acl(0x40, i));
    s.fromHost(acl(0x41, 0));
    expect(toHost).toEqual([]);
    await Promise.resolve();
    expect(toHost).toEqual([
      event(HCI_EVENT.numberOfCompletedPackets, [2, 0x40, 0, 3, 0, 0x41, 0, 1, 0]),
    ]);
  });

  it('says what a link still has to send, here or in the controller, and when that changes', () => {
    let told = 0;
    const s = new AclScheduler({
      toController: () => undefined,
      toHost: () => undefined,
      sent: () => told++,
    });
    s.fromController(leBuffers(2));
    for (let i = 0; i < 3; i++) s.fromHost(acl(0x40, i));
    // Told completed to the host at once, yet one waits here and two are in the controller.
    expect(s.pending(0x40)).toBe(3);
    s.fromController(completed(0x40, 2));
    expect([s.pending(0x40), told]).toEqual([1, 1]);
    s.fromController(completed(0x40, 1));
    expect([s.pending(0x40), told]).toEqual([0, 2]);
    s.fromHost(acl(0x41, 0));
    s.fromController(event(HCI_EVENT.disconnectionComplete, [0, 0x41, 0, 0x13]));
    expect([s.pending(0x41), told]).toEqual([0, 3]);
  });

  it('frees a link’s buffers when it goes down, and starts over after a reset', () => {
    const { s, sent } = scheduler(2);
    s.fromHost(acl(0x40, 0));
    s.fromHost(acl(0x40, 1));
    s.fromHost(acl(0x41, 0));
    expect(sent.map(handleOf)).toEqual([0x40, 0x40]);
    // Disconnection Complete: status 0, handle 0x40, reason 0x13; its unsent packets are flushed.
    expect(s.fromController(event(HCI_EVENT.disconnectionComplete, [0, 0x40, 0, 0x13]))).toBe(true);
    expect(sent.slice(2).map(handleOf)).toEqual([0x41]);
    s.fromHost(commandPacket(HCI_CMD.reset));
    s.fromHost(acl(0x42, 0));
    s.fromHost(acl(0x42, 1));
    expect(sent.slice(4).map(handleOf)).toEqual([0x42, 0x42]);
  });

  it('passes everything as it comes until the controller says how many buffers it has', () => {
    const sent: Buffer[] = [];
    const s = new AclScheduler({ toController: (p) => sent.push(p), toHost: () => undefined });
    for (let i = 0; i < 5; i++) s.fromHost(acl(0x40, i));
    expect(sent).toHaveLength(5);
    expect(s.fromController(completed(0x40, 5))).toBe(true);
    // LE buffers 0: LE shares the BR/EDR ones (Read Buffer Size, 7.4.5), here 1.
    s.fromController(leBuffers(0));
    s.fromController(event(HCI_EVENT.commandComplete, [1, 0x05, 0x10, 0, 0x1b, 0, 0, 1, 0, 0, 0]));
    expect(s.buffers).toBe(1);
    s.fromHost(acl(0x40, 5));
    s.fromHost(acl(0x40, 6));
    expect(sent).toHaveLength(6);
  });
});
