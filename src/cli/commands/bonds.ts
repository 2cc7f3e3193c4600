// `devicebench bonds list|forget|reset`: the station's bonds in the data folder (one per adapter
// identity and board), listed with where they are kept and under which key, or forgotten one by
// one or all, so a board that lost its bond can be paired again (docs/decisions.md, "Pairing as
// a phone does"); a damaged store set aside and started anew, after a confirmation naming it
// (docs/decisions/security-and-hardening.md, "A damaged bond store").
import { createInterface } from 'node:readline/promises';
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import type { BondSummary } from '../../core/ble/security-manager/bond-summary';
import { forgetBonds, listBonds, resetBonds } from '../../core/usecases/bench/station-bonds';
import type { Runner } from '../command';
import { parseFlags } from '../flags';
import { EXIT, UsageError } from '../exit';
import { addressSchema, globalFlags } from './shared';

const listFlags = z.object({ identity: addressSchema.optional(), json: z.boolean() });
const resetFlags = z.object({ yes: z.boolean(), json: z.boolean() });
const forgetFlags = z.object({
  identity: addressSchema.optional(),
  board: addressSchema.optional(),
  all: z.boolean(),
  json: z.boolean(),
});

function describeBond(bond: BondSummary): string {
  const s = bond.security;
  const key = `${s.key === 'sc' ? 'LE Secure Connections' : 'legacy'}, ${
    s.authenticated ? 'authenticated' : 'unauthenticated'
  }${s.keySize ? `, ${s.keySize}-octet key` : ''}${s.method ? `, ${s.method}` : ''}`;
  const station = bond.stationType === 'random' ? `${bond.station} (random)` : bond.station;
  return `${station}  ${bond.board}  ${key}  bonded ${bond.bondedAt}`;
}

const identityOption = {
  type: 'string',
  describe: 'only the bonds of this adapter identity (the address the station paired with)',
} as const;

function listCommand(runner: Runner): CommandModule {
  return {
    command: 'list',
    describe: 'list the bonds kept in the data folder',
    builder: (y) =>
      y
        .option('identity', identityOption)
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(listFlags, argv);
      return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
        const { storage, words, bonds } = await listBonds(session.options.dataDir, flags.identity);
        if (flags.json) out.document({ storage, bonds });
        // Where they are and under which key first: a damaged store lists nothing, and says why.
        out.line(words);
        if (storage.kind === 'damaged') {
          out.line('`devicebench bonds reset` sets it aside and starts a new one');
          return EXIT.environment;
        }
        if (!bonds.length) out.line('no bonds');
        for (const bond of bonds) out.line(describeBond(bond));
        return EXIT.ok;
      });
    },
  };
}

function forgetCommand(runner: Runner): CommandModule {
  return {
    command: 'forget',
    describe: 'forget one board’s bond (--board) or every bond (--all)',
    builder: (y) =>
      y
        .option('board', { type: 'string', describe: 'the board’s identity address' })
        .option('all', { type: 'boolean', default: false, describe: 'every board' })
        .option('identity', identityOption)
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(forgetFlags, argv);
      if (!flags.board === !flags.all)
        throw new UsageError('--board', 'name one board, or give --all to forget every bond');
      return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
        const forgotten = await forgetBonds(session.options.dataDir, flags);
        if (flags.json) out.document({ forgotten });
        out.line(
          forgotten
            ? `forgot ${forgotten} bond${forgotten === 1 ? '' : 's'}; the board must forget this station too before it pairs again`
            : `no bond${flags.board ? ` with ${flags.board}` : 's'} to forget`,
        );
        return EXIT.ok;
      });
    },
  };
}

/** Asks at a terminal; a script (no terminal) must say --yes. */
async function confirmed(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

function resetCommand(runner: Runner): CommandModule {
  return {
    command: 'reset',
    describe: 'set a damaged bonds.bin aside (renamed with the time) and start a new one',
    builder: (y) =>
      y
        .option('yes', {
          type: 'boolean',
          default: false,
          describe: 'do not ask (scripts): set the damaged file aside',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(resetFlags, argv);
      return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
        const dataDir = session.options.dataDir;
        const { storage, words } = await listBonds(dataDir);
        if (storage.kind !== 'damaged') {
          if (flags.json) out.document({ setAsideAs: null, storage });
          out.line(`nothing to reset: ${words}`);
          return EXIT.ok;
        }
        out.note(words);
        if (
          !flags.yes &&
          !(await confirmed(
            `Set ${storage.file} aside and start a new bond store? Every board bonded with this station must be paired again.`,
          ))
        ) {
          if (!process.stdin.isTTY)
            throw new UsageError('--yes', `give --yes to set ${storage.file} aside without asking`);
          out.line(`left ${storage.file} as it is`);
          return EXIT.ok;
        }
        const reset = await resetBonds(dataDir);
        if (flags.json) out.document(reset);
        out.line(
          `set ${storage.file} aside as ${reset.setAsideAs}; a new bond store starts there. Boards bonded before must forget this station and pair again`,
        );
        return EXIT.ok;
      });
    },
  };
}

export function bondsCommand(runner: Runner): CommandModule {
  return {
    command: 'bonds <command>',
    describe: 'the station’s bonds with boards (kept encrypted in the data folder)',
    builder: (y) =>
      y
        .command(listCommand(runner))
        .command(forgetCommand(runner))
        .command(resetCommand(runner))
        .demandCommand(1, 'name a bonds command: list, forget, reset'),
    handler: () => undefined,
  };
}
