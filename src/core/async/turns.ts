// Work that must not overlap with other work under the same key, in one process. Used where
// several callers would otherwise all read the same "first free" answer and race to insert it
// (docs/decisions.md, "Production line", Reservation (PG)).

/** Runs `work` after every earlier call with the same key has settled, whatever its outcome. */
export type InTurn = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function createTurns(): InTurn {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    tails.set(key, tail);
    // The map holds a key only while someone is waiting under it.
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return mine;
  };
}
