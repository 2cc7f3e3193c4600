// Firmware and settings on one board over MCUmgr (docs/mcumgr/protocol.md), once for the CLI,
// a batch and the app: find the board by address and connect (or take the link a bench card
// holds), and run the image and settings groups — upload resuming after a dropped link, test
// then reset then reconnect to see which image came back, confirm, reset, echo, settings get
// and set.
import type { Clock } from '../async/clock';
import { wallClock } from '../async/clock';
import { McumgrClient, McumgrError } from '../ble/mcumgr/client';
import {
  confirmImage,
  listSlots,
  testImage,
  uploadImage,
  uploadSlot,
  type ImageSlot,
  type UploadProgress,
  type UploadResult,
} from '../ble/mcumgr/image-group';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { readMcubootImage, type McubootImage } from '../ble/mcumgr/image-file';
import { echo, params, reset } from '../ble/mcumgr/os-group';
import { linkForUpload } from '../ble/mcumgr/upload-link';
import type { UploadLink } from '../ble/mcumgr/upload-link-info';
import { groupResult, MCUMGR_GROUP } from '../ble/mcumgr/groups';
import { waitWords } from '../async/timeout';
import {
  readSetting,
  saveSettings,
  settingsKeyProblem,
  writeSetting,
} from '../ble/mcumgr/settings-group';
import type { BleCentral, BleConnection } from '../ble/port';
import { defaultTiming } from '../provisioning/steps';
import { findBoard } from '../provisioning/verify';
import type { ImageFlash } from '../provisioning/workflow';
import { SetupError } from './errors';

/** A board's MCUmgr buffer when it does not answer the OS parameters (older Zephyr). */
const DEFAULT_BUFFER_SIZE = 384;
/** Reconnections an upload makes after a dropped link before it gives up. */
const UPLOAD_RECONNECTS = 3;

/** A board found by its address and connected for each call (the CLI, a batch). */
export interface BoardByAddress {
  central: BleCentral;
  /** The board's Bluetooth address. */
  address: string;
  /** How long the board may take to show up (also after a reset). */
  findTimeoutMs: number;
  connectTimeoutMs: number;
  clock?: Clock;
}

/**
 * A board whose link the caller holds (a card on the BLE bench): each call runs on that link
 * and leaves it open; `link` gives it, connected again when it has dropped (after a reset).
 */
export interface HeldBoard {
  link: () => Promise<BleConnection>;
  clock?: Clock;
}

export type FirmwareTarget = BoardByAddress | HeldBoard;

/** The board at `address`, connected within provisioning's connect bound each call. */
export function boardByAddress(
  central: BleCentral,
  address: string,
  findTimeoutMs: number,
): BoardByAddress {
  return { central, address, findTimeoutMs, connectTimeoutMs: defaultTiming.connect.timeoutMs };
}

/** A signed MCUboot image file, read and checked; refused at `image` naming what is wrong. */
export function readImageFile(path: string): McubootImage {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new SetupError('image', `cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return readMcubootImage(bytes);
  } catch (err) {
    throw new SetupError('image', `${path}: ${(err as Error).message}`);
  }
}

/** A Zephyr settings key (`devicebench/psdi`), refused saying what is wrong with it. */
export const settingsKeySchema = z.string().superRefine((key, ctx) => {
  const problem = settingsKeyProblem(key);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The board was not found, or its link could not be opened. */
class BoardUnreachableError extends Error {
  override name = 'BoardUnreachableError';
}

/** The image does not fit the slot an upload lands in: no board of this layout takes it. */
class ImageTooLargeError extends Error {
  override name = 'ImageTooLargeError';
}

/** A size as flash sizes are written: "256 KB" (1 KB = 1024 bytes), "300.5 KB", "900 bytes". */
function sizeWords(bytes: number): string {
  if (bytes < 10 * 1024) return `${bytes} bytes`;
  const kb = bytes / 1024;
  return `${Number.isInteger(kb) ? kb : kb.toFixed(1)} KB`;
}

/**
 * Refuses an image larger than the slot the board says an upload lands in, before anything is
 * sent (docs/mcumgr/image.md); a board that does not say refuses the first chunk itself.
 */
async function checkFits(client: McumgrClient, image: McubootImage): Promise<void> {
  const slot = await uploadSlot(client);
  if (!slot) return;
  const length = image.bytes.length;
  const what = `the image (${sizeWords(length)})`;
  if (slot.maxImageSize !== undefined && length > slot.maxImageSize)
    throw new ImageTooLargeError(
      `${what} is larger than the ${sizeWords(slot.maxImageSize)} the board takes in slot ${slot.slot} (${sizeWords(slot.size)})`,
    );
  if (length > slot.size)
    throw new ImageTooLargeError(
      `${what} is larger than slot ${slot.slot} (${sizeWords(slot.size)})`,
    );
}

/** The board's own "image too large", from a board that does not tell its slot's size. */
function tooLargeAnswer(error: unknown, image: McubootImage): ImageTooLargeError | undefined {
  if (!(error instanceof McumgrError) || error.failure !== 'board') return undefined;
  const { group, rc } = error.result ?? {};
  if (group !== MCUMGR_GROUP.image || rc !== groupResult('image', 'image too large'))
    return undefined;
  return new ImageTooLargeError(
    `the image (${sizeWords(image.bytes.length)}) is larger than the board's slot 1: it answered ${error.message}`,
    { cause: error },
  );
}

interface OpenBoard {
  link: BleConnection;
  client: McumgrClient;
  /** Whether closing the board ends its link: not a link the caller holds. */
  owned: boolean;
}

async function connectBoard(
  target: FirmwareTarget,
): Promise<{ link: BleConnection; owned: boolean }> {
  if ('link' in target) return { link: await target.link(), owned: false };
  const ad = await findBoard(target.central, target.address, [], target.findTimeoutMs);
  if (!ad)
    throw new BoardUnreachableError(
      `the board did not advertise within ${waitWords(target.findTimeoutMs)}`,
    );
  const link = await target.central.connect(ad.id, { timeoutMs: target.connectTimeoutMs });
  return { link, owned: true };
}

async function openBoard(target: FirmwareTarget): Promise<OpenBoard> {
  const { link, owned } = await connectBoard(target);
  try {
    const client = await McumgrClient.open(link, { clock: target.clock });
    return { link, client, owned };
  } catch (error) {
    if (owned) await link.disconnect().catch(() => undefined);
    throw error;
  }
}

async function closeBoard(board: OpenBoard): Promise<void> {
  await board.client.close();
  if (board.owned) await board.link.disconnect().catch(() => undefined);
}

async function withBoard<T>(
  target: FirmwareTarget,
  work: (b: OpenBoard) => Promise<T>,
): Promise<T> {
  const board = await openBoard(target);
  try {
    return await work(board);
  } finally {
    await closeBoard(board);
  }
}

export function boardSlots(target: FirmwareTarget): Promise<ImageSlot[]> {
  return withBoard(target, ({ client }) => listSlots(client));
}

export interface FlashResult extends UploadResult {
  /** Links that dropped during the upload and were reconnected. */
  reconnects: number;
  slots: ImageSlot[];
  /** What the (last) link got for the upload. */
  link: UploadLink;
}

/** An upload's progress and the link it runs on. */
export interface FlashProgress extends UploadProgress {
  link: UploadLink;
}

/**
 * The board's MCUmgr buffers: its size, and the requests in flight an upload sends — all its
 * buffers but the one its answer takes (`buf_count` − 1, docs/mcumgr/os.md), as phones' Device
 * Manager does. A request a board drops all the same (Zephyr frees a request's buffers only once
 * its answer went over the air) costs a chunk sent again, not a timeout (`uploadImage`). One,
 * with a small buffer, for a board that does not answer the OS parameters.
 */
export async function uploadBuffers(
  client: McumgrClient,
): Promise<{ bufferSize: number; window: number }> {
  try {
    const p = await params(client);
    return { bufferSize: p.bufferSize, window: Math.max(1, p.bufferCount - 1) };
  } catch (error) {
    if (error instanceof McumgrError && error.failure === 'board')
      return { bufferSize: DEFAULT_BUFFER_SIZE, window: 1 };
    throw error;
  }
}

/**
 * Uploads the image to the board's free slot, on the link it asks for (`linkForUpload`) with
 * as many requests in flight as the board has buffers for. A link that drops mid-upload is
 * reconnected and the upload resumes from the offset the board reports (docs/mcumgr/image.md).
 */
export function flashImage(
  target: FirmwareTarget,
  image: McubootImage,
  options: FlashOptions = {},
): Promise<FlashResult> {
  return uploadOn(target, image, options);
}

interface FlashOptions {
  onProgress?: (p: FlashProgress) => void;
  onReconnect?: (n: number) => void;
  signal?: AbortSignal;
}

/** `flashImage`, its first attempt on `opened` when given (closed at the end like its own). */
async function uploadOn(
  target: FirmwareTarget,
  image: McubootImage,
  options: FlashOptions,
  opened?: OpenBoard,
): Promise<FlashResult> {
  const clock = target.clock ?? wallClock();
  const started = clock.now();
  let sent = 0;
  let resumedFrom: number | undefined;
  for (let reconnects = 0; ; reconnects++) {
    const board = reconnects === 0 && opened ? opened : await openBoard(target);
    let restore = async () => {};
    try {
      const asked = await linkForUpload(board.link);
      // A link this upload ends itself needs no parameters back.
      if (!board.owned) restore = asked.restore;
      const { bufferSize, window } = await uploadBuffers(board.client);
      const link: UploadLink = { ...asked.link, window };
      if (reconnects === 0) await checkFits(board.client, image);
      board.client.setWindow(window);
      const result = await uploadImage(board.client, image, {
        bufferSize,
        onProgress: options.onProgress && ((p) => options.onProgress?.({ ...p, link })),
        signal: options.signal,
      }).catch((error: unknown) => {
        throw tooLargeAnswer(error, image) ?? error;
      });
      board.client.setWindow(1);
      sent += result.sent;
      resumedFrom ??= result.resumedFrom;
      const slots = await listSlots(board.client);
      const elapsedMs = Math.max(clock.now() - started, 1);
      return {
        total: result.total,
        resumedFrom,
        sent,
        elapsedMs,
        kilobytesPerSecond: sent / elapsedMs,
        reconnects,
        slots,
        link,
      };
    } catch (error) {
      const dropped =
        error instanceof McumgrError && (error.failure === 'link' || error.failure === 'timeout');
      if (!dropped || reconnects >= UPLOAD_RECONNECTS || options.signal?.aborted) throw error;
      options.onReconnect?.(reconnects + 1);
    } finally {
      await restore();
      await closeBoard(board);
    }
  }
}

/**
 * Resets the board, waits for its link to go down, and reconnects to list its slots — and, on
 * that same link, does `then` with them (a connection fewer than opening the board again).
 */
async function afterReset<T>(
  target: FirmwareTarget,
  board: OpenBoard,
  then: (client: McumgrClient, slots: ImageSlot[]) => Promise<T>,
): Promise<T> {
  const down = new Promise<void>((resolve) => board.link.onDisconnect(() => resolve()));
  await reset(board.client).catch((error: unknown) => {
    // A board that goes down before its answer reaches the station has reset all the same.
    if (!(error instanceof McumgrError && error.failure === 'link')) throw error;
  });
  await down;
  await board.client.close();
  return withBoard(target, async ({ client }) => then(client, await listSlots(client)));
}

/** Resets the board, waits for its link to go down, and reconnects to list its slots. */
function resetAndReconnect(target: FirmwareTarget, board: OpenBoard): Promise<ImageSlot[]> {
  return afterReset(target, board, async (_, slots) => slots);
}

export interface BootOutcome {
  /** The image asked for runs (unconfirmed after a test), or the board came back on another. */
  outcome: 'running' | 'reverted';
  slots: ImageSlot[];
}

function bootOutcome(hash: string, slots: ImageSlot[]): BootOutcome {
  const active = slots.find((s) => s.active);
  return { outcome: active?.hash === hash ? 'running' : 'reverted', slots };
}

/** Marks the image with `hash` (hex) for test; with `resetAfter`, resets and reports what boots. */
export function testFirmware(
  target: FirmwareTarget,
  hash: string,
  resetAfter: boolean,
): Promise<BootOutcome | { outcome: 'pending'; slots: ImageSlot[] }> {
  return withBoard(target, async (board) => {
    const slots = await testImage(board.client, Buffer.from(hash, 'hex'));
    if (!resetAfter) return { outcome: 'pending' as const, slots };
    return bootOutcome(hash, await resetAndReconnect(target, board));
  });
}

/** Makes the running image permanent. */
export function confirmFirmware(target: FirmwareTarget): Promise<ImageSlot[]> {
  return withBoard(target, ({ client }) => confirmImage(client));
}

export interface ResetOutcome {
  /** It was running an image on test (not confirmed) and came back on another, as MCUboot does. */
  reverted: boolean;
  /** The image marked for test before the reset is the one running now. */
  swapped: boolean;
  slots: ImageSlot[];
}

/** Resets the board and lists its slots once it is back, saying which image came back. */
export function resetBoard(target: FirmwareTarget): Promise<ResetOutcome> {
  return withBoard(target, async (board) => {
    const slotsBefore = await listSlots(board.client);
    const before = slotsBefore.find((s) => s.active);
    const pending = slotsBefore.find((s) => s.pending && !s.active);
    const slots = await resetAndReconnect(target, board);
    const after = slots.find((s) => s.active);
    const reverted = before !== undefined && !before.confirmed && after?.hash !== before.hash;
    const swapped = pending?.hash !== undefined && after?.hash === pending.hash;
    return { reverted, swapped, slots };
  });
}

/** The board's answer to an echo: the same text when its MCUmgr server is alive. */
export function echoBoard(target: FirmwareTarget, text: string): Promise<string> {
  return withBoard(target, ({ client }) => echo(client, text));
}

/**
 * Puts the image on the board to stay, as an engineer would by hand: upload, test, reset, and
 * confirm once the board runs it. A board that runs it confirmed already is left alone; one
 * that reverts is an error.
 */
async function installImage(target: FirmwareTarget, image: McubootImage): Promise<void> {
  const hash = Buffer.from(image.hash).toString('hex');
  // Three connections, where each step on a link of its own took five (issue 46): what runs and
  // the upload share one, the test and its reset one, and what came back and the confirm one.
  const board = await openBoard(target);
  let running: ImageSlot | undefined;
  try {
    running = (await listSlots(board.client)).find((s) => s.active);
  } catch (error) {
    await closeBoard(board);
    throw error;
  }
  if (running?.hash === hash && running.confirmed) return closeBoard(board);
  await uploadOn(target, image, {}, board);
  await withBoard(target, async (tested) => {
    await testImage(tested.client, image.hash);
    await afterReset(target, tested, async (client, slots) => {
      if (bootOutcome(hash, slots).outcome !== 'running')
        throw new Error(
          `the board reverted after the test reset: image ${hash.slice(0, 12)}… did not boot`,
        );
      await confirmImage(client);
    });
  });
}

/**
 * Each board of a provisioning run flashed with `image` before anything is reserved for it
 * (`provision --image`, a batch's image), found and connected with the run's default timing.
 */
export function imageFlash(central: BleCentral, image: McubootImage): ImageFlash {
  return {
    hash: Buffer.from(image.hash).toString('hex'),
    onto: (address) =>
      installImage(
        {
          central,
          address,
          findTimeoutMs: defaultTiming.select.timeoutMs,
          connectTimeoutMs: defaultTiming.connect.timeoutMs,
        },
        image,
      ),
  };
}

export function getSetting(target: FirmwareTarget, key: string): Promise<Uint8Array> {
  return withBoard(target, ({ client }) => readSetting(client, key));
}

/** Writes `value` to `key`, and with `save` puts every setting in the board's flash. */
export function setSetting(
  target: FirmwareTarget,
  key: string,
  value: Uint8Array,
  save: boolean,
): Promise<void> {
  return withBoard(target, async ({ client }) => {
    await writeSetting(client, key, value);
    if (save) await saveSettings(client);
  });
}
