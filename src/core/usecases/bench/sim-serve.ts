// The simulated bench as a virtual HCI dongle: any host stack (this app's `--adapter tcp:…`,
// BlueZ's btproxy, a test rig) connects over H4 and gets its own virtual controller on the one
// bench, so every host hears the same boards. The bench keeps its boards' state (provisioned or
// not) in the data folder, as the app's (docs/decisions.md, "One identity per dongle").
import { mkdirSync } from 'node:fs';
import { z } from 'zod';
import { AdapterSpecError } from '../../ble/adapter-spec';
import { H4ServeError, parseServeSpec, serveH4 } from '../../ble/hci/h4-server';
import { CONTROLLER_ADDRESSING } from '../../ble/sim/adapter-profile';
import { SimulatedBench } from '../../ble/sim/bench';
import { NotConfiguredError, SetupError } from '../errors';
import { dataFolderBench } from '../station-files';

/** Where to listen: `tcp:<host>:<port>` (0: any free port) or `unix:<path>`. */
export const h4ListenSchema = z.string().transform((text, ctx) => {
  try {
    return parseServeSpec(text);
  } catch (err) {
    if (!(err instanceof AdapterSpecError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
    return z.NEVER;
  }
});

/** Each virtual controller's address: public, Zephyr's static one, or none. */
export const controllerAddressingSchema = z.enum(CONTROLLER_ADDRESSING);

export interface ServedBench {
  /** Where it listens, with the real port. */
  spec: string;
  close(): Promise<void>;
}

/**
 * Serves the bench of `boardFiles` (the data folder's start files without) until closed. A
 * board file that does not load is refused at `board`; a place it cannot listen on is not
 * configured.
 */
export async function serveSimulatedBench(options: {
  dataDir: string;
  boardFiles?: string[];
  listen: z.output<typeof h4ListenSchema>;
  /** None: the data folder's sim-adapter.json says, else the profile's default (public). */
  addressing?: z.output<typeof controllerAddressingSchema>;
}): Promise<ServedBench> {
  mkdirSync(options.dataDir, { recursive: true });
  const start = dataFolderBench(options.dataDir);
  const bench = new SimulatedBench({ stateFile: start.stateFile, adapterFile: start.adapterFile });
  try {
    for (const file of options.boardFiles ?? start.boardFiles) {
      try {
        bench.loadBoardFile(file);
      } catch (err) {
        throw new SetupError('board', (err as Error).message);
      }
    }
    const asked = options.addressing ? { addressing: options.addressing } : {};
    const server = await serveH4(bench, options.listen, asked).catch((err: unknown) => {
      throw err instanceof H4ServeError ? new NotConfiguredError(err.message) : err;
    });
    return {
      spec: server.spec,
      close: async () => {
        await server.close();
        bench.close();
      },
    };
  } catch (err) {
    bench.close();
    throw err;
  }
}
