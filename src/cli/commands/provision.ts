// `devicebench provision`: one board by address, or a batch of N, run by the same use case as
// the app's (usecases/provisioning/run.ts: the PSDI reserved in the audit log before it is
// written, read back, recorded); this file maps the flags onto it and its events onto lines.
// Ctrl-C cuts running boards at their next safe point: before the commit their PSDI is
// released, after it the board is verified, so no record is left holding a PSDI it may not
// carry.
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import type { BatchBoardStatus } from '../../core/provisioning/batch';
import { describeRecordEvent, type RecordEvent } from '../../core/audit/records';
import type { ProvisionEvent } from '../../core/provisioning/steps';
import { FIND_BOARD_MS } from '../../core/usecases/provisioning/find-board';
import {
  provisionAt,
  startBatchRun,
  type ProvisioningRun,
} from '../../core/usecases/provisioning/run';
import type { CommandContext, Runner } from '../command';
import { EXIT, type ExitCode } from '../exit';
import { parseFlags } from '../flags';
import type { Output } from '../output';
import { provisioningInput } from '../provisioning-input';
import { readImage } from './firmware';
import { addressSchema, globalFlags } from './shared';

const flagsSchema = z
  .object({
    product: z.string().min(1, 'is required'),
    board: addressSchema.optional(),
    count: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10_000)
      .optional(),
    concurrency: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(16, 'must be at most 16'),
    profile: z.string().min(1).optional(),
    plan: z.string().min(1).optional(),
    image: z.string().min(1).optional(),
    planHeader: z.boolean(),
    onlyMatching: z.boolean(),
    json: z.boolean(),
  })
  .refine((f) => (f.board === undefined) !== (f.count === undefined), {
    path: ['board'],
    message: 'give either --board ADDRESS (one board) or --count N (a batch)',
  });
type Flags = z.output<typeof flagsSchema>;

/** One board's outcome, as printed and as JSON. */
interface BoardOutcome {
  address: string;
  name: string | null;
  state: 'verified' | 'failed' | 'stopped' | 'not-found' | 'skipped';
  psdi: string | null;
  recordId: number | null;
  step: string | null;
  error: string | null;
  /** Every failed try and what followed, from the record (empty when none failed). */
  history: RecordEvent[];
  /** Skipped for another profile: the ids of the known profiles that fit the board. */
  matches: string[] | null;
}

export function provisionCommand(runner: Runner): CommandModule {
  return {
    command: 'provision',
    describe: 'provision one board (--board) or a batch (--count) for a trial product',
    builder: (y) =>
      y
        .option('product', { type: 'string', demandOption: true, describe: 'trial product ID' })
        .option('board', { type: 'string', describe: 'the board’s Bluetooth address' })
        .option('count', { type: 'number', describe: 'provision this many blank boards in range' })
        .option('concurrency', { type: 'number', default: 4, describe: 'boards at once (1–16)' })
        .option('profile', {
          type: 'string',
          describe: 'provisioning profile: an id or a .json file',
        })
        .option('plan', {
          type: 'string',
          describe: 'PSDI plan: a JSON plan or a CSV list (default: the plan saved in the app)',
        })
        .option('image', {
          type: 'string',
          describe:
            'flash this signed MCUboot image to each board first (upload, test, reset, confirm over MCUmgr); its SHA-256 goes in each record',
        })
        .option('plan-header', {
          type: 'boolean',
          default: false,
          describe:
            'the --plan CSV file starts with a header row (else its first row must be a PSDI)',
        })
        .option('only-matching', {
          type: 'boolean',
          default: false,
          describe:
            'a batch counts only boards that fit the profile: others are skipped without taking a place of --count or failing the run',
        })
        .option('json', { type: 'boolean', default: false, describe: 'print JSON' }),
    handler: (argv) => {
      const flags = parseFlags(flagsSchema, argv);
      const global = globalFlags(argv);
      return runner({ ...global, json: flags.json }, async (ctx) => {
        const input = await provisioningInput({
          dataDir: global.dataDir,
          productId: flags.product,
          profile: flags.profile,
          plan: flags.plan,
          planHeader: flags.planHeader,
        });
        for (const line of input.skipped) ctx.out.note(line);
        const image = flags.image === undefined ? undefined : readImage(flags.image);
        const central = await ctx.session.central();
        const product = await ctx.session.product(flags.product);
        const run: ProvisioningRun = {
          central,
          store: await ctx.session.audit(),
          product,
          profile: input.profile,
          psdi: input.psdi,
          image,
        };
        // An adapter that goes away mid-run (dongle unplugged, TCP peer gone) stops the run as
        // Ctrl-C does, at a safe point, and the command exits 3 (docs/ci.md).
        const lost = new AbortController();
        let lostReason: string | undefined;
        const offState = central.onStateChange((state) => {
          if (state !== 'noAdapter' || lost.signal.aborted) return;
          lostReason = central.stateReason?.() ?? 'the adapter went away';
          // The records of boards cut before their commit say so, not that someone stopped them.
          lost.abort(`stopped before the commit: the adapter went away (${lostReason})`);
        });
        const stopping = { ...ctx, interrupt: AbortSignal.any([ctx.interrupt, lost.signal]) };
        try {
          const outcomes = flags.board
            ? [await one(stopping, flags.board, run)]
            : await batch(stopping, flags, run);
          const code = report(ctx.out, flags, outcomes, ctx.interrupt.aborted);
          if (lostReason === undefined) return code;
          ctx.out.error(`the adapter went away mid-run: ${lostReason}`);
          return EXIT.environment;
        } finally {
          offState();
        }
      });
    },
  };
}

async function one(
  ctx: CommandContext,
  address: string,
  run: ProvisioningRun,
): Promise<BoardOutcome> {
  const cut = new AbortController();
  const onAbort = () => cut.abort(ctx.interrupt.reason);
  ctx.interrupt.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await provisionAt(run, address, {
      signal: cut.signal,
      onProgress: (event) => progressLine(ctx.out, event),
    });
    if (result.state === 'not-found')
      return outcome(address, null, {
        state: 'not-found',
        error: `not seen advertising the provisioning service ${run.profile.service} within ${FIND_BOARD_MS / 1000} s`,
      });
    const { address: at, localName } = result.board;
    if (result.state === 'verified')
      return outcome(at, localName, {
        state: 'verified',
        psdi: result.record.psdi,
        recordId: result.record.id,
        history: result.record.history,
      });
    if (result.state === 'skipped')
      return outcome(at, localName, {
        state: 'skipped',
        step: result.step,
        error: result.reason,
        matches: result.matches,
      });
    return outcome(at, localName, {
      state: result.state,
      psdi: result.record?.psdi,
      recordId: result.record?.id,
      step: result.step,
      error: result.error,
      history: result.record?.history,
    });
  } finally {
    ctx.interrupt.removeEventListener('abort', onAbort);
  }
}

async function batch(
  ctx: CommandContext,
  flags: Flags,
  run: ProvisioningRun,
): Promise<BoardOutcome[]> {
  const total = flags.count ?? 1;
  const progress = ctx.out.progress(total, 'provisioning');
  let finished = 0;
  const running = startBatchRun(run, {
    concurrency: flags.concurrency,
    limit: total,
    onlyMatching: flags.onlyMatching,
    onEvent: (event) => {
      if (event.type === 'progress') return progressLine(ctx.out, event.event);
      if (event.type !== 'board') return;
      const status = event.status;
      if (status.matchingProfiles) return printOutcome(ctx.out, fromStatus(status));
      if (status.state !== 'verified' && status.state !== 'failed') return;
      finished += 1;
      progress.update(finished, status.board.address);
      printOutcome(ctx.out, fromStatus(status));
    },
  });
  const onAbort = () =>
    void running.stop({
      cut: true,
      reason: typeof ctx.interrupt.reason === 'string' ? ctx.interrupt.reason : undefined,
    });
  ctx.interrupt.addEventListener('abort', onAbort, { once: true });
  const summary = await running.done;
  ctx.interrupt.removeEventListener('abort', onAbort);
  progress.stop();
  if (summary.scanError) ctx.out.error(`scan failed: ${summary.scanError}`);
  return summary.boards
    .filter(
      (b) => b.state !== 'skipped' || b.recordId !== undefined || b.matchingProfiles !== undefined,
    )
    .map(fromStatus);
}

function fromStatus(status: BatchBoardStatus): BoardOutcome {
  return outcome(status.board.address, status.localName, {
    state:
      status.state === 'verified'
        ? 'verified'
        : status.state === 'failed'
          ? 'failed'
          : status.matchingProfiles
            ? 'skipped'
            : 'stopped',
    psdi: status.psdi,
    recordId: status.recordId,
    step: status.step,
    error: status.error ?? status.skipReason,
    matches: status.matchingProfiles?.map((p) => p.id),
  });
}

function outcome(
  address: string,
  name: string | undefined | null,
  fields: Partial<Omit<BoardOutcome, 'address' | 'name'>> & Pick<BoardOutcome, 'state'>,
): BoardOutcome {
  return {
    address,
    name: name ?? null,
    psdi: fields.psdi ?? null,
    recordId: fields.recordId ?? null,
    step: fields.step ?? null,
    error: fields.error ?? null,
    history: fields.history ?? [],
    matches: fields.matches ?? null,
    state: fields.state,
  };
}

/** Piped, every retry is worth a line; on a terminal the bar and the outcomes say enough. */
function progressLine(out: Output, event: ProvisionEvent): void {
  if (out.tty || event.type !== 'step-failed') return;
  out.line(
    `  ${event.board.name ?? event.board.address} ${event.step} attempt ${event.attempt}: ${event.error}${event.willRetry ? ' (retrying)' : ''}`,
  );
}

function printOutcome(out: Output, o: BoardOutcome): void {
  const who = o.name ? `${o.name} (${o.address})` : o.address;
  if (o.state === 'verified') out.pass(`${who} PSDI ${o.psdi} verified, record #${o.recordId}`);
  else if (o.state === 'skipped') out.skip(`${who} ${o.error ?? 'skipped'}`);
  else
    out.fail(
      `${who} ${o.state}${o.step ? ` at ${o.step}` : ''}${o.error ? `: ${o.error}` : ''}${o.recordId !== null ? `, record #${o.recordId}` : ''}`,
    );
  for (const event of o.history) out.line(`    ${describeRecordEvent(event)}`);
}

function report(
  out: Output,
  flags: Flags,
  outcomes: BoardOutcome[],
  interrupted: boolean,
): ExitCode {
  if (flags.board) outcomes.forEach((o) => printOutcome(out, o));
  const verified = outcomes.filter((o) => o.state === 'verified').length;
  const skipped = outcomes.filter((o) => o.state === 'skipped').length;
  const wanted = flags.count ?? 1;
  const others = skipped
    ? `; ${skipped} board${skipped === 1 ? '' : 's'} of another profile skipped, nothing reserved for ${skipped === 1 ? 'it' : 'them'}`
    : '';
  const line = `${verified} of ${wanted} board${wanted === 1 ? '' : 's'} verified${others}${interrupted ? ' (stopped by Ctrl-C)' : ''}`;
  if (flags.json) out.document({ wanted, verified, skipped, interrupted, boards: outcomes });
  out.line(line);
  if (interrupted) return EXIT.interrupted;
  // With --only-matching a board of another profile is not one of the batch's.
  const counted = outcomes.filter((o) => !(flags.onlyMatching && o.state === 'skipped'));
  return verified === wanted && counted.every((o) => o.state === 'verified')
    ? EXIT.ok
    : EXIT.failed;
}
