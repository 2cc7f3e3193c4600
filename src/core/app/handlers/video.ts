// Video service: each operation is one call of the video client, on the active environment's
// channel.
import { VideoClient } from '../../platform/video/client';
import type { videoOperations } from '../contracts/video';
import type { AppContext, AreaHandlers } from './context';

export function videoHandlers(ctx: AppContext): AreaHandlers<typeof videoOperations> {
  const video = async () => {
    const [target, channel] = await Promise.all([
      ctx.envs.activeTarget(),
      ctx.envs.activeChannel(),
    ]);
    return new VideoClient(target, channel.channelId, ctx.options.http);
  };
  return {
    'video:curationList': async () => (await video()).curationList(),
    'video:curation': async ({ module }) => (await video()).curation(module),
    'video:categoryList': async () => (await video()).categoryList(),
    'video:category': async ({ categoryCode, ...paging }) =>
      (await video()).category(categoryCode, paging),
    'video:ranking': async (paging) => (await video()).clipRanking(paging),
    'video:search': async ({ query, ...paging }) => (await video()).searchClips(query, paging),
    'video:searchRanking': async () => (await video()).searchRanking(),
    'video:stationList': async () => (await video()).stationList(),
    'video:station': async ({ stationId }) => (await video()).station(stationId),
    'video:liveSchedule': async () => (await video()).liveSchedule(),
  };
}
