// An HciSocket (socket.ts) over any byte stream carrying H4: a serial port, a TCP or Unix
// socket. noble's hci.js runs above it in raw mode as over the kernel's socket: the controller
// is reset here once, on open, so `isDevUp` is true from the first poll and noble goes on to
// its own setup. When the stream ends under a live session (a dongle unplugged, the peer
// closed) every open link ends with a Disconnection Complete, so each connection above ends as
// when the board goes away, and `lost` tells the central why. Only packets whose own lengths
// agree reach noble; a controller that stops answering commands, or a packet noble throws on,
// resets the controller (links reported lost) and noble sets it up again (docs/decisions.md,
// "H4 transports").
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { H4Framer, type H4Counts } from './h4-framer';
import { HCI_CMD, HCI_ERROR, HCI_EVENT, HCI_PACKET, LE_SUBEVENT, traceNote } from './codes';
import { controllerHeaderFault, controllerPacketFault, isNoCommandComplete } from './packet-shape';
import { lostLinkEvent, type TraceSink } from './tap';
import type { HciDevice, HciSocket } from './socket';
import { errorMessage } from '../../errors/message';

/** How long a controller has to answer the HCI Reset sent on open. */
const H4_RESET_TIMEOUT_MS = 1_000;

/**
 * How long a controller has to answer any command (Command Complete or Status): real ones
 * answer in milliseconds, so a second means the stream lost the command or its answer.
 */
const COMMAND_TIMEOUT_MS = 1_000;

/** While links are open, a command goes out this often when none is waiting, as a heartbeat. */
const HEARTBEAT_MS = 500;

/** How often the commands waiting for an answer are looked at. */
const WATCH_MS = 250;

/**
 * A packet begun but not finished after this long without a byte is taken as noise (its
 * length byte was): at 1,000,000 baud the largest packet takes 41 ms.
 */
const STALL_MS = 250;

/** Resets that give up when this many are needed within `RESET_WINDOW_MS`. */
const RESETS_IN_WINDOW = 3;
const RESET_WINDOW_MS = 60_000;

/** What to suspect when the stream is corrupt. */
const CORRUPT_HINT = '(wrong baud rate? noise?)';

/** Corruption is said once, this long after it is first met, so its count covers the burst. */
const NOTICE_AFTER_MS = 1_000;

/** A transport that opened but has no controller behind it, or could not open at all. */
export class H4TransportError extends Error {
  override name = 'H4TransportError';
}

/** An answer to the Reset lost to a corrupt stream (bytes were dropped while it was awaited). */
class CorruptAnswer extends H4TransportError {}

export interface H4SocketOptions {
  /** Says where the stream goes, in errors: "/dev/ttyACM0 at 1000000 baud", "127.0.0.1:7000". */
  label: string;
  /** What to check when no controller answers (appended to the error). */
  hint: string;
  /** Records what the framer skipped, as a vendor event a btsnoop reader shows (see `resyncRecord`). */
  trace?: TraceSink;
  /** A run of garbage was skipped on the stream. */
  onResync?: (skippedBytes: number, counts: H4Counts) => void;
  resetTimeoutMs?: number;
  /** Bound on each command's answer (the heartbeat's too); default 1 s. */
  commandTimeoutMs?: number;
}

/** The Reset command, H4 framed. */
const RESET = Buffer.from([HCI_PACKET.command, HCI_CMD.reset & 0xff, HCI_CMD.reset >> 8, 0]);

/**
 * The trace's record of a resync: an HCI vendor event (0xff) whose parameters are an ASCII line
 * saying how many bytes were skipped and the first of them in hex. It never reaches noble.
 */
function resyncRecord(skippedBytes: number, head: Buffer): Buffer {
  return traceNote(
    `H4 resync: skipped ${skippedBytes} bytes: ${head.subarray(0, 16).toString('hex')}`,
  );
}

/** The heartbeat: Read Local Version Information, which every controller answers at once. */
const HEARTBEAT = Buffer.from([
  HCI_PACKET.command,
  HCI_CMD.readLocalVersion & 0xff,
  HCI_CMD.readLocalVersion >> 8,
  0,
]);

/** The opcode a Command Complete or Command Status answers, if the packet is one. */
function answeredOpcode(packet: Buffer): number | undefined {
  if (packet[0] !== HCI_PACKET.event) return undefined;
  if (packet[1] === HCI_EVENT.commandComplete && packet.length >= 6) return packet.readUInt16LE(4);
  if (packet[1] === HCI_EVENT.commandStatus && packet.length >= 7) return packet.readUInt16LE(5);
  return undefined;
}

/**
 * The link an event reports on, for the events about one open link (7.7.5, 7.7.8, 7.7.39,
 * 7.7.65.3, 7.7.65.12): Connection_Handle after the Status (and the subevent code).
 */
function linkHandleOf(packet: Buffer): number | undefined {
  switch (packet[1]) {
    case HCI_EVENT.disconnectionComplete:
    case HCI_EVENT.encryptionChange:
    case HCI_EVENT.encryptionKeyRefreshComplete:
      return packet.readUInt16LE(4) & 0x0fff;
    case HCI_EVENT.leMeta:
      return packet[3] === LE_SUBEVENT.connectionUpdateComplete ||
        packet[3] === LE_SUBEVENT.phyUpdateComplete
        ? packet.readUInt16LE(5) & 0x0fff
        : undefined;
    default:
      return undefined;
  }
}

interface SentCommand {
  opcode: number;
  at: number;
  /** The heartbeat: its answer stays here. */
  ours: boolean;
}

function isResetComplete(packet: Buffer): boolean {
  return (
    packet[0] === HCI_PACKET.event &&
    packet[1] === HCI_EVENT.commandComplete &&
    packet.length >= 6 &&
    packet.readUInt16LE(4) === HCI_CMD.reset
  );
}

export class H4Socket extends EventEmitter implements HciSocket {
  private readonly framer: H4Framer;
  private started = false;
  private up = false;
  private closed = false;
  /** Connection handles the controller announced and has not yet ended. */
  private readonly links = new Set<number>();
  private onResetAnswer: (() => void) | null = null;
  private lostReason: string | undefined;
  /** Commands sent and not yet answered, oldest first. */
  private waiting: SentCommand[] = [];
  private lastHeartbeat = 0;
  private watch: ReturnType<typeof setInterval> | undefined;
  private stall: ReturnType<typeof setTimeout> | undefined;
  /** A reset under a live session: noble must see the adapter down once before it is up again. */
  private recovery: { answered: boolean; noticed: boolean } | null = null;
  /** When each reset under a live session began, within the last window. */
  private resets: number[] = [];
  /** Whether the stream's corruption has been (or is about to be) said. */
  private noticed = false;
  private notice: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly stream: Duplex,
    private readonly options: H4SocketOptions,
  ) {
    super();
    this.framer = new H4Framer({
      accept: [HCI_PACKET.event, HCI_PACKET.acl],
      onPacket: (packet) => this.received(packet),
      checkHeader: (header) => controllerHeaderFault(header) ?? this.unknownLink(header),
      check: (packet) => controllerPacketFault(packet) ?? this.unexpected(packet),
      onMalformed: (packet, why) => {
        options.trace?.(
          'received',
          traceNote(`H4 dropped ${why}: ${packet.subarray(0, 16).toString('hex')}`),
        );
        this.corrupted();
      },
      onResync: (skipped, head) => {
        options.trace?.('received', resyncRecord(skipped, head));
        options.onResync?.(skipped, this.framer.counts);
        this.corrupted();
      },
    });
    stream.on('data', (chunk: Buffer) => this.push(chunk));
    stream.on('error', (err: Error) => this.lose(errorMessage(err)));
    stream.on('close', () => this.lose('the connection closed'));
  }

  /** Packets, resyncs and skipped bytes so far. */
  get counts(): H4Counts {
    return this.framer.counts;
  }

  /** Why the stream went away under a live session, once it has. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * Resets the controller; resolves once it answers. Rejects with what to check when nothing
   * answers in time or the stream ends first; an answer lost to a corrupt stream is tried once
   * more, then named as corrupt.
   */
  async reset(): Promise<void> {
    try {
      await this.resetController();
    } catch (err) {
      if (!(err instanceof CorruptAnswer)) throw err;
      await this.resetController();
    }
    this.up = true;
  }

  /** Sends an HCI Reset; resolves at its Command Complete, rejects with an H4TransportError. */
  private resetController(): Promise<void> {
    const limit = this.options.resetTimeoutMs ?? H4_RESET_TIMEOUT_MS;
    const before = this.dropped();
    return new Promise<void>((resolve, reject) => {
      const fail = (err: Error) => {
        this.onResetAnswer = null;
        clearTimeout(timer);
        this.off('lost', onLost);
        reject(err);
      };
      const onLost = (reason: string) =>
        fail(
          new H4TransportError(
            `the HCI controller on ${this.options.label} went away during reset: ${reason}`,
          ),
        );
      const timer = setTimeout(() => {
        const dropped = this.dropped() - before;
        fail(
          dropped > 0
            ? new CorruptAnswer(
                `the answer to the HCI Reset on ${this.options.label} was corrupt: ${dropped} bytes dropped and no whole answer within ${limit} ms ${CORRUPT_HINT}`,
              )
            : new H4TransportError(
                `no HCI controller answered on ${this.options.label} within ${limit} ms: ${this.options.hint}`,
              ),
        );
      }, limit);
      this.once('lost', onLost);
      this.onResetAnswer = () => {
        this.onResetAnswer = null;
        clearTimeout(timer);
        this.off('lost', onLost);
        resolve();
      };
      this.stream.write(RESET);
    });
  }

  bindRaw(devId = 0): number {
    return devId;
  }

  bindUser(devId = 0): number {
    return devId;
  }

  bindControl(): void {}

  /**
   * noble polls this each second and sets the controller up again when it comes back after
   * being down; after a reset under a live session it reads down once, whenever it looks.
   */
  isDevUp(): boolean {
    if (!this.up || this.lostReason) return false;
    if (this.recovery) {
      if (!this.recovery.noticed || !this.recovery.answered) {
        this.recovery.noticed = true;
        return false;
      }
      this.recovery = null;
    }
    return true;
  }

  /** The kernel's packet filter has no counterpart on a stream: the controller sends what it sends. */
  setFilter(): void {}

  start(): void {
    this.started = true;
    this.watch ??= setInterval(() => this.watchCommands(), WATCH_MS);
    this.watch.unref?.();
  }

  stop(): void {
    if (this.closed) return;
    this.closed = true;
    this.up = false;
    this.quiet();
    this.stream.destroy();
  }

  write(packet: Buffer): void {
    if (this.closed || this.lostReason || this.recovery) return;
    if (packet[0] === HCI_PACKET.command && packet.length >= 3)
      this.waiting.push({ opcode: packet.readUInt16LE(1), at: Date.now(), ours: false });
    this.stream.write(packet);
  }

  getDeviceList(): HciDevice[] {
    return [
      {
        devId: 0,
        devUp: this.up && !this.lostReason && !this.recovery,
        idVendor: null,
        idProduct: null,
        busNumber: null,
        deviceAddress: null,
      },
    ];
  }

  /**
   * The stream was corrupt under a live session: said once, in words, a moment later (the
   * `corrupt` event), with every byte dropped by then. Noise before the Reset's answer is what
   * the controller had queued, and is not said.
   */
  private corrupted(): void {
    if (this.noticed || !this.started) return;
    this.noticed = true;
    this.notice = setTimeout(() => {
      if (this.closed) return;
      this.emit(
        'corrupt',
        `the HCI stream from ${this.options.label} was corrupt: ${this.dropped()} bytes dropped, resynced ${CORRUPT_HINT}`,
      );
    }, NOTICE_AFTER_MS);
    this.notice.unref?.();
  }

  /** Bytes the framer has dropped so far, a run not yet ended included. */
  private dropped(): number {
    return this.framer.counts.skippedBytes + this.framer.pendingSkipped;
  }

  private push(chunk: Buffer): void {
    this.framer.push(chunk);
    clearTimeout(this.stall);
    this.stall = undefined;
    if (this.framer.held && !this.closed && !this.lostReason) {
      this.stall = setTimeout(() => this.framer.abandonHeld(), STALL_MS);
      this.stall.unref?.();
    }
  }

  /** Whether packets are checked against the session: not while stale ones are flushed. */
  private get live(): boolean {
    return this.up && !this.onResetAnswer && !this.recovery;
  }

  /** ACL data (its header is enough) on a handle no Connection Complete announced is noise. */
  private unknownLink(header: Buffer): string | undefined {
    if (header[0] !== HCI_PACKET.acl || !this.live) return undefined;
    const handle = header.readUInt16LE(1) & 0x0fff;
    return this.links.has(handle)
      ? undefined
      : `an ACL packet on handle 0x${handle.toString(16).padStart(3, '0')}, which no link has`;
  }

  /**
   * An event that cannot belong to this session is noise that looked like one: an answer to a
   * command nobody sent, news of a link that does not exist.
   */
  private unexpected(packet: Buffer): string | undefined {
    if (packet[0] !== HCI_PACKET.event || !this.live) return undefined;
    const opcode = answeredOpcode(packet);
    if (opcode !== undefined)
      return opcode === 0 || this.waiting.some((c) => c.opcode === opcode)
        ? undefined
        : `an answer to command 0x${opcode.toString(16).padStart(4, '0')}, which was not sent`;
    const handle = linkHandleOf(packet);
    return handle === undefined || this.links.has(handle)
      ? undefined
      : `an event 0x${packet[1]!.toString(16).padStart(2, '0')} about handle 0x${handle.toString(16).padStart(3, '0')}, which no link has`;
  }

  private received(packet: Buffer): void {
    if (this.onResetAnswer) {
      // Before the Reset is answered, whatever the controller still had queued is stale.
      if (isResetComplete(packet)) this.onResetAnswer();
      return;
    }
    if (this.answered(packet) || isNoCommandComplete(packet)) return;
    this.followLinks(packet);
    if (!this.started || this.recovery) return;
    // The tap above catches what noble throws on it and calls `recover`.
    this.emit('data', packet);
  }

  /** Takes the answer to a command off the waiting list; true when it answers the heartbeat. */
  private answered(packet: Buffer): boolean {
    const opcode = answeredOpcode(packet);
    if (opcode === undefined) return false;
    const at = this.waiting.findIndex((c) => c.opcode === opcode);
    if (at < 0) return false;
    const [sent] = this.waiting.splice(at, 1);
    return sent?.ours === true;
  }

  /** A command unanswered too long resets the controller; a heartbeat goes out while links are open. */
  private watchCommands(): void {
    if (this.closed || this.lostReason || this.recovery || !this.up) return;
    const now = Date.now();
    const limit = this.options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
    const oldest = this.waiting[0];
    if (oldest && now - oldest.at > limit) {
      this.recover(
        `the controller did not answer command 0x${oldest.opcode.toString(16).padStart(4, '0')} within ${limit} ms`,
      );
      return;
    }
    if (this.links.size && !this.waiting.length && now - this.lastHeartbeat >= HEARTBEAT_MS) {
      this.lastHeartbeat = now;
      this.waiting.push({ opcode: HCI_CMD.readLocalVersion, at: now, ours: true });
      this.stream.write(HEARTBEAT);
    }
  }

  /**
   * The controller and noble start over: every link ends as lost, the controller is reset, and
   * noble sees the adapter down and up again, which makes it set the controller up anew. A
   * controller that does not answer the Reset, or needs too many, is lost.
   */
  recover(why: string): void {
    if (this.closed || this.lostReason || this.recovery) return;
    const now = Date.now();
    this.resets = [...this.resets.filter((t) => now - t < RESET_WINDOW_MS), now];
    this.options.trace?.('received', traceNote(`adapter reset: ${why}`));
    // Set first: noble may throw on the links' ends too, and that is this same reset.
    this.recovery = { answered: false, noticed: false };
    this.endLinks();
    if (this.resets.length > RESETS_IN_WINDOW) {
      const dropped = this.dropped();
      this.lose(
        `${RESETS_IN_WINDOW} resets within ${RESET_WINDOW_MS / 1000} s did not help: ${why}${dropped ? `; the stream was corrupt: ${dropped} bytes dropped ${CORRUPT_HINT}` : ''}`,
      );
      return;
    }
    this.waiting = [];
    this.emit('resetting', why);
    this.resetController().then(
      () => {
        if (this.recovery) this.recovery.answered = true;
      },
      (err: unknown) => this.lose(`it did not come back after a reset: ${errorMessage(err)}`),
    );
  }

  private followLinks(packet: Buffer): void {
    if (packet[0] !== HCI_PACKET.event) return;
    if (packet[1] === HCI_EVENT.disconnectionComplete && packet[3] === HCI_ERROR.success)
      this.links.delete(packet.readUInt16LE(4) & 0x0fff);
    else if (
      packet[1] === HCI_EVENT.leMeta &&
      (packet[3] === LE_SUBEVENT.connectionComplete ||
        packet[3] === LE_SUBEVENT.enhancedConnectionComplete) &&
      packet[4] === HCI_ERROR.success
    )
      this.links.add(packet.readUInt16LE(5) & 0x0fff);
  }

  /** Each open link ends with a Disconnection Complete (hardware failure), as if the controller sent it. */
  private endLinks(): void {
    for (const handle of [...this.links]) {
      this.links.delete(handle);
      if (this.started) this.emit('data', lostLinkEvent(handle));
    }
  }

  private quiet(): void {
    clearInterval(this.watch);
    clearTimeout(this.stall);
    clearTimeout(this.notice);
  }

  /**
   * The stream ended: if noble was using it, each open link ends with a Disconnection Complete
   * (hardware failure) passed up as if the controller had sent it, then `lost` says why.
   */
  private lose(reason: string): void {
    if (this.closed || this.lostReason) return;
    this.quiet();
    this.lostReason = `the HCI controller on ${this.options.label} went away (${reason})`;
    this.recovery = null;
    this.endLinks();
    this.emit('lost', this.lostReason);
  }
}
