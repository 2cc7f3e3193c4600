// `devicebench trace`: the HCI traffic of a time window, as one btsnoop file Wireshark opens,
// from the traces every BLE session (the app's or the command line's) writes to the data folder;
// its link keys redacted unless `--keep-keys` (docs/decisions/ble-and-hci.md, "Keys in traces").
import { chmod, writeFile } from 'node:fs/promises';
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
  keepKeys: z.boolean(),
  json: z.boolean(),
});

/** The file is the user's alone, as the traces it comes from are: keys may be in it. */
const TRACE_OUT_MODE = 0o600;

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
        .option('keep-keys', {
          type: 'boolean',
          default: false,
          describe:
            'keep the link keys the traces hold (for Wireshark): anyone with the file can decrypt the link',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
        const to = flags.until ?? Date.now();
        if (to < flags.since) throw new UsageError('--until', 'must not be before --since');
        const trace = stationTrace(
          session.options.dataDir,
          { from: flags.since, to },
          { keepKeys: flags.keepKeys },
        );
        await writeFile(flags.out, trace.file, { mode: TRACE_OUT_MODE });
        // A file that was there keeps its mode through writeFile.
        await chmod(flags.out, TRACE_OUT_MODE);
        if (flags.json)
          out.document({
            file: flags.out,
            packets: trace.packets,
            bytes: trace.file.length,
            keysRedacted: trace.redacted,
            keysInClear: trace.keysInClear,
          });
        out.line(`${trace.packets} HCI packets written to ${flags.out}`);
        for (const line of keyLines(trace, flags.keepKeys)) out.note(line);
        return EXIT.ok;
      });
    },
  };
}

/** What the file holds of the link keys, in words. */
function keyLines(trace: { redacted: number; keysInClear: number }, keepKeys: boolean): string[] {
  const keys = (n: number) => `${n} link key${n === 1 ? '' : 's'}`;
  if (trace.keysInClear > 0)
    return [
      `this trace holds the link keys in clear (${keys(trace.keysInClear)}): anyone with it can decrypt the link`,
    ];
  if (trace.redacted === 0) return [];
  if (!keepKeys)
    return [
      `${keys(trace.redacted)} redacted; --keep-keys keeps them (for Wireshark), where the traces recorded them`,
    ];
  return [
    `no link key to keep: the traces recorded the window's ${keys(trace.redacted)} redacted; ` +
      'they keep them only while "keepKeys" is on in the data folder\'s trace-settings.json (the app: HCI trace, "Keep link keys")',
  ];
}
