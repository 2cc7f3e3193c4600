// `devicebench settings get|set`: a board's Zephyr settings keys over MCUmgr
// (docs/mcumgr/settings.md). A value is UTF-8 text (`--value`) or bytes (`--hex`); `set` saves
// to flash unless `--no-save`, so the value survives a reset.
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { getSetting, setSetting, settingsKeySchema } from '../../core/usecases/firmware';
import type { Runner } from '../command';
import { EXIT, UsageError } from '../exit';
import { parseFlags } from '../flags';
import { firmwareTarget, onBoard } from './firmware';
import { addressSchema, globalFlags, positionalOrFlag } from './shared';

const flagsSchema = z.object({
  action: z.enum(['get', 'set']),
  board: addressSchema,
  key: settingsKeySchema.optional(),
  value: z.string().optional(),
  hex: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{2})*$/, 'must be hex bytes, e.g. 0a1b')
    .optional(),
  save: z.boolean(),
  json: z.boolean(),
});

/** Text when the bytes are printable UTF-8, else undefined (the hex says it all). */
function asText(bytes: Uint8Array): string | undefined {
  const text = Buffer.from(bytes).toString('utf8');
  const printable = [...text].every((c) => c.codePointAt(0)! >= 0x20 && c !== '\u007f');
  return Buffer.from(text, 'utf8').equals(bytes) && printable ? text : undefined;
}

export function settingsCommand(runner: Runner): CommandModule {
  return {
    // Positionals named as Zephyr's settings API names them, apart from --key and --value.
    command: 'settings <action> [name] [text]',
    describe: 'read or write a board’s Zephyr settings keys over MCUmgr',
    builder: (y) =>
      y
        .positional('action', { choices: ['get', 'set'] as const, describe: 'what to do' })
        .positional('name', { type: 'string', describe: 'the settings key (as --key)' })
        .positional('text', { type: 'string', describe: 'set: the value as text (as --value)' })
        .option('board', {
          type: 'string',
          demandOption: true,
          describe: 'the board’s Bluetooth address',
        })
        .option('key', {
          type: 'string',
          describe: 'the settings key, e.g. devicebench/psdi',
        })
        .option('value', { type: 'string', describe: 'set: the value as UTF-8 text' })
        .option('hex', { type: 'string', describe: 'set: the value as hex bytes' })
        .option('save', {
          type: 'boolean',
          default: true,
          describe: 'set: save to flash (--no-save: live until reset)',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, {
        ...argv,
        key: positionalOrFlag({ positional: 'KEY', flag: '--key' }, argv.name, argv.key),
        value: positionalOrFlag({ positional: 'VALUE', flag: '--value' }, argv.text, argv.value),
      });
      const key = flags.key;
      if (key === undefined)
        throw new UsageError(
          '--key',
          `${flags.action} needs the key: settings ${flags.action} KEY`,
        );
      if (flags.action === 'get' && flags.value !== undefined)
        throw new UsageError('--value', 'get takes no value');
      if (flags.action === 'set' && (flags.value === undefined) === (flags.hex === undefined))
        throw new UsageError(
          '--value',
          'set needs the value: give VALUE, --value or --hex, one of them',
        );
      const where = {
        address: flags.board,
        step: `settings ${flags.action} ${key}`,
        json: flags.json,
      };
      return runner({ ...globalFlags(argv), json: flags.json }, (ctx) =>
        onBoard(ctx, where, async () => {
          const target = await firmwareTarget(ctx, flags.board);
          const { out } = ctx;
          if (flags.action === 'get') {
            const value = await getSetting(target, key);
            const text = asText(value);
            const hex = Buffer.from(value).toString('hex');
            if (flags.json)
              out.document({ address: flags.board, key: key, hex, text: text ?? null });
            out.line(text !== undefined ? `${key} = ${JSON.stringify(text)}` : `${key} = 0x${hex}`);
            return EXIT.ok;
          }
          const value =
            flags.hex !== undefined
              ? Buffer.from(flags.hex, 'hex')
              : Buffer.from(flags.value!, 'utf8');
          await setSetting(target, key, value, flags.save);
          if (flags.json)
            out.document({
              address: flags.board,
              key: key,
              hex: value.toString('hex'),
              saved: flags.save,
            });
          out.pass(
            `${flags.board}: ${key} set${flags.save ? ' and saved to flash' : ' (not saved: lost at reset)'}`,
          );
          return EXIT.ok;
        }),
      );
    },
  };
}
