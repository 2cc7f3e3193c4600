// Opens a station's adapter list as one MultiCentral: the BLE process, the CLI and the benchmarks
// all come through here, so an adapter list means the same everywhere (docs/decisions.md,
// "Several adapters at once").
import { createRequire } from 'node:module';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import { describeAdapter, formatAdapterSpec, type AdapterSpec } from './adapter-spec';
import type { TraceSink } from './hci/tap';
import { DEFAULT_LINK_CAPACITY, MultiCentral, type AdapterEntry } from './multi-central';
import { createHardwareCentral, createSimulatedCentral, NoAdapterCentral } from './noble';
import { NobleCentral, type NobleCentralOptions } from './noble-central';
import { adapterProfileSchema, type AdapterProfileInput } from './sim/adapter-profile';
import type { SimulatedBench } from './sim/bench';
import { errorMessage } from '../errors/message';

const require = createRequire(import.meta.url);

export interface OpenAdaptersOptions extends NobleCentralOptions {
  /** The simulated bench every `sim` adapter hears; required when the list has one. */
  bench?: SimulatedBench;
  /** Each `sim` adapter's controller profile; its address is made unique per adapter. */
  simProfile?: AdapterProfileInput;
  /** Links a hardware adapter holds. Default DEFAULT_LINK_CAPACITY. */
  hardwareLinks?: number;
  /** Where adapter `index`'s HCI traffic is recorded, if anywhere. */
  trace?: (index: number, spec: AdapterSpec) => TraceSink | undefined;
}

/** Every adapter in `specs`, opened; one that cannot open is a `noAdapter` entry that says why. */
export function openAdapters(
  specs: AdapterSpec[],
  options: OpenAdaptersOptions = {},
): MultiCentral {
  const { bench, simProfile, hardwareLinks, trace, ...central } = options;
  let sims = 0;
  const entries = specs.map((spec, index): AdapterEntry => {
    const sink = trace?.(index, spec);
    if (spec.kind === 'sim') {
      if (!bench) throw new RangeError('a sim adapter needs the simulated bench');
      const profile = adapterProfileSchema.parse({
        ...simProfile,
        address: simAddress(simProfile?.address, sims++),
      });
      return {
        spec,
        central: createSimulatedCentral(bench, { ...central, trace: sink, adapter: profile }),
        linkCapacity: profile.maxConnections,
      };
    }
    const links = hardwareLinks ?? DEFAULT_LINK_CAPACITY;
    const opened = openHardware(spec, { ...central, trace: sink });
    return {
      spec,
      central: opened,
      linkCapacity: links,
      reason: opened instanceof NoAdapterCentral ? opened.reason : undefined,
    };
  });
  return new MultiCentral(entries);
}

/** Each simulated controller has its own public address, as two dongles would. */
function simAddress(base: string | undefined, n: number): string {
  const address = adapterProfileSchema.shape.address.parse(base);
  const last = (parseInt(address.slice(-2), 16) + n) & 0xff;
  return address.slice(0, -2) + last.toString(16).padStart(2, '0');
}

function openHardware(
  spec: AdapterSpec,
  options: NobleCentralOptions & { trace?: TraceSink },
): NobleCentral | NoAdapterCentral {
  switch (spec.kind) {
    case 'hci':
      if (process.platform !== 'linux')
        return new NoAdapterCentral(`${formatAdapterSpec(spec)} is a Linux kernel adapter`);
      if (spec.index !== 0)
        return new NoAdapterCentral(`this build opens only hci0 through the kernel socket`);
      return createHardwareCentral(options);
    case 'native': {
      let noble: NobleInstance;
      try {
        noble = require('@abandonware/noble') as NobleInstance;
      } catch (err) {
        return new NoAdapterCentral(
          `the Bluetooth driver could not be loaded (${errorMessage(err)})`,
        );
      }
      return new NobleCentral(noble, { ...options, writesConfirmed: false });
    }
    default:
      return new NoAdapterCentral(`this build cannot open ${describeAdapter(spec)} yet`);
  }
}
