// The `sim` adapter: noble's HCI host stack over a virtual LE controller of the simulated bench,
// the same code path as a Linux adapter, timed by the bench's clock.
import type { AdapterProfileInput } from '../sim/adapter-profile';
import type { SimulatedBench } from '../sim/bench';
import { hciCentral, type HciCentralOptions } from './hci-central';
import type { NobleCentral } from './noble-central';

export interface SimulatedCentralOptions extends HciCentralOptions {
  /** The simulated controller's limits (connections, interval, buffers); defaults documented there. */
  adapter?: AdapterProfileInput;
}

/**
 * A real noble over a virtual LE controller on the simulated bench: noble's own HCI host stack
 * runs above it, the same code path as a Linux adapter.
 */
export function createSimulatedCentral(
  bench: SimulatedBench,
  options: SimulatedCentralOptions = {},
): NobleCentral {
  const controller = bench.createController(options.adapter);
  return hciCentral(
    controller,
    {
      now: () => bench.clock.now(),
      schedule: (callback, ms) => {
        const timer = bench.clock.setTimeout(callback, ms);
        return () => bench.clock.clearTimeout(timer);
      },
      ...options,
    },
    () => controller.dispose(),
  );
}
