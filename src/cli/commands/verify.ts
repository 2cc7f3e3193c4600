// `devicebench verify`: does the board still carry its PSDI? Scans for it in product mode,
// reads the PSDI back and compares it with the audit log's verified record for that board.
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { defaultTiming } from '../../core/provisioning/steps';
import { errorMessage } from '../../core/errors/message';
import { readBackPsdi } from '../../core/provisioning/verify';
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
        const store = await session.audit();
        const page = await store.search({
          productId: product.id,
          boardAddress: flags.board,
          states: ['verified'],
          limit: 1,
        });
        const record = page.items[0] ?? null;
        let psdi: string | null = null;
        let problem: string | undefined;
        try {
          psdi = await readBackPsdi({
            central,
            board: { address: flags.board },
            product,
            timeoutMs: defaultTiming.verify.timeoutMs,
            connectTimeoutMs: defaultTiming.connect.timeoutMs,
          });
        } catch (err) {
          problem = errorMessage(err);
        }
        if (!problem && !record)
          problem = `carries PSDI "${psdi}" but the audit log has no verified record of it`;
        if (!problem && record && record.psdi !== psdi)
          problem = `carries PSDI "${psdi}"; record #${record.id} says "${record.psdi}"`;
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
