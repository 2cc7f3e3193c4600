// `devicebench sim serve --h4 <spec>`: the simulated bench as a virtual HCI dongle. Any host
// stack (this app's `--adapter tcp:…`, BlueZ's btproxy, a test rig) connects over H4 and gets its
// own virtual controller on the one bench, so every host hears the same boards. The line
// `{"h4": "<spec>"}` on stdout says where, with the real port; Ctrl-C or SIGTERM stops it.
// `--addressing` makes each controller one without a public address (docs/decisions.md, "One
// identity per dongle"), so a station's identity can be seen without a dongle.
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import {
  controllerAddressingSchema,
  h4ListenSchema,
  serveSimulatedBench,
} from '../../core/usecases/bench/sim-serve';
import { SetupError } from '../../core/usecases/errors';
import type { Runner } from '../command';
import { EXIT, UsageError } from '../exit';
import { parseFlags } from '../flags';
import { globalFlags } from './shared';

const flagsSchema = z.object({
  h4: h4ListenSchema,
  board: z.array(z.string().min(1, 'must name a board file')).optional(),
  addressing: controllerAddressingSchema.optional(),
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
          describe:
            "the controller's address: public, zephyrStatic (none, but Zephyr's Read Static Addresses gives one, as an nRF52840 dongle's) or none; default: the data folder's sim-adapter.json, else public",
        }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      const global = globalFlags(argv);
      return runner(global, async ({ out, interrupt }) => {
        const server = await serveSimulatedBench({
          dataDir: global.dataDir,
          boardFiles: flags.board ?? global.simBoards,
          listen: flags.h4,
          addressing: flags.addressing,
        }).catch((err: unknown) => {
          throw err instanceof SetupError ? new UsageError('--board', err.detail) : err;
        });
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
