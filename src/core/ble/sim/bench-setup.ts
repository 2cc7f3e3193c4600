// What the user did to the simulated bench, kept in the data folder so that a new BLE process
// (a mode switch, a restart, a crash) and the `devicebench` command start with the same boards
// and faults (docs/decisions.md, "The BLE process's calls, and the simulated bench outliving its
// process"). The bench's own state file keeps what the boards were provisioned with; this keeps
// which boards are there and how they misbehave.
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { MethodInput, MethodOutput, SimMethod, SimMethods } from '../host/protocol';
import { readJsonFile, writeJsonFile } from '../../json-file';
import type { SimulatedBench } from './bench';
import { SIM_BOARDS_DIR } from './board-file';
import { faultsSchema } from './board-schema';

const sourceSchema = z.union([
  /** A file of resources/sim, by name: the install folder may move between versions. */
  z.object({ builtIn: z.string().min(1) }),
  z.object({ path: z.string().min(1) }),
  /** A file the user picked: its text, as the process got it. */
  z.object({ fileName: z.string(), text: z.string() }),
]);
type BoardSource = z.infer<typeof sourceSchema>;

const setupSchema = z.object({
  version: z.literal(1),
  /** Boards the user loaded, in order, with the ids still on the bench. */
  loads: z.array(z.object({ source: sourceSchema, boardIds: z.array(z.string()) })),
  /** Boards of the bench's start files that the user removed. */
  removed: z.array(z.string()),
  /** Each board's faults as last set. */
  faults: z.record(z.string(), faultsSchema),
});
export type SimBenchSetup = z.infer<typeof setupSchema>;

const EMPTY: SimBenchSetup = { version: 1, loads: [], removed: [], faults: {} };

export class SimBenchSetupFile {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private setup: SimBenchSetup,
  ) {}

  /** `sim-bench-setup.json` in the data folder; none yet reads as a bench the user left as it started. */
  static async open(file: string): Promise<SimBenchSetupFile> {
    const { value } = await readJsonFile(file, setupSchema, EMPTY);
    return new SimBenchSetupFile(file, value);
  }

  current(): SimBenchSetup {
    return this.setup;
  }

  /** Notes a control that changed the bench; `output` is what the process answered. */
  async record<M extends SimMethod>(
    method: M,
    input: MethodInput<SimMethods, M>,
    output: MethodOutput<SimMethods, M>,
  ): Promise<void> {
    const next = recorded(this.setup, method, input, output);
    if (next !== this.setup) await this.save(next);
  }

  /**
   * Brings a fresh bench (its start files loaded) to the setup. A load that no longer works
   * (the file is gone, a board clashes) is dropped with its boards: it cannot come back.
   */
  async replay(bench: SimulatedBench): Promise<void> {
    const setup = this.setup;
    if (!setup.loads.length && !setup.removed.length && !Object.keys(setup.faults).length) return;
    const onBench = new Set(bench.boards().map((b) => b.id));
    for (const boardId of setup.removed) if (onBench.delete(boardId)) bench.removeBoard(boardId);
    const loads: SimBenchSetup['loads'] = [];
    for (const load of setup.loads) {
      let views;
      try {
        views = loadFrom(bench, load.source);
      } catch {
        continue;
      }
      const kept = views.map((v) => v.id).filter((id) => load.boardIds.includes(id));
      for (const view of views) if (!kept.includes(view.id)) bench.removeBoard(view.id);
      kept.forEach((id) => onBench.add(id));
      loads.push({ source: load.source, boardIds: kept });
    }
    const faults: SimBenchSetup['faults'] = {};
    for (const [boardId, set] of Object.entries(setup.faults))
      if (onBench.has(boardId)) {
        bench.setFaults(boardId, set);
        faults[boardId] = set;
      }
    const next = { ...setup, loads, faults };
    if (JSON.stringify(next) !== JSON.stringify(setup)) await this.save(next);
  }

  /** Keeps `next` and writes it after any write still under way, so the file ends as the last. */
  private async save(next: SimBenchSetup): Promise<void> {
    this.setup = next;
    this.writing = this.writing.then(() => writeJsonFile(this.file, next));
    await this.writing;
  }
}

function loadFrom(bench: SimulatedBench, source: BoardSource) {
  if ('builtIn' in source) return bench.loadBoardFile(join(SIM_BOARDS_DIR, source.builtIn));
  if ('path' in source) return bench.loadBoardFile(source.path);
  return bench.loadBoards(source.text, source.fileName);
}

function sourceOfPath(path: string): BoardSource {
  const full = resolve(path);
  return dirname(full) === resolve(SIM_BOARDS_DIR) ? { builtIn: basename(full) } : { path: full };
}

/** The setup after one successful control; the same object when the control changed nothing kept. */
function recorded<M extends SimMethod>(
  setup: SimBenchSetup,
  method: M,
  input: MethodInput<SimMethods, M>,
  output: MethodOutput<SimMethods, M>,
): SimBenchSetup {
  // Narrowed by hand: TypeScript does not narrow a generic pair by its key.
  const call = { method, input, output } as SimCallRecord;
  switch (call.method) {
    case 'loadBoardFile':
    case 'loadBoards': {
      const source =
        call.method === 'loadBoardFile'
          ? sourceOfPath(call.input.path)
          : { fileName: call.input.source ?? 'boards.json', text: call.input.text };
      return {
        ...setup,
        loads: [...setup.loads, { source, boardIds: call.output.map((b) => b.id) }],
      };
    }
    case 'removeBoard': {
      const { boardId } = call.input;
      const faults = { ...setup.faults };
      delete faults[boardId];
      const owner = setup.loads.find((l) => l.boardIds.includes(boardId));
      if (!owner) return { ...setup, faults, removed: [...new Set([...setup.removed, boardId])] };
      const loads = setup.loads
        .map((l) => (l === owner ? { ...l, boardIds: l.boardIds.filter((b) => b !== boardId) } : l))
        .filter((l) => l.boardIds.length > 0);
      return { ...setup, faults, loads };
    }
    case 'setFaults':
      return { ...setup, faults: { ...setup.faults, [call.input.boardId]: call.output.faults } };
    default:
      return setup;
  }
}

type SimCallRecord = {
  [M in SimMethod]: {
    method: M;
    input: MethodInput<SimMethods, M>;
    output: MethodOutput<SimMethods, M>;
  };
}[SimMethod];
