// The PSDIs one station's reservations have picked and are still inserting, per product, so a
// station's concurrent reservations never race each other for a value: each skips what the
// others hold and only stations contend, through the database's unique index. Reservations no
// longer wait for each other's turn (docs/decisions.md, "Reservations fast again").

/** One reservation's try: what it picked, released when its insert has settled. */
export interface PickAttempt {
  /** Values this station's other reservations of the product hold now. */
  heldByOthers(): ReadonlySet<string>;
  /** How many of this station's reservations of the product are picking now, this one too. */
  contenders(): number;
  /** Holds `psdi` for this try; false when another of this station's reservations holds it. */
  hold(psdi: string): boolean;
  /** Gives back what this try held. */
  end(): void;
}

export class StationPicks {
  private readonly held = new Map<string, Map<string, PickAttempt>>();
  private readonly picking = new Map<string, number>();

  begin(productId: string): PickAttempt {
    const held = this.held.get(productId) ?? new Map<string, PickAttempt>();
    this.held.set(productId, held);
    this.picking.set(productId, (this.picking.get(productId) ?? 0) + 1);
    const mine = new Set<string>();
    let ended = false;
    const attempt: PickAttempt = {
      heldByOthers: () => new Set([...held.keys()].filter((psdi) => !mine.has(psdi))),
      contenders: () => this.picking.get(productId) ?? 1,
      hold: (psdi) => {
        const holder = held.get(psdi);
        if (holder && holder !== attempt) return false;
        held.set(psdi, attempt);
        mine.add(psdi);
        return true;
      },
      end: () => {
        if (ended) return;
        ended = true;
        for (const psdi of mine) held.delete(psdi);
        const left = (this.picking.get(productId) ?? 1) - 1;
        if (left > 0) this.picking.set(productId, left);
        else {
          this.picking.delete(productId);
          this.held.delete(productId);
        }
      },
    };
    return attempt;
  }
}
