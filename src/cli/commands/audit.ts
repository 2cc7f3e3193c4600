// `devicebench audit search|export|reconcile`: the audit log the app keeps, searched with the
// same filters, exported as the same CSV, and what a crash left unfinished put right.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import { auditCsv, auditCsvText, saveAuditCsv } from '../../core/usecases/audit-export';
import {
  describeCount,
  provisioningStates,
  type ProvisioningRecord,
} from '../../core/audit/records';
import { knownProfiles } from '../../core/usecases/provisioning/settings';
import {
  NothingToReconcileError,
  reconcileEach,
  recordsToReconcile,
} from '../../core/usecases/provisioning/reconcile';
import { SetupError } from '../../core/usecases/errors';
import type { CommandContext, Runner } from '../command';
import { EXIT, UsageError, type ExitCode } from '../exit';
import { outputFileSchema, parseFlags } from '../flags';
import { globalFlags } from './shared';

/** A date or a date and time (ISO 8601), or ms since the epoch. */
const instant = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const ms = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  ctx.addIssue({
    code: 'custom',
    message: 'must be a date, e.g. 2026-11-23 or 2026-11-23T08:00:00Z',
  });
  return z.NEVER;
});

const filtersSchema = z.object({
  product: z.string().min(1).optional(),
  text: z.string().max(200).optional(),
  state: z.array(z.enum(provisioningStates)).optional(),
  from: instant.optional(),
  to: instant.optional(),
});

const searchSchema = filtersSchema.extend({
  limit: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(500, 'must be at most 500'),
  json: z.boolean(),
});
const exportSchema = filtersSchema.extend({
  csv: outputFileSchema.optional(),
});
const reconcileSchema = z.object({
  record: z.number().int().positive('must be a record id').optional(),
  blank: z.enum(['finish', 'release']),
  json: z.boolean(),
});

function filterOptions(y: Argv): Argv {
  return y
    .option('product', { type: 'string', describe: 'trial product ID' })
    .option('text', {
      type: 'string',
      describe: 'part of a PSDI or board address, 3 characters or more',
    })
    .option('state', {
      type: 'string',
      array: true,
      choices: provisioningStates,
      describe: 'record states',
    })
    .option('from', { type: 'string', describe: 'created at or after (ISO 8601)' })
    .option('to', { type: 'string', describe: 'created at or before (ISO 8601)' });
}

function query(f: z.output<typeof filtersSchema>) {
  return { productId: f.product, text: f.text, states: f.state, from: f.from, to: f.to };
}

export function auditCommand(runner: Runner): CommandModule {
  return {
    command: 'audit <command>',
    describe: 'search, export and reconcile the provisioning audit log',
    builder: (y: Argv) =>
      y
        .command({
          command: 'search',
          describe: 'provisioning records, newest first',
          builder: (c) =>
            filterOptions(c)
              .option('limit', {
                type: 'number',
                default: 50,
                describe: 'at most this many (1–500)',
              })
              .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
          handler: (argv) => {
            const flags = parseFlags(searchSchema, argv);
            return runner({ ...globalFlags(argv), json: flags.json }, async ({ session, out }) => {
              const page = await (
                await session.audit()
              ).search({ ...query(flags), limit: flags.limit });
              if (flags.json) out.document(page);
              for (const r of page.items) out.line(describeRecord(r));
              out.line(
                `${page.items.length} of ${describeCount(page.total, page.totalCapped)} records`,
              );
              return EXIT.ok;
            });
          },
        })
        .command({
          command: 'export',
          describe: 'records as CSV, oldest first (to stdout, or --csv FILE)',
          builder: (c) =>
            filterOptions(c).option('csv', { type: 'string', describe: 'write the CSV here' }),
          handler: (argv) => {
            const flags = parseFlags(exportSchema, argv);
            return runner(globalFlags(argv), async ({ session, out }) => {
              const store = await session.audit();
              if (!flags.csv) {
                await pipeline(
                  Readable.from(auditCsvText(await auditCsv(store, query(flags)))),
                  process.stdout as NodeJS.WritableStream,
                  { end: false },
                );
                return EXIT.ok;
              }
              let bar: ReturnType<typeof out.progress> | undefined;
              const { rows } = await saveAuditCsv(store, query(flags), flags.csv, (p) => {
                bar ??= out.progress(p.total, 'export');
                if (p.rows) bar.update(p.rows, 'records');
              }).finally(() => bar?.stop());
              out.note(`${rows} records written to ${flags.csv}`);
              return EXIT.ok;
            });
          },
        })
        .command({
          command: 'reconcile',
          describe: 'look at the boards of records a crash left unfinished and settle them',
          builder: (c) =>
            c
              .option('record', { type: 'number', describe: 'only this record' })
              .option('blank', {
                choices: ['finish', 'release'] as const,
                default: 'release' as const,
                describe:
                  'a board found uncommitted: write the same PSDI again, or give the PSDI back',
              })
              .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
          handler: (argv) => {
            const flags = parseFlags(reconcileSchema, argv);
            return runner({ ...globalFlags(argv), json: flags.json }, (ctx) =>
              reconcileAll(ctx, flags),
            );
          },
        })
        .demandCommand(1, 'name an audit command: search, export or reconcile'),
    handler: () => undefined,
  };
}

function describeRecord(r: ProvisioningRecord): string {
  return [
    `#${r.id}`,
    new Date(r.createdAt).toISOString(),
    r.state.padEnd(8),
    r.psdi,
    r.boardAddress,
    `product ${r.productId}`,
    `station ${r.station}`,
    r.failedStep ? `${r.failedStep}: ${r.error}` : '',
  ]
    .filter(Boolean)
    .join('  ');
}

async function reconcileAll(
  ctx: CommandContext,
  flags: z.output<typeof reconcileSchema>,
): Promise<ExitCode> {
  const store = await ctx.session.audit();
  const records = await recordsToReconcile(store, flags.record).catch((err: unknown) => {
    if (err instanceof NothingToReconcileError)
      throw new UsageError(
        '--record',
        `record ${err.record.id} is ${err.record.state}: nothing to reconcile`,
      );
    if (err instanceof SetupError) throw new UsageError('--record', err.detail);
    throw err;
  });
  if (!records.length) {
    if (flags.json) ctx.out.document({ outcomes: [] });
    ctx.out.line('nothing to reconcile');
    return EXIT.ok;
  }
  const outcomes = await reconcileEach({
    central: await ctx.session.central(),
    store,
    profiles: await knownProfiles(ctx.session.options.dataDir),
    records,
    whenBlank: flags.blank,
    signal: ctx.interrupt,
  });
  if (flags.json) ctx.out.document({ outcomes });
  for (const o of outcomes) {
    const text = `record #${o.recordId} ${o.action} (now ${o.state}): ${o.message}`;
    // Settled by another station or process since the listing: neither done here nor failed.
    if (o.action === 'settled') ctx.out.skip(o.message);
    else if (o.action === 'not-found' || o.action === 'failed') ctx.out.fail(text);
    else ctx.out.pass(text);
  }
  if (ctx.interrupt.aborted) return EXIT.interrupted;
  return outcomes.every((o) => o.action !== 'not-found' && o.action !== 'failed')
    ? EXIT.ok
    : EXIT.failed;
}
