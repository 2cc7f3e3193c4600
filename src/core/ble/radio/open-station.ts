// A station's radio for its adapter list: the central(s) over every adapter and, when the list
// names `sim`, the simulated bench they join — its start files, its flash (the state file) and
// what the user did to it in the app (the saved set-up, docs/decisions.md "The BLE process's
// calls, and the simulated bench outliving its process"). The BLE process and the `devicebench`
// command both open their radio here, so a command on `--adapter sim` sees the bench the app
// shows.
import type { AdapterSpec } from '../adapter-spec';
import type { MultiCentral } from './multi-adapter-central';
import { openAdapters, type OpenAdaptersOptions } from './open-adapters';
import { SimulatedBench } from '../sim/bench';
import { SimBenchSetupFile } from '../sim/bench-setup';
import type { BondStore } from '../security-manager/bond-store';
import type { SecurityPolicy } from '../hci/noble-smp';
import type { IdentityKeeper } from '../adapter-identity-store';

/** Where the simulated bench comes from; used only when the adapter list names `sim`. */
export interface BenchSource {
  /** Board files the bench starts with. */
  boardFiles: string[];
  /** Where committed identities persist, as flash would. */
  stateFile?: string;
  /** Seals the boards' bonds in `stateFile`; none: kept in memory only (bench.ts). */
  flashKey?: Uint8Array;
  /** The saved set-up (`sim-bench-setup.json`) brought onto the start files; none: the files alone. */
  setupFile?: string;
  /** The controller the bench's adapters emulate (`sim-adapter.json`); none: the defaults. */
  adapterFile?: string;
  seed?: number;
}

export interface Station {
  central: MultiCentral;
  /** The simulated bench, when the adapter list names `sim`. */
  bench: SimulatedBench | undefined;
}

export async function openStation(
  specs: AdapterSpec[],
  options: {
    bench: BenchSource;
    trace?: OpenAdaptersOptions['trace'];
    bonds?: BondStore;
    security?: SecurityPolicy;
    identities?: IdentityKeeper;
  },
): Promise<Station> {
  const bench = specs.some((spec) => spec.kind === 'sim')
    ? await openBench(options.bench)
    : undefined;
  try {
    return {
      central: await openAdapters(specs, {
        bench,
        trace: options.trace,
        bonds: options.bonds,
        security: options.security,
        identities: options.identities,
      }),
      bench,
    };
  } catch (err) {
    bench?.close();
    throw err;
  }
}

/** The simulated bench of `source`: its start files with the saved set-up brought onto them. */
export async function openBench(source: BenchSource): Promise<SimulatedBench> {
  const bench = new SimulatedBench({
    stateFile: source.stateFile,
    flashKey: source.flashKey,
    adapterFile: source.adapterFile,
    seed: source.seed,
  });
  try {
    for (const file of source.boardFiles) bench.loadBoardFile(file);
    if (source.setupFile) await (await SimBenchSetupFile.open(source.setupFile)).replay(bench);
  } catch (err) {
    bench.close();
    throw err;
  }
  return bench;
}
