// `devicebench scenario lint|run`: check a scenario set file (against the board's GATT table
// with --board) and dry-run a set on a board exactly as the app does, each run kept in the
// audit log, with a JUnit report (one test case per scenario run) and the app's JSON export.
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import { deliverToWebhook } from '../../core/usecases/dry-runs/result-delivery';
import { draftSet, loadSavedSet, parseSetFile } from '../../core/usecases/dry-runs/scenario-sets';
import { readBoard, type BoardTable } from '../../core/usecases/dry-runs/board-read';
import { lintSet } from '../../core/usecases/dry-runs/set-lint';
import { failureMessage } from '../../core/usecases/dry-runs/failure-message';
import { SetupError } from '../../core/usecases/errors';
import type { ScenarioSetInput, TrialProduct } from '../../core/platform/things/schema';
import type { RunnableSet, TimelineEvent } from '../../core/scenario/schema';
import {
  DryRunPlan,
  InfeasibleRun,
  type DeliverResult,
} from '../../core/usecases/dry-runs/dry-run';
import type { CommandContext, Runner } from '../command';
import { EXIT, UsageError, type ExitCode } from '../exit';
import { outputFileSchema, parseFlags } from '../flags';
import { junitReport, unconfirmedNote, type ReportedRun } from '../junit';
import { addressSchema, globalFlags } from './shared';
import { findByAddress, FIND_BOARD_MS } from '../../core/usecases/provisioning/find-board';

const lintFlagsSchema = z.object({
  file: z.string().min(1, 'is required'),
  board: addressSchema.optional(),
  json: z.boolean(),
});

const runFlagsSchema = z
  .object({
    file: z.string().min(1).optional(),
    product: z.string().min(1).optional(),
    saved: z.boolean(),
    board: addressSchema,
    cycles: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(100_000)
      .optional(),
    duration: z
      .number()
      .min(0.1, 'must be at least 0.1 seconds')
      .max(86_400, 'must be at most a day')
      .optional(),
    junit: outputFileSchema.optional(),
    json: outputFileSchema.optional(),
    deliver: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
    pairAsPhone: z.boolean().default(false),
  })
  .refine((f) => (f.file !== undefined) !== f.saved, {
    path: ['saved'],
    message: 'give either a scenario set FILE or --product ID --saved',
  })
  .refine((f) => !f.saved || f.product !== undefined, {
    path: ['product'],
    message: 'is required with --saved',
  })
  .refine((f) => f.cycles === undefined || f.duration === undefined, {
    path: ['duration'],
    message: 'give --cycles or --duration, not both',
  })
  .refine((f) => f.deliver === undefined || f.product !== undefined, {
    path: ['product'],
    message: 'is required with --deliver: a result event names the product’s channel and device',
  });
type RunFlags = z.output<typeof runFlagsSchema>;

export function scenarioCommand(runner: Runner): CommandModule {
  return {
    command: 'scenario <command>',
    describe: 'lint a scenario set, or dry-run it on a board',
    builder: (y: Argv) =>
      y
        .command({
          command: 'lint <file>',
          describe: 'check a scenario set file (and against a board’s GATT table with --board)',
          builder: (c) =>
            c
              .positional('file', { type: 'string', describe: 'scenario set JSON' })
              .option('board', { type: 'string', describe: 'the board’s Bluetooth address' })
              .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
          handler: (argv) => {
            const flags = parseFlags(lintFlagsSchema, argv);
            return runner({ ...globalFlags(argv), json: flags.json }, (ctx) => lint(ctx, flags));
          },
        })
        .command({
          command: 'run [file]',
          describe: 'dry-run a scenario set file, or a product’s saved set, on a board',
          builder: (c) =>
            c
              .positional('file', {
                type: 'string',
                describe: 'scenario set JSON (no product needed)',
              })
              .option('product', { type: 'string', describe: 'trial product ID' })
              .option('saved', {
                type: 'boolean',
                default: false,
                describe: 'run the product’s saved set',
              })
              .option('board', {
                type: 'string',
                demandOption: true,
                describe: 'the board’s Bluetooth address',
              })
              .option('cycles', {
                type: 'number',
                describe:
                  'stop after this many connections (default 1; sets with autoClose true only)',
              })
              .option('duration', { type: 'number', describe: 'stop after this many seconds' })
              .option('junit', { type: 'string', describe: 'write a JUnit report here' })
              .option('json', {
                type: 'string',
                describe: 'write the run (set, timeline, results) here as JSON',
              })
              .option('deliver', {
                type: 'string',
                describe: 'post each result, signed, to this bot webhook URL',
              })
              .option('pair-as-phone', {
                type: 'boolean',
                default: false,
                describe:
                  'pair each connection first as a phone does (LE Secure Connections, bonding, MITM: give the board’s passkey with --passkey or --passkey-env)',
              }),
          handler: (argv) => {
            const flags = parseFlags(runFlagsSchema, argv);
            return runner(globalFlags(argv), (ctx) => run(ctx, flags));
          },
        })
        .demandCommand(1, 'name a scenario command: lint or run'),
    handler: () => undefined,
  };
}

/** A scenario set file as the editor exports it; refused with the file and field named. */
async function readSetFile(path: string): Promise<ScenarioSetInput> {
  const name = basename(path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError('file', `cannot read ${path} (${(err as Error).message})`);
  }
  try {
    return parseSetFile(name, text);
  } catch (err) {
    if (err instanceof SetupError) throw new UsageError(err.field, err.detail);
    throw err;
  }
}

async function lint(
  ctx: CommandContext,
  flags: z.output<typeof lintFlagsSchema>,
): Promise<ExitCode> {
  const set = await readSetFile(flags.file);
  let board: BoardTable | undefined;
  if (flags.board) {
    const central = await ctx.session.central();
    const ad = await findByAddress(central, flags.board);
    if (!ad)
      throw new UsageError(
        '--board',
        `${flags.board} was not seen within ${FIND_BOARD_MS / 1000} s`,
      );
    board = await readBoard(central, ad.id);
  }
  const findings = lintSet(set, board);
  const errors = findings.filter((f) => f.severity === 'error').length;
  if (flags.json) ctx.out.document({ file: flags.file, board: flags.board ?? null, findings });
  for (const f of findings) {
    const text = `${f.field}: ${f.message} (${f.rule})`;
    if (f.severity === 'error') ctx.out.fail(text);
    else ctx.out.line(`warning ${text}`);
  }
  ctx.out.line(
    `${errors} error${errors === 1 ? '' : 's'}, ${findings.length - errors} warning${findings.length - errors === 1 ? '' : 's'}`,
  );
  return errors ? EXIT.failed : EXIT.ok;
}

async function run(ctx: CommandContext, flags: RunFlags): Promise<ExitCode> {
  const { session, out } = ctx;
  const draft = flags.file ? await readSetFile(flags.file) : undefined;
  const product = flags.product ? await session.product(flags.product) : undefined;
  // Without a file the flags required --saved and --product.
  const set = draft ? draftSet(draft) : await loadSaved(ctx, product as TrialProduct);
  const cycles = flags.duration === undefined ? (flags.cycles ?? 1) : undefined;
  const plan = checkPlan(set, cycles, flags.duration);
  const central = await session.central();
  const deliver =
    flags.deliver && product ? await delivery(ctx, flags.deliver, product, flags.board) : undefined;

  const ad = await findByAddress(central, flags.board);
  const suite = flags.file
    ? basename(flags.file)
    : `product ${product?.id} saved set r${set.revision}`;
  if (!ad) {
    const noRun = `board ${flags.board} was not seen within ${FIND_BOARD_MS / 1000} s`;
    out.fail(noRun);
    await writeReports(flags, { suite, board: flags.board, runs: [], noRun }, undefined);
    return EXIT.failed;
  }

  const events: TimelineEvent[] = [];
  const runs: ReportedRun[] = [];
  const failedActions = new Map<number, Extract<TimelineEvent, { kind: 'action' }>>();
  /** Writes per scenario run that the adapter could not confirm (`native`). */
  const unconfirmed = new Map<number, number>();
  let lastConnectError: string | undefined;
  const progress = out.progress(
    cycles ?? Math.round(flags.duration ?? 0),
    cycles ? 'connections' : 'seconds',
  );
  const started = Date.now();
  let connections = 0;

  const onEvent = (event: TimelineEvent) => {
    events.push(event);
    if (event.kind === 'connect-failed') {
      lastConnectError = event.error;
      out.line(`  connect failed: ${event.error}`);
    }
    if (event.kind === 'paired' || event.kind === 'encrypted') out.line(`  ${securityLine(event)}`);
    if (event.kind === 'pairing-failed') {
      lastConnectError = `pairing failed: ${event.error}`;
      out.line(`  ${lastConnectError}`);
    }
    if (event.kind === 'disconnected') connections += 1;
    if (event.kind === 'action' && event.writeConfirmed === false)
      unconfirmed.set(event.run, (unconfirmed.get(event.run) ?? 0) + 1);
    // A failed write's event carries no bytes; the set says what was being written.
    if (event.kind === 'action' && event.error)
      failedActions.set(event.run, {
        ...event,
        data: event.data ?? set.scenarios[event.scenario]?.actions[event.action]?.data,
      });
    progress.update(
      cycles ? connections : (Date.now() - started) / 1000,
      `${runs.length} scenario runs`,
    );
    if (event.kind !== 'scenario-end') return;
    const reported = {
      run: event.run,
      result: event.result,
      failedAction: failedActions.get(event.run),
      unconfirmedWrites: unconfirmed.get(event.run),
    };
    runs.push(reported);
    const title = `${event.result.scenarioId} run ${event.run} (${event.result.endTime - event.result.startTime} ms)`;
    const note = reported.unconfirmedWrites
      ? ` (${unconfirmedNote(reported.unconfirmedWrites)})`
      : '';
    if (event.result.resultCode === 'SUCCESS') out.pass(title + note);
    else out.fail(`${title}: ${failureMessage(event.result, reported.failedAction)}${note}`);
  };
  const dryRun = await plan.start({
    central,
    deviceId: ad.id,
    log: await session.scenarioLog(),
    record: {
      productId: product?.id ?? '',
      productName: product?.name ?? suite,
      boardName: ad.localName ?? flags.board,
      bench: session.adapterList(),
      setSource: draft ? 'draft' : 'saved',
    },
    deliver,
    report: { event: onEvent, problem: (message) => out.error(message) },
    signal: ctx.interrupt,
    pairAsPhone: flags.pairAsPhone,
  });
  const { run: final, outcome } = await dryRun.finished;
  progress.stop();

  const noRun = runs.length ? undefined : (lastConnectError ?? 'no scenario ran');
  await writeReports(
    flags,
    { suite, board: flags.board, runs, noRun },
    { run: final, set, events, results: outcome.results },
  );
  const failures = runs.filter((r) => r.result.resultCode !== 'SUCCESS').length;
  out.line(
    `${runs.length} scenario run${runs.length === 1 ? '' : 's'}, ${failures} failed (dry run #${final.id}, stopped: ${outcome.reason})`,
  );
  if (noRun) out.fail(noRun);
  if (ctx.interrupt.aborted) return EXIT.interrupted;
  return runs.length && !failures ? EXIT.ok : EXIT.failed;
}

/**
 * "paired: passkeyEntry, LE Secure Connections, authenticated, 16 octets, bonded"; "encrypted
 * with the bond: …" for a bonded board's link encrypted with the stored key.
 */
function securityLine(event: Extract<TimelineEvent, { kind: 'paired' | 'encrypted' }>): string {
  const { method, key, authenticated, keySize, bonded, fromBond } = event.security;
  const parts = [
    event.kind === 'paired' ? method : undefined,
    key === 'sc' ? 'LE Secure Connections' : key === 'legacy' ? 'LE legacy' : undefined,
    authenticated ? 'authenticated' : 'unauthenticated',
    keySize === undefined ? undefined : `${keySize} octets`,
    bonded ? 'bonded' : 'not bonded',
  ];
  const what = fromBond && event.kind === 'encrypted' ? 'encrypted with the bond' : event.kind;
  return `${what}: ${parts.filter((p) => p !== undefined).join(', ')}`;
}

/** The same check the app's service makes: a count the set can never reach is refused. */
function checkPlan(set: RunnableSet, cycles: number | undefined, seconds: number | undefined) {
  try {
    return DryRunPlan.check({
      set,
      cycles,
      durationMs: seconds === undefined ? undefined : seconds * 1000,
    });
  } catch (err) {
    if (err instanceof InfeasibleRun) throw new UsageError('--cycles', err.message);
    throw err;
  }
}

async function loadSaved(ctx: CommandContext, product: TrialProduct): Promise<RunnableSet> {
  const { things } = await ctx.session.platform();
  try {
    return await loadSavedSet(things, product.id);
  } catch (err) {
    if (err instanceof SetupError) throw new UsageError('--saved', err.detail);
    throw err;
  }
}

/** Results to a bot, signed with the environment's channel secret, as the app sends them. */
async function delivery(
  ctx: CommandContext,
  url: string,
  product: TrialProduct,
  board: string,
): Promise<DeliverResult> {
  const platform = await ctx.session.platform();
  // The board's id is its address as noble names it: 12 hex digits, no colons.
  const boardId = board.replaceAll(':', '').toLowerCase();
  const psdi = await (await ctx.session.audit()).verifiedPsdi(product.id, boardId);
  try {
    return deliverToWebhook(url, platform.channelSecret, product, psdi);
  } catch (err) {
    if (err instanceof SetupError)
      throw new UsageError(
        '--deliver',
        `${platform.name} has no channel secret to sign results with (Settings, or DEVICEBENCH_CHANNEL_SECRET)`,
      );
    throw err;
  }
}

async function writeReports(
  flags: RunFlags,
  junit: Parameters<typeof junitReport>[0],
  json: unknown,
): Promise<void> {
  if (flags.junit) await writeOut(flags.junit, junitReport(junit));
  if (flags.json && json !== undefined)
    await writeOut(flags.json, `${JSON.stringify(json, null, 2)}\n`);
}

async function writeOut(path: string, text: string): Promise<void> {
  await writeFile(path, text);
}
