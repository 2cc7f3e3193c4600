// Video service (docs/platform-api.md#video): the objects it returns (clip, channel, playlist,
// station, live), the ten operations' queries and the `{header, body}` answers. The inner shape of
// header and body is not shown by the platform; these are the emulator's, documented in
// docs/decisions.md ("Partner options and video service"). Browser-safe.
import { z } from 'zod';

export const VIDEO_COUNTRY = 'th';
export const CURATION_MODULES = [
  'represent_clip',
  'editor_pick_clip',
  'hot_clip',
  'theme_clip',
  'theme_playlist',
  'hot_channel',
  'special_clip',
] as const;
export type CurationModule = (typeof CURATION_MODULES)[number];
export const LIVE_STATUSES = [
  'NOT_AVAILABLE_LIVE',
  'UPCOMING',
  'LIVE',
  'PREPARE_CLIP',
  'LIVE_END',
  'MOVE_TO_CLIP',
  'BLOCK',
] as const;
const PAGE_DEFAULT = 1;
const COUNT_PER_PAGE_DEFAULT = 10;
/** Not shown by the platform: the emulator's largest page. */
export const COUNT_PER_PAGE_MAX = 100;

const clipSchema = z.object({
  clipNo: z.number(),
  clipTitle: z.string(),
  likeitPoint: z.number(),
  playCount: z.number(),
  displayPlayTime: z.string(),
  thumbnailUrl: z.string(),
  serviceUrl: z.string(),
});
export type Clip = z.infer<typeof clipSchema>;

const channelSchema = z.object({
  channelId: z.string(),
  channelName: z.string(),
  thumbnailUrl: z.string(),
  serviceUrl: z.string(),
  badgeType: z.string().optional(),
  channelEmblem: z.string(),
});
export type VideoChannel = z.infer<typeof channelSchema>;

const playlistSchema = z.object({
  clipCount: z.number(),
  playlistNo: z.number(),
  thumbnailUrl: z.string(),
  playlistTitle: z.string(),
  serviceUrl: z.string(),
});
export type Playlist = z.infer<typeof playlistSchema>;

const stationSummarySchema = z.object({
  stationId: z.string(),
  stationName: z.string(),
  stationDesc: z.string(),
  stationLogo: z.string(),
});
const stationSchema = stationSummarySchema.extend({
  stationBigBanner: z.string(),
  playCount: z.number(),
  likeitCount: z.number(),
  fanCount: z.number(),
  clipCount: z.number(),
  channelCount: z.number(),
  popularClip: z.array(clipSchema),
  popularChannel: z.array(channelSchema),
  stationBanner: z.object({ thumbnailUrl: z.string(), linkUrl: z.string() }),
});
export type Station = z.infer<typeof stationSchema>;

const liveSchema = z.object({
  serviceUrl: z.string(),
  channelName: z.string(),
  playCount: z.string(),
  liveTitle: z.string(),
  thumbnailUrl: z.string(),
  liveNo: z.string(),
  liveStatus: z.string(),
  liveStartDate: z.string(),
  liveEndDate: z.string(),
  likeitPoint: z.string(),
});
export type Live = z.infer<typeof liveSchema>;

const headerSchema = z.object({
  code: z.string(),
  message: z.string(),
  country: z.string(),
  platformChannelId: z.string(),
  timestamp: z.number(),
});
const paging = {
  page: z.number(),
  countPerPage: z.number(),
  totalCount: z.number(),
  hasMore: z.boolean(),
};
const answer = <B extends z.ZodType>(body: B) => z.object({ header: headerSchema, body });

export const curationListSchema = answer(
  z.object({ modules: z.array(z.object({ module: z.string(), title: z.string() })) }),
);
export const curationSchema = answer(
  z.object({
    module: z.string(),
    title: z.string(),
    clips: z.array(clipSchema).optional(),
    playlists: z.array(playlistSchema).optional(),
    channels: z.array(channelSchema).optional(),
  }),
);
export const categoryListSchema = answer(
  z.object({
    categories: z.array(z.object({ categoryCode: z.string(), categoryName: z.string() })),
  }),
);
export const categorySchema = answer(
  z.object({
    categoryCode: z.string(),
    categoryName: z.string(),
    ...paging,
    clips: z.array(clipSchema),
  }),
);
export const rankingSchema = answer(z.object({ ...paging, clips: z.array(clipSchema) }));
export const searchSchema = answer(
  z.object({ query: z.string(), ...paging, clips: z.array(clipSchema) }),
);
export const searchRankingSchema = answer(
  z.object({
    since: z.number(),
    keywords: z.array(z.object({ rank: z.number(), keyword: z.string(), count: z.number() })),
  }),
);
export const stationListSchema = answer(z.object({ stations: z.array(stationSummarySchema) }));
export const stationHomeSchema = answer(z.object({ station: stationSchema }));
export const liveScheduleSchema = answer(z.object({ lives: z.array(liveSchema) }));

// ---- query parameters (the emulator checks them; the client builds them) ----

const intParam = (name: string, fallback: number, max?: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`must be a whole number`)
    .min(1, 'must be at least 1')
    .max(max ?? Number.MAX_SAFE_INTEGER, `must be at most ${max}`)
    .default(fallback);

export const pagingQuerySchema = z.object({
  page: intParam('page', PAGE_DEFAULT),
  countPerPage: intParam('countPerPage', COUNT_PER_PAGE_DEFAULT, COUNT_PER_PAGE_MAX),
});
export type PagingQuery = z.input<typeof pagingQuerySchema>;
export const curationQuerySchema = z.object({
  module: z.enum(CURATION_MODULES, { error: `must be one of ${CURATION_MODULES.join(', ')}` }),
});
export const categoryQuerySchema = pagingQuerySchema.extend({
  categoryCode: z
    .string({ error: 'is required: a code from the category list' })
    .min(1, 'is required'),
});
export const searchQuerySchema = pagingQuerySchema.extend({
  query: z
    .string({ error: 'is required: words to find in clip titles' })
    .trim()
    .min(1, 'is required: words to find in clip titles')
    .max(100, 'must be at most 100 characters'),
});
export const stationQuerySchema = z.object({
  stationId: z.string({ error: 'is required: an ID from the station list' }).min(1, 'is required'),
});
