// `devicebench verify`: does the board still carry its PSDI? The verify use case
// (usecases/provisioning/verify-board.ts) reads it back and compares it with the audit log.
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { verifyBoard } from '../../core/usecases/provisioning/verify-board';
import { EXIT } from '../exit';
import type { Runner } from '../command';
import { parseFlags } from '../flags';
import { addressSchema, globalFlags } from './shared';

const flagsSchema = z.object({
  product: z.string().min(1, 'is required'),
  board: addressSchema,
  json: z.boolean(),
});

export function verifyCommand(runner: Runner): CommandModule {
  return {
    command: 'verify',
    describe: 'read a provisioned board’s PSDI back and compare it with the audit log',
    builder: (y) =>
      y
        .option('product', { type: 'string', demandOption: true, describe: 'trial product ID' })
        .option('board', {
          type: 'string',
          demandOption: true,
          describe: 'the board’s Bluetooth address',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
        const central = await session.central();
        const product = await session.product(flags.product);
        const { psdi, record, problem } = await verifyBoard({
          central,
          store: await session.audit(),
          product,
          address: flags.board,
        });
        const verified = problem === undefined;
        if (flags.json)
          out.document({
            address: flags.board,
            productId: product.id,
            psdi,
            verified,
            problem: problem ?? null,
            record,
          });
        if (verified) out.pass(`${flags.board} carries PSDI ${psdi} (record #${record?.id})`);
        else out.fail(`${flags.board} ${problem}`);
        return verified ? EXIT.ok : EXIT.failed;
      });
    },
  };
}
