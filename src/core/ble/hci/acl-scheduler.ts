// Host-to-controller ACL flow control across links (Core Specification v5.3, Vol 4, Part E,
// 4.1.1): the controller has one pool of ACL buffers for all its LE links, and a buffer comes
// back only once its link's connection event carried the packet (Number Of Completed Packets).
// noble's hci.js sends from one queue in arrival order, so a link with a long write (an MCUmgr
// upload: a 2.5 kB request is 95 packets of 27 octets) fills the pool and every other link waits
// behind it for connection events that are not its own. The scheduler keeps the pool instead:
// it takes noble's packets at once (telling noble they completed, so noble's own queue never
// holds any), keeps a queue per link, and gives each freed buffer to the link whose packets the
// controller completed longest ago. The links' connection events come round in that order, so
// the link whose event is next has its packets in the controller when the event comes
// (docs/decisions/ble-and-hci.md, "Several links on one controller").
import { HCI_CMD, HCI_EVENT, HCI_PACKET } from './codes';

interface LinkQueue {
  waiting: Buffer[];
  /** Packets of this link in the controller's buffers. */
  inFlight: number;
  /** When the controller last completed packets of this link (the scheduler's count of NOCPs). */
  completedAt: number;
}

interface AclSchedulerPorts {
  toController(packet: Buffer): void;
  /** Events the scheduler makes for the host: Number Of Completed Packets for what it took. */
  toHost(packet: Buffer): void;
  /**
   * The controller completed packets, or a link went down with its packets: what waits for a
   * link's packets to be over the air (`pending`) looks again.
   */
  sent?(): void;
}

/** A Number Of Completed Packets event (7.7.19) for `counts`: handle → packets. */
function completedPackets(counts: Map<number, number>): Buffer {
  const packet = Buffer.alloc(4 + counts.size * 4);
  packet[0] = HCI_PACKET.event;
  packet[1] = HCI_EVENT.numberOfCompletedPackets;
  packet[2] = 1 + counts.size * 4;
  packet[3] = counts.size;
  let at = 4;
  for (const [handle, count] of counts) {
    packet.writeUInt16LE(handle, at);
    packet.writeUInt16LE(count, at + 2);
    at += 4;
  }
  return packet;
}

export class AclScheduler {
  /** LE Read Buffer Size's count, and Read Buffer Size's, which LE uses when the first is 0. */
  private leBuffers: number | undefined;
  private sharedBuffers: number | undefined;
  private inFlight = 0;
  private readonly links = new Map<number, LinkQueue>();
  private completions = 0;
  private readonly taken = new Map<number, number>();

  constructor(private readonly ports: AclSchedulerPorts) {}

  /** The controller's ACL buffers, once it said (7.8.2, 7.4.5); until then packets pass as they come. */
  get buffers(): number | undefined {
    return this.leBuffers || this.sharedBuffers || undefined;
  }

  /**
   * A link's packets not yet over the air: waiting here or in the controller's buffers. The host
   * was told they completed when they were taken; what must know they went out (a pairing's
   * last keys, before its link may end) asks here.
   */
  pending(handle: number): number {
    const link = this.links.get(handle);
    return link ? link.waiting.length + link.inFlight : 0;
  }

  /** A packet from the host: an ACL packet waits in its link's queue for a free buffer. */
  fromHost(packet: Buffer): void {
    if (isCommand(packet, HCI_CMD.reset)) this.clear();
    if (packet[0] !== HCI_PACKET.acl || packet.length < 3 || this.buffers === undefined) {
      this.ports.toController(packet);
      return;
    }
    const handle = packet.readUInt16LE(1) & 0x0fff;
    let link = this.links.get(handle);
    if (!link) {
      link = { waiting: [], inFlight: 0, completedAt: 0 };
      this.links.set(handle, link);
    }
    link.waiting.push(packet);
    this.tellTaken(handle);
    this.pump();
  }

  /** A packet from the controller; false when it is the scheduler's alone (its NOCPs). */
  fromController(packet: Buffer): boolean {
    if (packet[0] !== HCI_PACKET.event || packet.length < 3) return true;
    const p = packet.subarray(3);
    switch (packet[1]) {
      case HCI_EVENT.commandComplete:
        this.readBufferSize(p);
        return true;
      case HCI_EVENT.numberOfCompletedPackets:
        return !this.completed(p);
      case HCI_EVENT.disconnectionComplete:
        // Status, Connection_Handle, Reason (7.7.5): the link's unsent packets are flushed.
        if (p.length >= 3 && p[0] === 0) this.forget(p.readUInt16LE(1) & 0x0fff);
        return true;
      default:
        return true;
    }
  }

  private readBufferSize(p: Buffer): void {
    // Num_HCI_Command_Packets, Command_Opcode, Status, then the return parameters (7.7.14).
    if (p.length < 4 || p[3] !== 0) return;
    const op = p.readUInt16LE(1);
    if ((op === HCI_CMD.leReadBufferSize || op === HCI_CMD.leReadBufferSizeV2) && p.length >= 7)
      this.leBuffers = p[6];
    else if (op === HCI_CMD.readBufferSize && p.length >= 9) this.sharedBuffers = p.readUInt16LE(7);
  }

  /** True when the event was the scheduler's to count (it then does not reach the host). */
  private completed(p: Buffer): boolean {
    if (this.buffers === undefined || p.length < 1) return false;
    const count = p[0] ?? 0;
    for (let i = 0; i < count && p.length >= 5 + i * 4; i++) {
      const link = this.links.get(p.readUInt16LE(1 + i * 4) & 0x0fff);
      const done = Math.min(p.readUInt16LE(3 + i * 4), link?.inFlight ?? 0);
      if (!link || done === 0) continue;
      link.inFlight -= done;
      this.inFlight -= done;
      link.completedAt = ++this.completions;
    }
    this.pump();
    this.ports.sent?.();
    return true;
  }

  private forget(handle: number): void {
    const link = this.links.get(handle);
    if (!link) return;
    this.links.delete(handle);
    this.inFlight -= link.inFlight;
    this.pump();
    this.ports.sent?.();
  }

  private clear(): void {
    this.links.clear();
    this.inFlight = 0;
  }

  /** Fills the free buffers, the link completed longest ago first. */
  private pump(): void {
    const buffers = this.buffers ?? 0;
    while (this.inFlight < buffers) {
      let next: LinkQueue | undefined;
      for (const link of this.links.values())
        if (link.waiting.length && (!next || link.completedAt < next.completedAt)) next = link;
      if (!next) return;
      while (next.waiting.length && this.inFlight < buffers) {
        next.inFlight++;
        this.inFlight++;
        this.ports.toController(next.waiting.shift()!);
      }
    }
  }

  /** noble counts its packets against the pool too: each one taken is reported completed to it. */
  private tellTaken(handle: number): void {
    if (!this.taken.size)
      queueMicrotask(() => {
        const counts = new Map(this.taken);
        this.taken.clear();
        this.ports.toHost(completedPackets(counts));
      });
    this.taken.set(handle, (this.taken.get(handle) ?? 0) + 1);
  }
}

function isCommand(packet: Buffer, op: number): boolean {
  return packet[0] === HCI_PACKET.command && packet.length >= 3 && packet.readUInt16LE(1) === op;
}
