// Mission stickers (docs/platform-api.md#mission-stickers): the request body, the error messages
// the platform answers with, and the sticker-set state the emulator's admin API sets. Browser-safe.
import { z } from 'zod';

/** docs/platform-api.md#mission-stickers: each error's `message`, exactly. */
export const MISSION_ERRORS = {
  invalidRequest: { status: 400, message: 'invalid request' },
  illegalArgument: { status: 400, message: 'illegal argument' },
  notInSalesPeriod: { status: 400, message: 'not in sales period' },
  notAvailableForChannel: { status: 400, message: 'sticker set not available for channel' },
  notAvailable: { status: 400, message: 'not available' },
  notAllowed: { status: 403, message: 'not allowed to use the API' },
  notFound: { status: 404, message: 'not found' },
  internal: { status: 500, message: 'internal error' },
  upstream: { status: 502, message: 'upstream error' },
} as const;

export const missionBodySchema = z.object({
  to: z.string({ error: 'is required: the user ID to send the sticker set to' }),
  productType: z.literal('STICKER', { error: "must be 'STICKER'" }),
  productId: z
    .string({ error: 'is required: the sticker package ID' })
    .min(1, 'is required: the sticker package ID'),
  sendPresentMessage: z.literal(false, { error: 'is required and must be false' }),
});

const COUNTRY = /^[A-Z]{2}$/;
const VERSION = /^\d+(\.\d+){0,2}$/;

/** A sticker set as the emulator's admin API defines it. */
export const stickerSetInputSchema = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100),
    /** False for an ordinary set: sending it answers `illegal argument`. */
    missionSticker: z.boolean().default(true),
    /** Virtual-clock ms; null is open-ended. */
    salesStart: z.number().int().nullable().default(null),
    salesEnd: z.number().int().nullable().default(null),
    /** ISO country codes where the set is sold; empty is everywhere. */
    regions: z
      .array(z.string().regex(COUNTRY, 'must be an ISO country code such as JP'))
      .default([]),
    /** Channels permitted to send the set; empty is every channel. */
    channelIds: z.array(z.string().regex(/^\d+$/, 'must be a channel ID')).default([]),
    /** Oldest app version that can show the set; null is any. */
    minAppVersion: z.string().regex(VERSION, 'must look like 13.4.0').nullable().default(null),
    /** Makes sending this set fail as the platform's store backend would. */
    failure: z.enum(['internal', 'upstream']).nullable().default(null),
  })
  .refine((s) => s.salesStart === null || s.salesEnd === null || s.salesStart < s.salesEnd, {
    message: 'must be after salesStart',
    path: ['salesEnd'],
  });

export const stickerSetSchema = z.object({
  productId: z.string(),
  name: z.string(),
  missionSticker: z.boolean(),
  salesStart: z.number().nullable(),
  salesEnd: z.number().nullable(),
  regions: z.array(z.string()),
  channelIds: z.array(z.string()),
  minAppVersion: z.string().nullable(),
  failure: z.enum(['internal', 'upstream']).nullable(),
});
export type StickerSet = z.infer<typeof stickerSetSchema>;

/** Where a user is and what app they run, for the `not available` checks. */
export const stickerUserInputSchema = z.object({
  country: z.string().regex(COUNTRY, 'must be an ISO country code such as JP'),
  appVersion: z.string().regex(VERSION, 'must look like 13.4.0'),
});
const stickerUserSchema = stickerUserInputSchema.extend({
  userId: z.string(),
  displayName: z.string(),
});

export const missionStateSchema = z.object({
  sets: z.array(stickerSetSchema),
  /** Channels and whether they hold the mission sticker permission. */
  channels: z.array(z.object({ channelId: z.string(), name: z.string(), allowed: z.boolean() })),
  users: z.array(stickerUserSchema),
  grants: z.array(
    z.object({ channelId: z.string(), userId: z.string(), productId: z.string(), at: z.number() }),
  ),
});
export type MissionState = z.infer<typeof missionStateSchema>;
