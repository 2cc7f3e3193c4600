// An HciSocket (socket.ts) over any byte stream carrying H4: a serial port, a TCP or Unix
// socket. noble's hci.js runs above it in raw mode as over the kernel's socket: the controller
// is reset here once, on open, so `isDevUp` is true from the first poll and noble goes on to
// its own setup. When the stream ends under a live session (a dongle unplugged, the peer
// closed) every open link ends with a Disconnection Complete, so each connection above ends as
// when the board goes away, and `lost` tells the central why (docs/decisions.md, "H4
// transports").
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { H4Framer, type H4Counts } from './h4-framer';
import { HCI_CMD, HCI_ERROR, HCI_EVENT, HCI_PACKET, LE_SUBEVENT } from './codes';
import type { TraceSink } from './tap';
import type { HciDevice, HciSocket } from './socket';
import { errorMessage } from '../../errors/message';

/** How long a controller has to answer the HCI Reset sent on open. */
const H4_RESET_TIMEOUT_MS = 1_000;

/** A transport that opened but has no controller behind it, or could not open at all. */
export class H4TransportError extends Error {
  override name = 'H4TransportError';
}

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
}

/** The Reset command, H4 framed. */
const RESET = Buffer.from([HCI_PACKET.command, HCI_CMD.reset & 0xff, HCI_CMD.reset >> 8, 0]);

/**
 * The trace's record of a resync: an HCI vendor event (0xff) whose parameters are an ASCII line
 * saying how many bytes were skipped and the first of them in hex. It never reaches noble.
 */
function resyncRecord(skippedBytes: number, head: Buffer): Buffer {
  const text = Buffer.from(
    `DeviceBench H4 resync: skipped ${skippedBytes} bytes: ${head.subarray(0, 16).toString('hex')}`,
    'latin1',
  ).subarray(0, 255);
  return Buffer.concat([Buffer.from([HCI_PACKET.event, 0xff, text.length]), text]);
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

  constructor(
    private readonly stream: Duplex,
    private readonly options: H4SocketOptions,
  ) {
    super();
    this.framer = new H4Framer({
      accept: [HCI_PACKET.event, HCI_PACKET.acl],
      onPacket: (packet) => this.received(packet),
      onResync: (skipped, head) => {
        options.trace?.('received', resyncRecord(skipped, head));
        options.onResync?.(skipped, this.framer.counts);
      },
    });
    stream.on('data', (chunk: Buffer) => this.framer.push(chunk));
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
   * answers in time or the stream ends first.
   */
  reset(): Promise<void> {
    const limit = this.options.resetTimeoutMs ?? H4_RESET_TIMEOUT_MS;
    return new Promise<void>((resolve, reject) => {
      const fail = (why: string) => {
        this.onResetAnswer = null;
        clearTimeout(timer);
        this.off('lost', onLost);
        reject(new H4TransportError(why));
      };
      const onLost = (reason: string) =>
        fail(`the HCI controller on ${this.options.label} went away during reset: ${reason}`);
      const timer = setTimeout(
        () =>
          fail(
            `no HCI controller answered on ${this.options.label} within ${limit} ms: ${this.options.hint}`,
          ),
        limit,
      );
      this.once('lost', onLost);
      this.onResetAnswer = () => {
        this.onResetAnswer = null;
        clearTimeout(timer);
        this.off('lost', onLost);
        this.up = true;
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

  isDevUp(): boolean {
    return this.up && !this.lostReason;
  }

  /** The kernel's packet filter has no counterpart on a stream: the controller sends what it sends. */
  setFilter(): void {}

  start(): void {
    this.started = true;
  }

  stop(): void {
    if (this.closed) return;
    this.closed = true;
    this.up = false;
    this.stream.destroy();
  }

  write(packet: Buffer): void {
    if (this.closed || this.lostReason) return;
    this.stream.write(packet);
  }

  getDeviceList(): HciDevice[] {
    return [
      {
        devId: 0,
        devUp: this.isDevUp(),
        idVendor: null,
        idProduct: null,
        busNumber: null,
        deviceAddress: null,
      },
    ];
  }

  private received(packet: Buffer): void {
    if (this.onResetAnswer) {
      // Before the Reset is answered, whatever the controller still had queued is stale.
      if (isResetComplete(packet)) this.onResetAnswer();
      return;
    }
    this.followLinks(packet);
    if (this.started) this.emit('data', packet);
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

  /**
   * The stream ended: if noble was using it, each open link ends with a Disconnection Complete
   * (hardware failure) passed up as if the controller had sent it, then `lost` says why.
   */
  private lose(reason: string): void {
    if (this.closed || this.lostReason) return;
    this.lostReason = `the HCI controller on ${this.options.label} went away (${reason})`;
    if (this.started) {
      for (const handle of [...this.links]) {
        const event = Buffer.from([
          HCI_PACKET.event,
          HCI_EVENT.disconnectionComplete,
          4,
          HCI_ERROR.success,
          handle & 0xff,
          handle >> 8,
          HCI_ERROR.hardwareFailure,
        ]);
        this.links.delete(handle);
        this.emit('data', event);
      }
    }
    this.emit('lost', this.lostReason);
  }
}
