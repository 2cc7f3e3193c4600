// Opens a station's adapter list as one MultiCentral: the BLE process, the CLI and the benchmarks
// all come through here, so an adapter list means the same everywhere (docs/decisions.md,
// "Several adapters at once").
import type { AdapterSpec } from '../adapter-spec';
import type { TraceSink } from '../hci/tap';
import { DEFAULT_LINK_CAPACITY, MultiCentral, type AdapterEntry } from './multi-adapter-central';
import { NoAdapterCentral } from './no-adapter-central';
import { openCentral, type OpenCentralOptions } from './open-central';
import { adapterProfileSchema, type AdapterProfileInput } from '../sim/adapter-profile';

export interface OpenAdaptersOptions extends Omit<OpenCentralOptions, 'trace' | 'adapter'> {
  /**
   * Each `sim` adapter's controller profile, over the bench's own (`controllerProfile`); its
   * address is made unique per adapter.
   */
  simProfile?: AdapterProfileInput;
  /** Links a hardware adapter holds. Default DEFAULT_LINK_CAPACITY. */
  hardwareLinks?: number;
  /** Where adapter `index`'s HCI traffic is recorded, if anywhere. */
  trace?: (index: number, spec: AdapterSpec) => TraceSink | undefined;
}

/**
 * Every adapter in `specs`, opened together (each through openAdapter); one that cannot open is
 * a `noAdapter` entry that says why.
 */
export async function openAdapters(
  specs: AdapterSpec[],
  options: OpenAdaptersOptions = {},
): Promise<MultiCentral> {
  const simIndexes = specs.map((_, index) => specs.slice(0, index).filter(isSim).length);
  const entries = await Promise.all(
    specs.map((spec, index) => openAdapter(spec, index, simIndexes[index]!, options)),
  );
  return new MultiCentral(entries);
}

/**
 * Adapter `index` of a station; `simIndex`: how many `sim` adapters come before it, so each
 * simulated controller has an address of its own.
 */
export async function openAdapter(
  spec: AdapterSpec,
  index: number,
  simIndex: number,
  options: OpenAdaptersOptions = {},
): Promise<AdapterEntry> {
  const { simProfile, hardwareLinks, trace, ...central } = options;
  const sink = trace?.(index, spec);
  if (isSim(spec)) {
    // The bench's own controller (its data folder's sim-adapter.json), then this option's fields.
    const asked = { ...central.bench?.controllerProfile, ...simProfile };
    const profile = adapterProfileSchema.parse({
      ...asked,
      address: simAddress(asked.address, simIndex),
    });
    return {
      spec,
      central: await openCentral(spec, {
        ...central,
        trace: sink,
        adapter: profile,
        // Every `sim` adapter has the same spec; its controller's address tells them apart.
        identityKey: `sim ${profile.address}`,
      }),
      linkCapacity: profile.maxConnections,
    };
  }
  const opened = await openCentral(spec, { ...central, trace: sink });
  return {
    spec,
    central: opened,
    linkCapacity: hardwareLinks ?? DEFAULT_LINK_CAPACITY,
    reason: opened instanceof NoAdapterCentral ? opened.reason : undefined,
  };
}

function isSim(spec: AdapterSpec): boolean {
  return spec.kind === 'sim';
}

/** Each simulated controller has its own public address, as two dongles would. */
function simAddress(base: string | undefined, n: number): string {
  const address = adapterProfileSchema.shape.address.parse(base);
  const last = (parseInt(address.slice(-2), 16) + n) & 0xff;
  return address.slice(0, -2) + last.toString(16).padStart(2, '0');
}
