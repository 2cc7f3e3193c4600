// H4 framing (Bluetooth Core v5.3, Vol 4, Part A): on a byte stream every HCI packet is its
// packet type byte, then the packet as the HCI socket carries it. The stream's chunks have no
// relation to packets, so the framer reassembles them; a byte that starts no plausible packet
// (line noise, a controller's boot banner, a baud-rate mismatch) is skipped and counted, and the
// run of skipped bytes is reported once the next plausible packet starts. A packet whose own
// lengths do not agree (`check`) is noise that looked like a header: it is dropped and the bytes
// after its first are read again, so a corrupt length swallows nothing (docs/decisions.md, "H4
// transports").
import { HCI_PACKET } from './codes';

/** Header bytes after the type byte, and where the payload length sits in them. */
interface Layout {
  header: number;
  length: (packet: Buffer) => number;
  plausible: (packet: Buffer) => boolean;
}

/**
 * The largest ACL or ISO payload taken as plausible: far above any LE controller's buffers
 * (251 octets for LE ACL), far below the 64 KiB a misread length byte would ask to wait for.
 */
export const H4_MAX_DATA_PAYLOAD = 4096;

const LAYOUTS: Record<number, Layout> = {
  [HCI_PACKET.command]: {
    header: 3,
    length: (p) => p[3]!,
    plausible: (p) => p.readUInt16LE(1) !== 0,
  },
  [HCI_PACKET.acl]: {
    header: 4,
    length: (p) => p.readUInt16LE(3),
    plausible: (p) => p.readUInt16LE(3) <= H4_MAX_DATA_PAYLOAD,
  },
  [HCI_PACKET.sco]: { header: 3, length: (p) => p[3]!, plausible: () => true },
  [HCI_PACKET.event]: {
    header: 2,
    length: (p) => p[2]!,
    // Event codes run from 0x01 up (Vol 4, Part E, 7.7); 0xfe/0xff are test and vendor events.
    plausible: (p) => (p[1]! >= 0x01 && p[1]! <= 0x5f) || p[1]! >= 0xfe,
  },
  [HCI_PACKET.iso]: {
    header: 4,
    length: (p) => p.readUInt16LE(3) & 0x3fff,
    plausible: (p) => (p.readUInt16LE(3) & 0x3fff) <= H4_MAX_DATA_PAYLOAD,
  },
};

export interface H4Counts {
  /** Whole packets delivered. */
  packets: number;
  /** Runs of skipped bytes, each ended by a plausible packet. */
  resyncs: number;
  /** Bytes skipped in all. */
  skippedBytes: number;
  /** Packets framed by their header that `check` refused; their bytes count as skipped. */
  malformed: number;
}

export interface H4FramerOptions {
  /** The packet types this side receives: a host takes events and ACL, a controller commands and ACL. */
  accept: readonly number[];
  onPacket: (packet: Buffer) => void;
  /** A run of skipped bytes ended; `skipped` holds at most the first 64 of them. */
  onResync?: (skippedBytes: number, skipped: Buffer) => void;
  /** Why a framed packet cannot be what its header says; undefined when it can. */
  check?: (packet: Buffer) => string | undefined;
  /**
   * Why a header (type byte and the header after it) starts no packet this side takes, asked
   * before its body is waited for: a refused header is dropped as `check` refuses a packet.
   */
  checkHeader?: (header: Buffer) => string | undefined;
  /** A framed packet was refused by `check` and dropped. */
  onMalformed?: (packet: Buffer, why: string) => void;
}

const KEPT_GARBAGE = 64;

export class H4Framer {
  private buffer: Buffer = Buffer.alloc(0);
  private skipping = 0;
  private skippedHead: Buffer[] = [];
  private readonly accept: ReadonlySet<number>;
  readonly counts: H4Counts = { packets: 0, resyncs: 0, skippedBytes: 0, malformed: 0 };

  constructor(private readonly options: H4FramerOptions) {
    this.accept = new Set(options.accept);
  }

  /** Bytes skipped since the last packet (a run not yet ended). */
  get pendingSkipped(): number {
    return this.skipping;
  }

  /** Bytes held for a packet not yet whole. */
  get held(): number {
    return this.buffer.length;
  }

  /**
   * The packet begun at the head of what is held never finished (its length was noise, or the
   * rest was lost): its first byte is taken as noise and the rest read again.
   */
  abandonHeld(): void {
    if (!this.buffer.length) return;
    this.skip(this.buffer.subarray(0, 1));
    this.buffer = Buffer.from(this.buffer.subarray(1));
    this.push(Buffer.alloc(0));
  }

  push(chunk: Uint8Array): void {
    this.buffer = this.buffer.length
      ? Buffer.concat([this.buffer, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let at = 0;
    while (at < this.buffer.length) {
      const type = this.buffer[at]!;
      const layout = this.accept.has(type) ? LAYOUTS[type] : undefined;
      if (!layout) {
        this.skip(this.buffer.subarray(at, at + 1));
        at += 1;
        continue;
      }
      if (this.buffer.length - at < 1 + layout.header) break;
      const view = this.buffer.subarray(at);
      if (!layout.plausible(view)) {
        this.skip(this.buffer.subarray(at, at + 1));
        at += 1;
        continue;
      }
      const size = 1 + layout.header + layout.length(view);
      const fault =
        this.options.checkHeader?.(view.subarray(0, 1 + layout.header)) ??
        (view.length < size ? undefined : this.options.check?.(view.subarray(0, size)));
      if (!fault && view.length < size) break;
      if (fault) {
        this.counts.malformed += 1;
        this.options.onMalformed?.(Buffer.from(view.subarray(0, size)), fault);
        this.skip(this.buffer.subarray(at, at + 1));
        at += 1;
        continue;
      }
      this.endSkip();
      // A copy: the packet outlives this buffer and its receiver may keep it.
      const packet = Buffer.from(view.subarray(0, size));
      at += size;
      this.counts.packets += 1;
      this.options.onPacket(packet);
    }
    this.buffer = at === 0 ? this.buffer : Buffer.from(this.buffer.subarray(at));
  }

  private skip(bytes: Buffer): void {
    if (this.skipping < KEPT_GARBAGE) this.skippedHead.push(Buffer.from(bytes));
    this.skipping += bytes.length;
    this.counts.skippedBytes += bytes.length;
  }

  private endSkip(): void {
    if (!this.skipping) return;
    const skipped = this.skipping;
    const head = Buffer.concat(this.skippedHead).subarray(0, KEPT_GARBAGE);
    this.skipping = 0;
    this.skippedHead = [];
    this.counts.resyncs += 1;
    this.options.onResync?.(skipped, head);
  }
}
