// One LE link of the virtual controller, timed as the link layer times it: data moves only at
// connection events (every `intervalMs` from the anchor), in exchanges of one data PDU of at
// most `dataLength` octets each way, as many as the controller's `pdusPerEvent` and the
// interval's air time hold on the link's PHY (link-airtime.ts); a host ACL packet is freed
// (Number Of Completed Packets) once all its PDUs went out; a peer that stops answering is lost
// after the supervision timeout (Core Specification v5.3, Vol 6, Part B, 4.5).
import { HCI_ERROR } from '../hci/codes';
import type { Clock, Timer } from '../../async/clock';
import type { Phy } from '../link-parameters';
import { EventBudget } from './link-airtime';
import { ConnectionSchedule, type ScheduledLink } from './connection-schedule';

/** The board's end of the link, as the link layer sees it. */
export interface LinkPeer {
  /** One complete L2CAP PDU (basic frame payload) from the central on channel `cid`. */
  receive(cid: number, payload: Buffer): void;
  /** The link is down: drop timers and state. */
  closed(): void;
  /**
   * Connection events each data PDU takes to get through: 1 on a clean link, more on a poor one
   * (the rest are retransmissions).
   */
  eventsPerPdu(): number;
}

export interface LinkEvents {
  /** ACL data towards the host: one HCI ACL packet per link-layer PDU, first one flagged start. */
  toHost(handle: number, data: Buffer, start: boolean): void;
  /** Host ACL packets that went out (the controller reports them as completed). */
  completed(handle: number, count: number): void;
  /** The link is gone, with the reason the host is told. */
  down(handle: number, reason: number): void;
}

export interface LinkTiming {
  intervalMs: number;
  supervisionTimeoutMs: number;
  /** Payload octets of one data PDU: 27 until a Data Length Update (Vol 6, Part B, 4.5.10). */
  dataLength: number;
  pdusPerEvent: number;
  txPhy: Phy;
  rxPhy: Phy;
}

interface HostPacket {
  data: Buffer;
  start: boolean;
  /** Octets of `data` already sent over the air. */
  sent: number;
  /** When the host handed it to the controller: no event before that carries it. */
  queuedAt: number;
}

interface PeerPdu {
  data: Buffer;
  start: boolean;
  readyAt: number;
}

export class Link implements ScheduledLink {
  readonly handle: number;
  private readonly clock: Clock;
  private readonly events: LinkEvents;
  private timing: LinkTiming;
  private anchor: number;
  private lastEvent: number;
  private peer: LinkPeer | null = null;
  private readonly fromHost: HostPacket[] = [];
  private readonly toHost: PeerPdu[] = [];
  private reassembly: { cid: number; length: number; parts: Buffer[]; received: number } | null =
    null;
  private timer: Timer | null = null;
  private timerAt = 0;
  private supervision: Timer | null = null;
  /** The peer went silent (a board that reset or lost power): nothing is exchanged any more. */
  private silent = false;
  private terminating: number | null = null;
  private readonly atEvent: Array<() => void> = [];
  /** Events since the last one that got data through, on a link that needs retransmissions. */
  private attempts = 0;
  private open = true;
  encrypted = false;

  constructor(
    handle: number,
    clock: Clock,
    timing: LinkTiming,
    events: LinkEvents,
    /** The controller's other links, whose events this link's take turns with. */
    private readonly schedule = new ConnectionSchedule(),
  ) {
    this.handle = handle;
    this.clock = clock;
    this.timing = timing;
    this.events = events;
    // The first event is one interval after the link is up, later where other links' are near.
    this.anchor = schedule.place(this, clock.now(), timing.intervalMs) - timing.intervalMs;
    this.lastEvent = this.anchor;
    schedule.add(this);
  }

  get intervalMs(): number {
    return this.timing.intervalMs;
  }

  get dataLength(): number {
    return this.timing.dataLength;
  }

  get supervisionTimeoutMs(): number {
    return this.timing.supervisionTimeoutMs;
  }

  get isOpen(): boolean {
    return this.open;
  }

  attach(peer: LinkPeer): void {
    this.peer = peer;
  }

  /** One HCI ACL packet from the host (its payload, after the 4-byte ACL header). */
  fromHostPacket(data: Buffer, start: boolean): void {
    if (!this.open) return;
    this.fromHost.push({ data, start, sent: 0, queuedAt: this.clock.now() });
    this.wake();
  }

  /** An L2CAP PDU the peer sends, ready `delayMs` from now; split into data PDUs. */
  send(cid: number, payload: Buffer, delayMs = 0): void {
    if (!this.open || this.silent) return;
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeUInt16LE(payload.length, 0);
    frame.writeUInt16LE(cid, 2);
    payload.copy(frame, 4);
    const readyAt = this.clock.now() + delayMs;
    // The board's stack queues a PDU when it is ready: later-ready ones never block earlier ones.
    let at = this.toHost.length;
    while (at > 0 && this.toHost[at - 1]!.readyAt > readyAt) at--;
    const pdus: PeerPdu[] = [];
    for (let offset = 0; offset < frame.length; offset += this.timing.dataLength)
      pdus.push({
        data: frame.subarray(offset, offset + this.timing.dataLength),
        start: offset === 0,
        readyAt,
      });
    this.toHost.splice(at, 0, ...pdus);
    this.wake(readyAt);
  }

  /** Runs `action` at the next connection event (a control procedure's instant). */
  nextEvent(action: () => void): void {
    if (!this.open) return;
    this.atEvent.push(action);
    this.wake();
  }

  /** New timing from a connection update, a PHY or data length update, from the next event on. */
  retime(timing: Partial<LinkTiming>): void {
    this.anchor = this.nextEventAt(this.clock.now());
    this.lastEvent = this.anchor - this.timing.intervalMs;
    const interval = timing.intervalMs ?? this.timing.intervalMs;
    if (interval !== this.timing.intervalMs) {
      // A new interval gets a new place among the other links' events (the update's offset).
      this.anchor = this.schedule.place(this, this.anchor - 1e-9, interval);
      this.lastEvent = this.anchor - interval;
    }
    this.timing = { ...this.timing, ...timing };
  }

  /** Ends the link at the next event with LL_TERMINATE_IND (host or board initiated). */
  terminate(reason: number): void {
    if (!this.open || this.terminating !== null) return;
    if (this.silent) return;
    this.terminating = reason;
    this.wake();
  }

  /** The peer stops answering: the central finds out after the supervision timeout. */
  goSilent(): void {
    if (!this.open || this.silent) return;
    this.silent = true;
    this.toHost.length = 0;
    this.armSupervision();
  }

  /** The controller itself is going away (reset, power off): no air time, no timeout. */
  abort(reason: number): void {
    this.close(reason);
  }

  private armSupervision(): void {
    if (this.supervision) this.clock.clearTimeout(this.supervision);
    // An idle link still has its events (empty PDUs): the peer was last heard at the latest one.
    const interval = this.timing.intervalMs;
    const latest = this.anchor + Math.floor((this.clock.now() - this.anchor) / interval) * interval;
    const deadline = Math.max(this.lastEvent, latest) + this.timing.supervisionTimeoutMs;
    this.supervision = this.clock.setTimeout(
      () => this.close(HCI_ERROR.connectionTimeout),
      Math.max(0, deadline - this.clock.now()),
    );
  }

  eventAfter(t: number): number {
    return this.nextEventAt(t);
  }

  /** The first connection event strictly after `t`. */
  private nextEventAt(t: number): number {
    const interval = this.timing.intervalMs;
    const n = Math.floor((t - this.anchor) / interval) + 1;
    return Math.max(this.anchor + n * interval, this.lastEvent + interval);
  }

  /**
   * Makes sure a connection event runs at the first one not before `notBefore`. An event that
   * is already past (`catchUp`, the process woke late) runs at once, as the time it was: a
   * controller keeps its events whatever its host's process is doing.
   */
  private wake(notBefore = this.clock.now(), catchUp = false): void {
    if (!this.open) return;
    const from = catchUp ? notBefore : Math.max(notBefore, this.clock.now());
    const at = this.nextEventAt(from - 1e-9);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => this.connectionEvent(at), at - this.clock.now());
  }

  private connectionEvent(at: number): void {
    this.timer = null;
    if (!this.open) return;
    this.lastEvent = at;
    if (this.silent) return;
    for (const action of this.atEvent.splice(0)) action();
    if (this.terminating !== null) {
      this.close(this.terminating);
      return;
    }
    if (
      (this.fromHost[0]?.queuedAt ?? Infinity) <= at ||
      (this.toHost[0]?.readyAt ?? Infinity) <= at
    ) {
      // On a poor link only every n-th event gets data through; the others retransmit.
      this.attempts++;
      if (this.attempts >= (this.peer?.eventsPerPdu() ?? 1)) {
        this.attempts = 0;
        this.exchange(at);
      }
    }
    // The next event with something to carry, counted from this one: on a process that woke
    // late that may be past too, and runs at once with what was queued by its time (a timer
    // that fired late must not cost the link the events it slept through).
    const soon = at + 1e-6;
    if (this.atEvent.length || this.terminating !== null) this.wake(soon);
    else if (this.fromHost.length || this.toHost.length)
      this.wake(
        Math.max(
          Math.min(this.fromHost[0]?.queuedAt ?? Infinity, this.toHost[0]?.readyAt ?? Infinity),
          soon,
        ),
        true,
      );
  }

  /**
   * One event's exchanges: each carries the central's next PDU (a piece of the first host ACL
   * packet) and the peer's next ready one, either possibly empty, while the event has room.
   */
  private exchange(at: number): void {
    const budget = new EventBudget(this.timing, this.encrypted, this.schedule.roomUs(this, at));
    let completed = 0;
    while (!this.silent) {
      const packet = (this.fromHost[0]?.queuedAt ?? Infinity) <= at ? this.fromHost[0] : undefined;
      const chunk = packet?.data.subarray(packet.sent, packet.sent + this.timing.dataLength);
      const pdu = (this.toHost[0]?.readyAt ?? Infinity) <= at ? this.toHost[0] : undefined;
      if (!chunk && !pdu) break;
      if (!budget.take(chunk?.length, pdu?.data.length)) break;
      if (packet && chunk) {
        this.reassemble(chunk, packet.start && packet.sent === 0);
        packet.sent += chunk.length;
        if (packet.sent >= packet.data.length) {
          this.fromHost.shift();
          completed++;
        }
        if (!this.open) return;
      }
      if (pdu) {
        this.toHost.shift();
        this.events.toHost(this.handle, pdu.data, pdu.start);
      }
    }
    if (completed) this.events.completed(this.handle, completed);
  }

  /** The board's L2CAP layer: basic frames rebuilt from the central's fragments. */
  private reassemble(chunk: Buffer, start: boolean): void {
    if (start) {
      if (chunk.length < 4) {
        this.reassembly = null;
        return;
      }
      this.reassembly = {
        length: chunk.readUInt16LE(0),
        cid: chunk.readUInt16LE(2),
        parts: [chunk.subarray(4)],
        received: chunk.length - 4,
      };
    } else if (this.reassembly) {
      this.reassembly.parts.push(chunk);
      this.reassembly.received += chunk.length;
    } else return;
    const r = this.reassembly;
    if (r.received >= r.length) {
      this.reassembly = null;
      this.peer?.receive(r.cid, Buffer.concat(r.parts).subarray(0, r.length));
    }
  }

  private close(reason: number): void {
    if (!this.open) return;
    this.open = false;
    this.schedule.remove(this);
    if (this.timer) this.clock.clearTimeout(this.timer);
    if (this.supervision) this.clock.clearTimeout(this.supervision);
    this.timer = null;
    this.supervision = null;
    this.fromHost.length = 0;
    this.toHost.length = 0;
    this.peer?.closed();
    this.events.down(this.handle, reason);
  }
}
