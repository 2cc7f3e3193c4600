// How much a connection event carries, as a link layer times it (Core Specification v5.3,
// Vol 6, Part B): a data PDU's air time from its octets and PHY (2.1, 2.2: preamble, access
// address, header, payload, MIC on an encrypted link, CRC; 1 µs an octet-bit on LE 1M, half on
// LE 2M; LE Coded at S=8), and an event as exchanges — the central's PDU, T_IFS, the
// peripheral's (empty when it has nothing), T_IFS (4.5.1) — until the controller's own limit of
// PDUs per event or the next event's anchor. The link model (link.ts) and the benchmarks' floor
// (bench/mcumgr-upload.ts) both count with it (docs/decisions/simulated-bench.md, "Data length,
// PHY and interval in the link model").
import type { Phy } from '../link-parameters';

/** Inter frame space between two PDUs of an event (Vol 6, Part B, 4.1.1). */
const T_IFS_US = 150;

/** Header (2), CRC (3), MIC (4 when encrypted and the payload is not empty). */
function pduOctets(payload: number, encrypted: boolean): number {
  return 2 + payload + (encrypted && payload > 0 ? 4 : 0) + 3;
}

/** Microseconds a data PDU with `payload` octets takes on the air. */
export function pduAirUs(payload: number, phy: Phy, encrypted = false): number {
  const octets = pduOctets(payload, encrypted);
  // Preamble and access address: 1 + 4 octets at 1 Mb/s, 2 + 4 at 2 Mb/s.
  if (phy === '1M') return (1 + 4 + octets) * 8;
  if (phy === '2M') return (2 + 4 + octets) * 4;
  // LE Coded, S=8: preamble 80 µs, access address 256, CI 16, TERM1 24, then 64 µs an octet
  // and TERM2 24 (2.2).
  return 80 + 256 + 16 + 24 + octets * 64 + 24;
}

/** What bounds a link's connection events. */
export interface EventTiming {
  intervalMs: number;
  /** The controller's own limit of exchanges in one event. */
  pdusPerEvent: number;
  txPhy: Phy;
  rxPhy: Phy;
}

/**
 * One connection event's room: `take` books one exchange (a PDU each way, `undefined` for an
 * empty one) when it still fits, and says whether it did. The first exchange always fits: an
 * event has at least one.
 */
export class EventBudget {
  private used = 0;
  private exchanges = 0;

  constructor(
    private readonly timing: EventTiming,
    private readonly encrypted = false,
    /** Until another link's event is due (connection-schedule.ts); none: the whole interval. */
    private readonly roomUs = Infinity,
  ) {}

  take(central: number | undefined, peripheral: number | undefined): boolean {
    if (this.exchanges >= this.timing.pdusPerEvent) return false;
    const us =
      pduAirUs(central ?? 0, this.timing.txPhy, this.encrypted) +
      T_IFS_US +
      pduAirUs(peripheral ?? 0, this.timing.rxPhy, this.encrypted) +
      T_IFS_US;
    const room = Math.min(this.timing.intervalMs * 1000, this.roomUs);
    if (this.exchanges > 0 && this.used + us > room) return false;
    this.used += us;
    this.exchanges += 1;
    return true;
  }
}

/**
 * Connection events the central's PDUs of these payload sizes take, in order, when the
 * peripheral answers each with an empty PDU: the floor of a one-way transfer.
 */
export function eventsFor(payloads: readonly number[], timing: EventTiming): number {
  let events = 0;
  let at = 0;
  while (at < payloads.length) {
    const budget = new EventBudget(timing);
    while (at < payloads.length && budget.take(payloads[at], undefined)) at++;
    events++;
  }
  return events;
}
