// `devicebench sim serve --h4 <spec>`: the simulated bench as a virtual HCI dongle. Any host
// stack (this app's `--adapter tcp:…`, BlueZ's btproxy, a test rig) connects over H4 and gets its
// own virtual controller on the one bench, so every host hears the same boards. The line
// `{"h4": "<spec>"}` on stdout says where, with the real port; Ctrl-C or SIGTERM stops it.
// `--addressing` makes each controller one without a public address (docs/decisions.md, "One
// identity per dongle"), so a station's identity can be seen without a dongle.
import { mkdirSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { dataFolderBench } from '../../core/usecases/station-files';
import { AdapterSpecError } from '../../core/ble/adapter-spec';
import { H4ServeError, parseServeSpec, serveH4 } from '../../core/ble/hci/h4-server';
import { SimulatedBench } from '../../core/ble/sim/bench';
import { CONTROLLER_ADDRESSING } from '../../core/ble/sim/adapter-profile';
import type { Runner } from '../command';
import { EnvironmentError, EXIT, UsageError } from '../exit';
import { parseFlags } from '../flags';
import { globalFlags } from './shared';

const flagsSchema = z.object({
  h4: z.string().transform((text, ctx) => {
    try {
      return parseServeSpec(text);
    } catch (err) {
      if (!(err instanceof AdapterSpecError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  }),
  board: z.array(z.string().min(1, 'must name a board file')).optional(),
  addressing: z.enum(CONTROLLER_ADDRESSING),
});

function serveCommand(runner: Runner): CommandModule {
  return {
    command: 'serve',
    describe: 'serve the simulated bench as an H4 HCI controller over TCP or a Unix socket',
    builder: (y) =>
      y
        .option('h4', {
          type: 'string',
          demandOption: true,
          describe: 'where to listen: tcp:<host>:<port> (0: any free port) or unix:<path>',
        })
        .option('board', {
          type: 'string',
          array: true,
          describe: 'board files for the bench (repeatable); default: the default bench',
        })
        .option('addressing', {
          type: 'string',
          default: 'public',
          describe:
            "the controller's address: public, zephyrStatic (none, but Zephyr's Read Static Addresses gives one, as an nRF52840 dongle's) or none",
        }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      const global = globalFlags(argv);
      return runner(global, async ({ out, interrupt }) => {
        // The bench keeps its boards' state (provisioned or not) in the data folder, as the app's.
        mkdirSync(global.dataDir, { recursive: true });
        const start = dataFolderBench(global.dataDir);
        const bench = new SimulatedBench({ stateFile: start.stateFile });
        try {
          const files = flags.board ?? global.simBoards ?? start.boardFiles;
          for (const file of files) {
            try {
              bench.loadBoardFile(file);
            } catch (err) {
              throw new UsageError('--board', (err as Error).message);
            }
          }
          const server = await serveH4(bench, flags.h4, { addressing: flags.addressing }).catch(
            (err: unknown) => {
              throw err instanceof H4ServeError ? new EnvironmentError(err.message) : err;
            },
          );
          out.line(JSON.stringify({ h4: server.spec }));
          out.note(`Serving the simulated bench at ${server.spec}; Ctrl-C stops.`);
          const terminated = await new Promise<boolean>((resolve) => {
            const onTerm = () => resolve(true);
            process.once('SIGTERM', onTerm);
            interrupt.addEventListener('abort', () => {
              process.off('SIGTERM', onTerm);
              resolve(false);
            });
          });
          await server.close();
          return terminated ? EXIT.ok : EXIT.interrupted;
        } finally {
          bench.close();
        }
      });
    },
  };
}

export function simCommand(runner: Runner): CommandModule {
  return {
    command: 'sim <command>',
    describe: 'the simulated bench on its own',
    builder: (y) => y.command(serveCommand(runner)).demandCommand(1, 'name a sim command: serve'),
    handler: () => undefined,
  };
}
