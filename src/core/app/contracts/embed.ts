// Embedded apps console (docs/platform-api.md#embed): the channel's apps, and the emulator's view
// of the channel (mini app, BLE, permissions) with channel tokens of each kind.
import { z } from 'zod';
import {
  addEmbedAppResultSchema,
  addEmbedAppSchema,
  CHANNEL_TOKEN_KINDS,
  channelSettingsInputSchema,
  channelSettingsSchema,
  channelTokenSchema,
  embedAppSchema,
  updateEmbedAppSchema,
} from '../../platform/embed/schema';
import { none, op } from './op';

const embedId = z.string().trim().min(1, 'is required');

export const embedOperations = {
  /** A channel with no app answers `apps: []` (the platform's 404). */
  'embed:listApps': op(none, z.object({ apps: z.array(embedAppSchema) })),
  'embed:addApp': op(addEmbedAppSchema, addEmbedAppResultSchema),
  'embed:updateApp': op(
    z.object({ embedId, changes: updateEmbedAppSchema }),
    z.object({ updated: z.literal(true) }),
  ),
  'embed:deleteApp': op(z.object({ embedId }), z.object({ deleted: z.literal(true) })),
  'embed:getChannel': op(none, channelSettingsSchema),
  'embed:updateChannel': op(channelSettingsInputSchema, channelSettingsSchema),
  'embed:issueChannelToken': op(
    z.object({
      kind: z.enum(CHANNEL_TOKEN_KINDS),
      expiresIn: z.number().int().min(1).max(2_592_000).optional(),
    }),
    channelTokenSchema,
  ),
} as const;
