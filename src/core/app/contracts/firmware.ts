// Firmware on a connected board over MCUmgr (docs/mcumgr/protocol.md): its image slots, an
// upload with progress that resumes after a dropped link, test, confirm, reset and echo, each
// on the link a BLE bench card holds. Image files cross as base64.
import { z } from 'zod';
import { requiredId as id } from '../../bounds';
import { op } from './op';
import { PHYS } from '../../ble/link-parameters';

/** The largest image file taken: above any MCUboot slot of the boards this bench meets. */
const MAX_IMAGE_BYTES = 4 * 1024 * 1024;

/** An MCUboot image file as base64 (the Firmware panel's, a batch's). */
export const imageFile = z
  .base64('must be the image file as base64')
  .min(1, 'is empty: choose an MCUboot image file')
  .max(Math.ceil(MAX_IMAGE_BYTES / 3) * 4, `must be at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);

const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be an image’s SHA-256, 64 lowercase hex digits');

const slotSchema = z.object({
  image: z.number().int(),
  slot: z.number().int(),
  version: z.string(),
  /** The SHA-256 TLV of the image in the slot, hex; absent when the board does not say. */
  hash: sha256Hex.optional(),
  bootable: z.boolean(),
  pending: z.boolean(),
  confirmed: z.boolean(),
  active: z.boolean(),
  permanent: z.boolean(),
});
export type FirmwareSlot = z.infer<typeof slotSchema>;

const slots = z.object({ slots: z.array(slotSchema) });

/**
 * What the link got for an upload (docs/decisions/ble-and-hci.md, "An upload asks for the link
 * it needs"): PHY, data PDU payload octets and interval where the adapter shows them, the SMP
 * requests in flight, and what was asked for and not granted, in words.
 */
const uploadLink = z.object({
  phy: z.enum(PHYS).optional(),
  dataLength: z.number().int().optional(),
  intervalMs: z.number().optional(),
  window: z.number().int(),
  notes: z.array(z.string()),
});
const onLink = z.object({ connectionId: id });

/** What an image file holds, as the reader found it. */
const imageInfoSchema = z.object({
  version: z.string(),
  /** Its SHA-256 TLV: what the board will list for the slot. */
  hash: sha256Hex,
  bytes: z.number().int(),
});

export const firmwareOperations = {
  /** Reads an image file without a board: refused at `image`, naming what is wrong. */
  'firmware:inspectImage': op(z.object({ image: imageFile }), imageInfoSchema),
  'firmware:slots': op(onLink, slots),
  /**
   * Uploads the image to the board's free slot, answering once it is there (or once
   * `firmware:cancelUpload` stopped it); progress comes on `firmware:progress`. A dropped link
   * is connected again and the upload resumes from the offset the board reports.
   */
  'firmware:upload': op(
    onLink.extend({ image: imageFile }),
    z.discriminatedUnion('cancelled', [
      slots.extend({
        cancelled: z.literal(false),
        image: imageInfoSchema,
        /** Where the board said the upload stood when it resumed (0: from the start). */
        resumedFrom: z.number().int(),
        sent: z.number().int(),
        elapsedMs: z.number(),
        kilobytesPerSecond: z.number(),
        reconnects: z.number().int(),
        link: uploadLink,
      }),
      /** Stopped before the next chunk: the board keeps `offset` bytes, where the next resumes. */
      slots.extend({
        cancelled: z.literal(true),
        image: imageInfoSchema,
        offset: z.number().int(),
        total: z.number().int(),
      }),
    ]),
  ),
  /**
   * Stops the upload running on the link before its next chunk; `uploading` says whether one
   * was running. The upload's own answer says where it stopped.
   */
  'firmware:cancelUpload': op(onLink, z.object({ uploading: z.boolean() })),
  /** Marks the image with `hash` to be tried once at the next reset. */
  'firmware:test': op(onLink.extend({ hash: sha256Hex }), slots),
  /** Makes the running image permanent. */
  'firmware:confirm': op(onLink, slots),
  /** Resets the board, connects its link again, and says which image came back. */
  'firmware:reset': op(
    onLink,
    slots.extend({
      /** It ran an image on test, not confirmed, and came back on another. */
      reverted: z.boolean(),
      /** The image marked for test runs now. */
      swapped: z.boolean(),
    }),
  ),
  'firmware:echo': op(
    onLink.extend({ text: z.string().min(1, 'is required').max(128) }),
    z.object({ text: z.string() }),
  ),
} as const;

export const firmwareEvents = {
  /** An upload's progress on a link; `reconnects` counts links dropped and connected again. */
  'firmware:progress': z.object({
    connectionId: z.string(),
    offset: z.number().int(),
    total: z.number().int(),
    bytesPerSecond: z.number(),
    resumedFrom: z.number().int(),
    reconnects: z.number().int(),
    /** The link the upload runs on. */
    link: uploadLink,
  }),
  /**
   * What runs on a link's board now, from any window (`running`: "an upload", "a slot list"…;
   * absent once it ended): another window's panel waits for it instead of being refused.
   */
  'firmware:busy': z.object({ connectionId: z.string(), running: z.string().optional() }),
  /** A link's slots whenever a call read them, so every window's panel shows the same. */
  'firmware:slots': slots.extend({ connectionId: z.string() }),
} as const;
