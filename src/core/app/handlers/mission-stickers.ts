// Mission stickers: the send on the active environment; the rest is the embedded emulator's
// admin API for the state that decides what the send answers.
import { pathSegment } from '../../platform/url-text';
import { z } from 'zod';
import { PlatformHttp } from '../../platform/http';
import { MissionStickersClient } from '../../platform/mission-stickers/client';
import { missionStateSchema, stickerSetSchema } from '../../platform/mission-stickers/schema';
import type { missionStickersOperations } from '../contracts/mission-stickers';
import { runningEmulator, type AppContext, type AreaHandlers } from './context';

export function missionStickersHandlers(
  ctx: AppContext,
): AreaHandlers<typeof missionStickersOperations> {
  const admin = () =>
    new PlatformHttp(
      { baseUrl: `${runningEmulator(ctx).adminUrl}/mission-stickers` },
      { maxRetries: 0 },
    );
  return {
    'missionStickers:send': async ({ to, productId }) => {
      await new MissionStickersClient(await ctx.envs.activeTarget(), ctx.options.http).send(
        to,
        productId,
      );
      return { sent: true as const };
    },
    'missionStickers:emulatorState': () =>
      admin().request('GET', '/state', { schema: missionStateSchema }),
    'missionStickers:putSet': ({ productId, set }) =>
      admin().request('PUT', `/sets/${productId}`, { body: set, schema: stickerSetSchema }),
    'missionStickers:setPermission': ({ channelId, allowed }) =>
      admin().request('PUT', `/permissions/${pathSegment(channelId, 'channelId')}`, {
        body: { allowed },
        schema: z.object({ channelId: z.string(), allowed: z.boolean() }),
      }),
    'missionStickers:setUser': ({ userId, ...profile }) =>
      admin().request('PUT', `/users/${pathSegment(userId, 'userId')}`, {
        body: profile,
        schema: z.object({ userId: z.string(), country: z.string(), appVersion: z.string() }),
      }),
  };
}
