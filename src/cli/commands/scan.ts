// `devicebench scan`: which boards are in range, with the same filters as the BLE bench.
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { measuredRssi, rssiText } from '../../core/ble/rssi';
import { scanBoards, scanFilterSchema } from '../../core/usecases/bench/scan';
import type { Runner } from '../command';
import { parseFlags } from '../flags';
import { EXIT } from '../exit';
import { globalFlags, untilAborted } from './shared';

const flagsSchema = scanFilterSchema.extend({
  for: z.number().positive('must be more than 0 seconds').max(3600, 'must be at most 3600 seconds'),
  json: z.boolean(),
});

export function scanCommand(runner: Runner): CommandModule {
  return {
    command: 'scan',
    describe: 'list the boards in range',
    builder: (y) =>
      y
        .option('service', {
          type: 'string',
          describe: 'only boards advertising this service UUID',
        })
        .option('name', { type: 'string', describe: 'only boards whose name contains this' })
        .option('rssi', {
          // Read as text so `1e+23` or `-70.5` is refused rather than rounded.
          type: 'string',
          describe: 'only boards heard at least this strong (dBm)',
        })
        .option('for', { type: 'number', default: 5, describe: 'how long to listen, in seconds' })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      return runner(
        { ...globalFlags(argv), json: flags.json },
        async ({ session, out, interrupt }) => {
          const central = await session.central();
          let heard = 0;
          const progress = out.progress(Math.round(flags.for * 10), 'scanning');
          const started = Date.now();
          const ticker = setInterval(
            () =>
              progress.update(
                Math.min(flags.for * 10, (Date.now() - started) / 100),
                `${heard} boards`,
              ),
            100,
          );
          const { boards: found, adapters } = await scanBoards(
            central,
            flags,
            () => untilAborted(interrupt, flags.for * 1000),
            (boards) => (heard = boards),
          );
          clearInterval(ticker);
          progress.stop();

          if (flags.json)
            out.document({
              adapters: adapters.map(({ spec, identity }) => ({ spec, identity })),
              boards: found.map((ad) => ({
                id: ad.id,
                address: ad.address,
                name: ad.localName ?? null,
                rssi: measuredRssi(ad.rssi),
                connectable: ad.connectable,
                serviceUuids: ad.serviceUuids,
                adapter: ad.adapter ?? null,
              })),
            });
          for (const ad of found)
            out.line(
              `${ad.address}  ${rssiText(ad.rssi).padStart(8)}  ${(ad.localName ?? '(no name)').padEnd(20)}  ${ad.serviceUuids.join(' ')}`,
            );
          out.line(`${found.length} board${found.length === 1 ? '' : 's'} in ${flags.for} s`);
          for (const { spec, described } of adapters)
            if (described) out.line(`adapter ${spec}: ${described}`);
          return interrupt.aborted ? EXIT.interrupted : EXIT.ok;
        },
      );
    },
  };
}
