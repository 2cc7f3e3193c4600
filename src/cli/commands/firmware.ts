// `devicebench firmware list|upload|test|confirm|reset`: a board's MCUboot image slots over
// MCUmgr (docs/mcumgr/image.md). Thin: flags in, the firmware use case does the work, a report
// and an exit code out (1 when the board refused or came back on another image).
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import type { McubootImage } from '../../core/ble/mcumgr/image-file';
import type { ImageSlot } from '../../core/ble/mcumgr/image-group';
import {
  boardByAddress,
  boardSlots,
  confirmFirmware,
  flashImage,
  readImageFile,
  resetBoard,
  testFirmware,
  type BoardByAddress,
} from '../../core/usecases/firmware';
import { SetupError } from '../../core/usecases/errors';
import { uploadLinkWords } from '../../core/usecases/upload-link-words';
import type { CommandContext, Runner } from '../command';
import { errorMessage } from '../../core/errors/message';
import { isInternal } from '../error-boundary';
import { EXIT, exitCodeOf, UsageError, type ExitCode } from '../exit';
import { parseFlags } from '../flags';
import { addressSchema, globalFlags, positionalOrFlag } from './shared';
import { FIND_BOARD_MS } from '../../core/usecases/provisioning/find-board';

const boardFlags = { board: addressSchema, json: z.boolean() };
const hashSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be the image’s SHA-256, 64 hex digits (firmware list shows it)')
  .transform((h) => h.toLowerCase());

export async function firmwareTarget(
  ctx: CommandContext,
  address: string,
): Promise<BoardByAddress> {
  return boardByAddress(await ctx.session.central(), address, FIND_BOARD_MS);
}

/**
 * Runs `work` on the board; its failure is the report's FAIL line naming the board and the step
 * (and with --json the document `{address, step, error}`), exit 1. Bad input, the station's
 * problems, a bug and Ctrl-C go on to the error boundary (src/cli/error-boundary.ts).
 */
export async function onBoard(
  ctx: CommandContext,
  where: { address: string; step: string; json: boolean },
  work: () => Promise<ExitCode>,
): Promise<ExitCode> {
  try {
    return await work();
  } catch (err) {
    if (exitCodeOf(err) !== EXIT.failed || isInternal(err) || ctx.interrupt.aborted) throw err;
    const error = errorMessage(err);
    if (where.json) ctx.out.document({ address: where.address, step: where.step, error });
    ctx.out.fail(`${where.address} ${where.step}: ${error}`);
    return EXIT.failed;
  }
}

/** An `--image` file read and checked before the radio opens; exit 2 naming the flag. */
export function readImage(path: string): McubootImage {
  try {
    return readImageFile(path);
  } catch (err) {
    throw err instanceof SetupError ? new UsageError('--image', err.detail) : err;
  }
}

function slotLine(s: ImageSlot): string {
  const flags = (['active', 'confirmed', 'pending', 'permanent'] as const).filter((f) => s[f]);
  return `slot ${s.slot}  ${s.version.padEnd(12)} ${s.hash ?? '(no hash)'}  ${flags.join(', ')}`;
}

function withBoard(y: Argv): Argv {
  return y
    .option('board', {
      type: 'string',
      demandOption: true,
      describe: 'the board’s Bluetooth address',
    })
    .option('json', { type: 'boolean', default: false, describe: 'print JSON' });
}

export function firmwareCommand(runner: Runner): CommandModule {
  return {
    command: 'firmware <action> [file]',
    describe: 'list, upload, test, confirm and reset a board’s firmware over MCUmgr',
    builder: (y) =>
      withBoard(y)
        .positional('action', {
          choices: ['list', 'upload', 'test', 'confirm', 'reset'] as const,
          describe: 'what to do',
        })
        .positional('file', {
          type: 'string',
          describe: 'upload, test: the signed MCUboot image file (as --image)',
        })
        .option('image', {
          type: 'string',
          describe: 'upload, test: the signed MCUboot image file',
        })
        .option('hash', {
          type: 'string',
          describe: 'test: the image’s SHA-256 instead of --image',
        })
        .option('test', {
          type: 'boolean',
          default: false,
          describe: 'upload: then test it (reset and check it runs)',
        })
        .option('confirm', {
          type: 'boolean',
          default: false,
          describe: 'upload --test: then confirm it',
        })
        .option('reset', {
          type: 'boolean',
          default: true,
          describe: 'test: reset the board after marking (--no-reset to only mark)',
        }),
    handler: (argv) => {
      const image = positionalOrFlag(
        { positional: 'FILE', flag: '--image' },
        argv.file,
        argv.image,
      );
      const flags = parseFlags(
        z.object({
          ...boardFlags,
          action: z.enum(['list', 'upload', 'test', 'confirm', 'reset']),
          image: z.string().min(1).optional(),
          hash: hashSchema.optional(),
          test: z.boolean(),
          confirm: z.boolean(),
          reset: z.boolean(),
        }),
        { ...argv, image },
      );
      if (flags.image && flags.action !== 'upload' && flags.action !== 'test')
        throw new UsageError('--image', `${flags.action} takes no image file`);
      if (flags.action === 'upload' && !flags.image)
        throw new UsageError('--image', 'upload needs the image file: firmware upload FILE');
      if (flags.action === 'test' && !flags.image === !flags.hash)
        throw new UsageError('--hash', 'test needs the image: give --image or --hash, not both');
      if (flags.confirm && !flags.test)
        throw new UsageError('--confirm', 'confirms a tested image: give --test too');
      const file = flags.image ? readImage(flags.image) : undefined;
      const step = flags.action === 'upload' ? `upload of ${file!.versionText}` : flags.action;
      const where = { address: flags.board, step: `firmware ${step}`, json: flags.json };
      return runner({ ...globalFlags(argv), json: flags.json }, (ctx) =>
        onBoard(ctx, where, async () => {
          const target = await firmwareTarget(ctx, flags.board);
          const { out } = ctx;
          const report = (doc: Record<string, unknown>, slots: ImageSlot[]): void => {
            if (flags.json) out.document({ address: flags.board, ...doc, slots });
            if (!slots.length) out.line(`${flags.board} lists no images: every slot is empty`);
            for (const s of slots) out.line(slotLine(s));
          };
          switch (flags.action) {
            case 'list': {
              report({}, await boardSlots(target));
              return EXIT.ok;
            }
            case 'confirm': {
              const slots = await confirmFirmware(target);
              out.pass(
                `${flags.board} runs ${slots.find((s) => s.active)?.version ?? '?'}, confirmed`,
              );
              report({}, slots);
              return EXIT.ok;
            }
            case 'reset': {
              const { reverted, slots } = await resetBoard(target);
              const running = slots.find((s) => s.active)?.version ?? '?';
              out.pass(
                reverted
                  ? `${flags.board} is back and reverted: the image on test was not confirmed, it runs ${running}`
                  : `${flags.board} is back, running ${running}`,
              );
              report({ reverted }, slots);
              return EXIT.ok;
            }
            case 'test':
              return testAndReport(ctx, target, flags.hash ?? hex(file!.hash), flags.reset, report);
            case 'upload':
              return upload(ctx, target, file!, {
                test: flags.test,
                confirm: flags.confirm,
                report,
              });
          }
        }),
      );
    },
  };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

type Report = (doc: Record<string, unknown>, slots: ImageSlot[]) => void;

async function testAndReport(
  { out }: CommandContext,
  target: BoardByAddress,
  hash: string,
  resetAfter: boolean,
  report: Report,
): Promise<ExitCode> {
  const result = await testFirmware(target, hash, resetAfter);
  if (result.outcome === 'pending')
    out.pass(`${target.address}: ${hash.slice(0, 12)}… marked for test at the next reset`);
  else if (result.outcome === 'running')
    out.pass(
      `${target.address} runs ${hash.slice(0, 12)}… on test: confirm it, or the next reset reverts it`,
    );
  else
    out.fail(
      `${target.address} reverted: it came back on another image, not ${hash.slice(0, 12)}…`,
    );
  report({ hash, outcome: result.outcome }, result.slots);
  return result.outcome === 'reverted' ? EXIT.failed : EXIT.ok;
}

async function upload(
  ctx: CommandContext,
  target: BoardByAddress,
  image: McubootImage,
  options: { test: boolean; confirm: boolean; report: Report },
): Promise<ExitCode> {
  const { out } = ctx;
  const hash = hex(image.hash);
  const bar = out.progress(image.bytes.length, `upload ${image.versionText}`);
  let last = 0;
  const result = await flashImage(target, image, {
    signal: ctx.interrupt,
    onProgress: (p) => {
      bar.update(p.offset, `${(p.bytesPerSecond / 1000).toFixed(1)} kB/s`);
      const tenth = Math.floor((p.offset * 10) / p.total);
      if (!out.tty && tenth > last) {
        last = tenth;
        out.note(`${p.offset}/${p.total} bytes`);
      }
    },
    onReconnect: (n) => out.note(`link dropped: reconnecting (${n}) to resume the upload`),
  }).finally(() => bar.stop());
  const resumed = result.resumedFrom ? `, resumed at ${result.resumedFrom}` : '';
  out.pass(
    `${target.address}: ${image.versionText} uploaded, ${result.total} bytes at ${result.kilobytesPerSecond.toFixed(1)} kB/s${resumed} — link: ${uploadLinkWords(result.link)}`,
  );
  const doc: Record<string, unknown> = {
    image: { version: image.versionText, hash, size: image.bytes.length },
    upload: {
      total: result.total,
      resumedFrom: result.resumedFrom,
      sent: result.sent,
      elapsedMs: result.elapsedMs,
      kilobytesPerSecond: Number(result.kilobytesPerSecond.toFixed(2)),
      reconnects: result.reconnects,
      link: result.link,
    },
  };
  if (!options.test) {
    options.report(doc, result.slots);
    return EXIT.ok;
  }
  const tested = await testFirmware(target, hash, true);
  if (tested.outcome !== 'running') {
    out.fail(
      `${target.address} reverted: ${image.versionText} did not stay running after the reset`,
    );
    options.report({ ...doc, outcome: 'reverted' }, tested.slots);
    return EXIT.failed;
  }
  if (!options.confirm) {
    out.pass(
      `${target.address} runs ${image.versionText} on test: confirm it, or the next reset reverts it`,
    );
    options.report({ ...doc, outcome: 'running' }, tested.slots);
    return EXIT.ok;
  }
  const slots = await confirmFirmware(target);
  out.pass(`${target.address} runs ${image.versionText}, confirmed`);
  options.report({ ...doc, outcome: 'confirmed' }, slots);
  return EXIT.ok;
}
