// The image group (docs/mcumgr/image.md): list the slots, upload an image in chunks that
// resume from the offset the board reports, mark it for test, confirm it, erase a slot.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parseAnswer } from './answer';
import { McumgrError, type McumgrClient } from './client';
import { MCUMGR_OP, encodeFrame, type McumgrBody } from './frame';
import { MCUMGR_COMMAND, MCUMGR_GROUP } from './groups';
import type { McubootImage } from './image-file';

const group = MCUMGR_GROUP.image;
const ids = MCUMGR_COMMAND.image;

const bytes = z.instanceof(Uint8Array);

const slotSchema = z.object({
  image: z.number().int().nonnegative().default(0),
  slot: z.number().int().nonnegative(),
  version: z.string(),
  hash: bytes.optional(),
  bootable: z.boolean().default(false),
  pending: z.boolean().default(false),
  confirmed: z.boolean().default(false),
  active: z.boolean().default(false),
  permanent: z.boolean().default(false),
});

const stateSchema = z.object({ images: z.array(slotSchema) });

export interface ImageSlot {
  image: number;
  slot: number;
  version: string;
  /** The SHA-256 TLV of the image in the slot, hex; absent when the board does not say. */
  hash?: string;
  bootable: boolean;
  pending: boolean;
  confirmed: boolean;
  active: boolean;
  permanent: boolean;
}

function toSlots(body: McumgrBody, command: string): ImageSlot[] {
  return parseAnswer(command, stateSchema, body).images.map(({ hash, ...slot }) => ({
    ...slot,
    ...(hash ? { hash: Buffer.from(hash).toString('hex') } : {}),
  }));
}

export async function listSlots(client: McumgrClient): Promise<ImageSlot[]> {
  const answer = await client.request({ op: 'read', group, command: ids.state });
  return toSlots(answer, 'image state');
}

const slotInfoSchema = z.object({
  images: z.array(
    z.object({
      image: z.number().int().nonnegative(),
      slots: z.array(
        z.object({ slot: z.number().int().nonnegative(), size: z.number().int().nonnegative() }),
      ),
      max_image_size: z.number().int().positive().optional(),
    }),
  ),
});

/** Where an upload to image 0 lands, as the board tells it. */
export interface UploadSlot {
  /** The slot an upload goes to: MCUboot's secondary, slot 1. */
  slot: number;
  size: number;
  /** The largest application the board takes there, when it says (it leaves room for MCUboot's trailer). */
  maxImageSize?: number;
}

/**
 * The size of the slot an upload lands in, from the image group's slot info
 * (docs/mcumgr/image.md); undefined for a board that does not say: Zephyr answers "not
 * supported" without CONFIG_MCUMGR_GRP_IMG_SLOT_INFO, and its 3.4 tree has no such command.
 */
export async function uploadSlot(client: McumgrClient): Promise<UploadSlot | undefined> {
  let answer: McumgrBody;
  try {
    answer = await client.request({ op: 'read', group, command: ids.slotInfo });
  } catch (error) {
    if (error instanceof McumgrError && error.failure === 'board') return undefined;
    throw error;
  }
  const image = parseAnswer('slot info', slotInfoSchema, answer).images.find((i) => i.image === 0);
  const slot = image?.slots.find((s) => s.slot === 1);
  if (!image || !slot) return undefined;
  return {
    slot: slot.slot,
    size: slot.size,
    ...(image.max_image_size !== undefined && { maxImageSize: image.max_image_size }),
  };
}

/** Marks the image with this hash to be tried once on the next reset. */
export async function testImage(client: McumgrClient, hash: Uint8Array): Promise<ImageSlot[]> {
  const answer = await client.request({
    op: 'write',
    group,
    command: ids.state,
    body: { hash, confirm: false },
  });
  return toSlots(answer, 'image test');
}

/** Makes the running image (or the one with `hash`) permanent. */
export async function confirmImage(client: McumgrClient, hash?: Uint8Array): Promise<ImageSlot[]> {
  const answer = await client.request({
    op: 'write',
    group,
    command: ids.state,
    body: hash ? { hash, confirm: true } : { confirm: true },
  });
  return toSlots(answer, 'image confirm');
}

/** Erases the slot that is not running (or `slot`); erasing flash can take the board seconds. */
export async function eraseSlot(client: McumgrClient, slot?: number): Promise<void> {
  await client.request({
    op: 'write',
    group,
    command: ids.erase,
    body: slot === undefined ? {} : { slot },
    timeoutMs: 20_000,
  });
}

export interface UploadProgress {
  /** Bytes the board has stored. */
  offset: number;
  total: number;
  /** Bytes sent in this upload (not counting what a resume skipped), per second. */
  bytesPerSecond: number;
  /** Where the board said the upload stood when this one started (0: from the start). */
  resumedFrom: number;
}

export interface UploadResult {
  total: number;
  /** Where the board said the upload stood when this one started (0: from the start). */
  resumedFrom: number;
  /** Bytes this upload sent. */
  sent: number;
  elapsedMs: number;
  /** kB/s (1 kB = 1000 bytes) over `sent` and `elapsedMs`. */
  kilobytesPerSecond: number;
}

export interface UploadOptions {
  /** The largest request the board takes (OS parameters' `buf_size`), header included. */
  bufferSize: number;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

const offsetAnswer = z.object({ off: z.number().int().nonnegative() });

/** The longest data that keeps a request of this shape within `bufferSize`. */
function chunkFor(bufferSize: number, shape: McumgrBody): number {
  const overhead = encodeFrame(
    { op: MCUMGR_OP.write, version: 1, flags: 0, group, sequence: 0, command: ids.upload },
    { ...shape, data: new Uint8Array(0) },
  ).length;
  // A byte string's length takes up to 3 more bytes once it is longer than 255.
  const room = bufferSize - overhead - 3;
  if (room < 1)
    throw new Error(`the board's MCUmgr buffer (${bufferSize} bytes) leaves no room for data`);
  return room;
}

/**
 * Uploads the image. The first request carries the length and the file's SHA-256, alone: a
 * board holding part of the same upload answers its offset, and the upload resumes there. Then
 * up to the client's window of chunks go out back to back, each where the one before ends.
 * Each answer's `off` is where the board stands, whatever was sent (docs/mcumgr/image.md):
 * - the board answers in the order it was asked, so an answer that comes before an earlier
 *   request's says that one was dropped (a board out of buffers): it is not waited for;
 * - an answer whose `off` is not where its chunk ended (a chunk dropped or refused) makes the
 *   chunks sent after it void: their answers are awaited as they come, and the upload goes on
 *   from the last one's `off`.
 */
export async function uploadImage(
  client: McumgrClient,
  image: McubootImage,
  options: UploadOptions,
): Promise<UploadResult> {
  const now = () => client.clock.now();
  const data = image.bytes;
  const total = data.length;
  const sha = createHash('sha256').update(data).digest();
  const started = now();
  let sent = 0;
  const chunkAt = (off: number, shape: McumgrBody): Chunk => {
    options.signal?.throwIfAborted();
    const chunk = data.subarray(off, off + chunkFor(options.bufferSize, shape));
    sent += chunk.length;
    const dropped = new AbortController();
    const answer = client
      .request({
        op: 'write',
        group,
        command: ids.upload,
        body: { ...shape, data: chunk },
        signal: dropped.signal,
      })
      .then((body) => {
        const { off: at } = parseAnswer('image upload', offsetAnswer, body);
        if (at > total)
          throw new Error(`the board reports offset ${at}, past the image's ${total} bytes`);
        return at;
      });
    // Awaited below; one that fails while another is awaited is not left unhandled.
    answer.catch(() => undefined);
    return { end: off + chunk.length, answer, drop: () => dropped.abort() };
  };
  const progress = (offset: number, resumedFrom: number) =>
    options.onProgress?.({
      offset,
      total,
      bytesPerSecond: (sent * 1000) / Math.max(now() - started, 1),
      resumedFrom,
    });

  const first = chunkAt(0, { image: 0, len: total, off: 0, sha: new Uint8Array(sha) });
  let offset = await first.answer;
  const resumedFrom = offset > first.end ? offset : 0;
  progress(offset, resumedFrom);
  let next = offset;
  let stalled = 0;
  const inFlight: Chunk[] = [];
  while (offset < total) {
    if (options.signal?.aborted) {
      // Stopped: what is in flight lands first, so the board is where the last answer says.
      const off = await settle(inFlight).catch(() => undefined);
      if (off !== undefined) progress((offset = off), resumedFrom);
      options.signal.throwIfAborted();
    }
    while (inFlight.length < client.windowSize && next < total) {
      // The last chunk waits until at most one other is in flight: a request the board drops
      // is told by the answers after it, and after the last there are none — it would cost its
      // whole timeout. Zephyr drops a request when it is short of a buffer (ble-and-hci.md,
      // "A dropped request costs a chunk"); with one other in flight it has spare ones.
      const last = next + chunkFor(options.bufferSize, { off: next }) >= total;
      if (last && inFlight.length > 1) break;
      const request = chunkAt(next, { off: next });
      inFlight.push(request);
      next = request.end;
    }
    const { index, off: answered } = await firstAnswer(inFlight);
    const [chunk] = inFlight.splice(0, index + 1).slice(-1);
    let off = answered;
    if (index > 0 || off !== chunk!.end) {
      // The board is elsewhere: what was sent after this chunk went to the wrong place.
      off = (await settle(inFlight)) ?? off;
      next = off;
    }
    // A board that keeps answering the same offset is not taking the data: stop, do not spin.
    stalled = off > offset ? 0 : stalled + 1;
    if (stalled >= 3) throw new Error(`the board stays at offset ${off} and takes no more data`);
    offset = off;
    progress(offset, resumedFrom);
  }
  const elapsedMs = Math.max(now() - started, 1);
  return { total, resumedFrom, sent, elapsedMs, kilobytesPerSecond: sent / elapsedMs };
}

/** A chunk sent: where it ends, the board's offset after it, and giving up on its answer. */
interface Chunk {
  end: number;
  answer: Promise<number>;
  drop: () => void;
}

/**
 * The first answer among the chunks in flight, and its place. The ones before it were dropped
 * by the board (it answers in order): they are given up, not waited out.
 */
async function firstAnswer(chunks: Chunk[]): Promise<{ index: number; off: number }> {
  const answers = chunks.map((c, index) => c.answer.then((off) => ({ index, off })));
  // The others' failures (a chunk given up) come after the race: not left unhandled.
  for (const answer of answers) answer.catch(() => undefined);
  const first = await Promise.race(answers);
  for (const dropped of chunks.slice(0, first.index)) dropped.drop();
  return first;
}

/** Every chunk in flight answered or given up; the board's last word, if any came. */
async function settle(chunks: Chunk[]): Promise<number | undefined> {
  let off: number | undefined;
  while (chunks.length) {
    const { index, off: at } = await firstAnswer(chunks);
    chunks.splice(0, index + 1);
    off = at;
  }
  return off;
}
