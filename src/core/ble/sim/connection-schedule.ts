// The virtual controller's one radio, shared by its links: their connection events take turns
// on it. A controller places a new link's anchor (the CONNECT_IND's window offset, and again at
// a connection update that changes the interval) where its events are furthest from its other
// links' events, as Zephyr's and Nordic's link layers do, and a link's event ends when the next
// link's event is due, so the more links, the fewer exchanges an event can hold: at 15 ms and
// four links, 3.75 ms each — four 27-octet exchanges still fit, one 251-octet one on LE 1M
// (Core Specification v5.3, Vol 6, Part B, 4.5.1 and 4.5.3; docs/decisions/simulated-bench.md,
// "Several links on one controller"). Scanning takes what the events leave and is not modelled.

/** A link as the schedule sees it: its events on its own grid. */
export interface ScheduledLink {
  /** Its first connection event strictly after `t` (ms). */
  eventAfter(t: number): number;
}

export class ConnectionSchedule {
  private readonly links = new Set<ScheduledLink>();

  add(link: ScheduledLink): void {
    this.links.add(link);
  }

  remove(link: ScheduledLink): void {
    this.links.delete(link);
  }

  /**
   * The first event of `link`, whose events may start anywhere in (from, from + intervalMs]:
   * the middle of the widest gap between the other links' events, or the end of the window
   * when it is alone.
   */
  place(link: ScheduledLink, from: number, intervalMs: number): number {
    const offsets: number[] = [];
    for (const other of this.links)
      if (other !== link) offsets.push((other.eventAfter(from) - from) % intervalMs);
    if (!offsets.length) return from + intervalMs;
    offsets.sort((a, b) => a - b);
    let start = offsets[offsets.length - 1]! - intervalMs;
    let widest = offsets[0]! - start;
    for (let i = 1; i < offsets.length; i++) {
      const gap = offsets[i]! - offsets[i - 1]!;
      if (gap > widest) {
        widest = gap;
        start = offsets[i - 1]!;
      }
    }
    const offset = (start + widest / 2 + intervalMs) % intervalMs;
    return from + (offset > 0 ? offset : intervalMs);
  }

  /** Microseconds from `at` until another link's next event: how long `link`'s event may last. */
  roomUs(link: ScheduledLink, at: number): number {
    let room = Infinity;
    for (const other of this.links)
      if (other !== link) room = Math.min(room, (other.eventAfter(at - 1e-9) - at) * 1000);
    return room;
  }
}
