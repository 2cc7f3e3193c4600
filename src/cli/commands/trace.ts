// `devicebench trace`: the HCI traffic of a time window, as one btsnoop file Wireshark opens,
// from the traces every BLE session (the app's or the command line's) writes to the data folder.
import { writeFile } from 'node:fs/promises';
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { stationTrace } from '../../core/usecases/bench/traces';
import type { Runner } from '../command';
import { outputFileSchema, parseFlags } from '../flags';
import { EXIT, UsageError } from '../exit';
import { globalFlags } from './shared';

/** An ISO time (`2026-11-23T22:00:00Z`), or a span back from now (`90s`, `15m`, `2h`, `1d`). */
const timeSchema = z.string().transform((text, ctx) => {
  const span = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (span) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 's'];
    return Date.now() - Number(span[1]) * unit;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be an ISO time (2026-11-23T22:00:00Z) or a span back from now (15m, 2h)',
    });
    return z.NEVER;
  }
  return at;
});

const flagsSchema = z.object({
  since: timeSchema,
  until: timeSchema.optional(),
  out: outputFileSchema.pipe(z.string().endsWith('.btsnoop', 'must end in .btsnoop')),
  json: z.boolean(),
});

export function traceCommand(runner: Runner): CommandModule {
  return {
    command: 'trace',
    describe: 'write the HCI traffic of a time window as a btsnoop file (Wireshark opens it)',
    builder: (y) =>
      y
        .option('since', {
          type: 'string',
          demandOption: true,
          describe: 'start: an ISO time, or a span back from now (15m, 2h)',
        })
        .option('until', { type: 'string', describe: 'end, the same forms; default now' })
        .option('out', {
          type: 'string',
          demandOption: true,
          describe: 'the .btsnoop file to write',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
        const to = flags.until ?? Date.now();
        if (to < flags.since) throw new UsageError('--until', 'must not be before --since');
        const { file, packets } = stationTrace(session.options.dataDir, { from: flags.since, to });
        await writeFile(flags.out, file);
        if (flags.json) out.document({ file: flags.out, packets, bytes: file.length });
        out.line(`${packets} HCI packets written to ${flags.out}`);
        return EXIT.ok;
      });
    },
  };
}
