// Time as the BLE layers, the scenario engine and hardware runs read it: `now` and timers behind
// one interface, so a run on real hardware uses the wall clock and a simulated run a manual one
// (src/core/ble/sim/manual-clock.ts) without either knowing which.

export type Timer = { readonly id: number };

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): Timer;
  clearTimeout(timer: Timer): void;
}

/** Wall-clock time and Node's own timers. */
export function wallClock(): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(callback, ms) {
      const id = next++;
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id);
          callback();
        }, ms),
      );
      return { id };
    },
    clearTimeout(timer) {
      const handle = timers.get(timer.id);
      if (handle) clearTimeout(handle);
      timers.delete(timer.id);
    },
  };
}
