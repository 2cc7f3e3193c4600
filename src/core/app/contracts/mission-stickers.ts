// Mission stickers console (docs/platform-api.md#mission-stickers): send a set, and on the
// emulator, the sticker sets, channel permissions and user regions that decide what the send
// answers.
import { z } from 'zod';
import { requiredText as required } from './fields';
import {
  missionStateSchema,
  stickerSetInputSchema,
  stickerSetSchema,
  stickerUserInputSchema,
} from '../../platform/mission-stickers/schema';
import { none, op } from './op';

export const missionStickersOperations = {
  /** `to` is passed through as typed: the platform's `invalid request` is the answer to show. */
  'missionStickers:send': op(
    z.object({ to: required, productId: required }),
    z.object({ sent: z.literal(true) }),
  ),
  'missionStickers:emulatorState': op(none, missionStateSchema),
  'missionStickers:putSet': op(
    z.object({
      productId: z.string().regex(/^\d{1,20}$/, 'must be digits'),
      set: stickerSetInputSchema,
    }),
    stickerSetSchema,
  ),
  'missionStickers:setPermission': op(
    z.object({ channelId: required, allowed: z.boolean() }),
    z.object({ channelId: z.string(), allowed: z.boolean() }),
  ),
  'missionStickers:setUser': op(
    stickerUserInputSchema.extend({ userId: required }),
    z.object({ userId: z.string(), country: z.string(), appVersion: z.string() }),
  ),
} as const;
