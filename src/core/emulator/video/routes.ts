// Video service emulator (docs/platform-api.md#video): the ten GET operations over the seeded
// catalogue, each answering `{header, body}`. Every call must name the caller's channel
// (`platformChannelId`) and `country=th`; clip search matches every word of the query in clip
// titles and feeds the last hour's search ranking.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callerChannel, type EmulatorArea, type EmulatorContext } from '../area';
import { sql } from '../store';
import { describeFieldErrors, fieldErrors } from '../../platform/field-errors';
import {
  BY_POPULARITY,
  CATEGORIES,
  CHANNELS,
  CLIPS,
  liveSchedule,
  PLAYLISTS,
  publicChannel,
  publicClip,
  STATIONS,
  type CatalogueClip,
} from './catalogue';
import {
  categoryQuerySchema,
  curationQuerySchema,
  pagingQuerySchema,
  searchQuerySchema,
  stationQuerySchema,
  VIDEO_COUNTRY,
  type CurationModule,
} from '../../platform/video/schema';

const HOUR_MS = 3_600_000;
const RANKING_SIZE = 10;

const CURATION_TITLES: Record<CurationModule, string> = {
  represent_clip: 'Top clip',
  editor_pick_clip: "Editor's picks",
  hot_clip: 'Hot clips',
  theme_clip: 'Theme: street food',
  theme_playlist: 'Theme playlists',
  hot_channel: 'Hot channels',
  special_clip: 'Special: behind the scenes',
};

function curationBody(module: CurationModule) {
  const title = CURATION_TITLES[module];
  const clips = (list: CatalogueClip[]) => ({ module, title, clips: list.map(publicClip) });
  switch (module) {
    case 'represent_clip':
      return clips(BY_POPULARITY.slice(0, 1));
    case 'editor_pick_clip':
      return clips(CLIPS.filter((_, i) => i % 7 === 3).slice(0, 6));
    case 'hot_clip':
      return clips(BY_POPULARITY.slice(0, 8));
    case 'theme_clip':
      return clips(CLIPS.filter((c) => c.categoryCode === 'FOOD'));
    case 'special_clip':
      return clips(CLIPS.filter((c) => /behind|making|bloopers|interview/i.test(c.clipTitle)));
    case 'theme_playlist':
      return { module, title, playlists: PLAYLISTS.map(({ clips: _clips, ...p }) => p) };
    case 'hot_channel':
      return { module, title, channels: CHANNELS.map(publicChannel) };
  }
}

function page(list: CatalogueClip[], query: { page: number; countPerPage: number }) {
  const start = (query.page - 1) * query.countPerPage;
  return {
    page: query.page,
    countPerPage: query.countPerPage,
    totalCount: list.length,
    hasMore: start + query.countPerPage < list.length,
    clips: list.slice(start, start + query.countPerPage).map(publicClip),
  };
}

/** Lower case with runs of spaces folded, so "Pad  Thai" and "pad thai" rank as one keyword. */
function normalizeQuery(query: string): string {
  return query.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
}

function routes(app: FastifyInstance, { db, clock }: EmulatorContext): void {
  function fail(
    reply: FastifyReply,
    status: 400 | 404,
    code: string,
    message: string,
    req: FastifyRequest,
  ) {
    void reply.code(status).send({ message, header: header(req, code, message), body: {} });
  }

  function header(req: FastifyRequest, code = 'OK', message = 'success') {
    const query = req.query as Record<string, unknown>;
    return {
      code,
      message,
      country: typeof query.country === 'string' ? query.country : VIDEO_COUNTRY,
      platformChannelId: typeof query.platformChannelId === 'string' ? query.platformChannelId : '',
      timestamp: clock.now(),
    };
  }

  /** The operation's own query, after the common `platformChannelId` and `country`. */
  function parse<S extends z.ZodType>(
    schema: S,
    req: FastifyRequest,
    reply: FastifyReply,
  ): z.output<S> | undefined {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const channelId = callerChannel(req).channelId;
    if (typeof query.platformChannelId !== 'string' || !query.platformChannelId) {
      fail(reply, 400, 'INVALID_PARAMETER', 'platformChannelId is required: the channel ID', req);
      return undefined;
    }
    if (query.platformChannelId !== channelId) {
      fail(
        reply,
        400,
        'INVALID_PARAMETER',
        `platformChannelId must be the access token's channel (${channelId})`,
        req,
      );
      return undefined;
    }
    if (query.country !== VIDEO_COUNTRY) {
      fail(
        reply,
        400,
        'INVALID_PARAMETER',
        `country is required and must be '${VIDEO_COUNTRY}'`,
        req,
      );
      return undefined;
    }
    const result = schema.safeParse(query);
    if (result.success) return result.data;
    fail(reply, 400, 'INVALID_PARAMETER', describeFieldErrors(fieldErrors(result.error)), req);
    return undefined;
  }

  const none = z.object({});
  const get = <S extends z.ZodType>(
    path: string,
    schema: S,
    body: (query: z.output<S>, req: FastifyRequest, reply: FastifyReply) => object | undefined,
  ) =>
    app.get(`/tv/v1${path}`, async (req, reply) => {
      const query = parse(schema, req, reply);
      if (query === undefined) return;
      const answer = body(query, req, reply);
      if (answer) return { header: header(req), body: answer };
    });

  get('/curation/list', none, () => ({
    modules: Object.entries(CURATION_TITLES).map(([module, title]) => ({ module, title })),
  }));
  get('/curation', curationQuerySchema, ({ module }) => curationBody(module));
  get('/category/list', none, () => ({ categories: CATEGORIES }));
  get('/category', categoryQuerySchema, (query, req, reply) => {
    const category = CATEGORIES.find((c) => c.categoryCode === query.categoryCode);
    if (!category)
      return void fail(
        reply,
        404,
        'NOT_FOUND',
        `No category ${query.categoryCode}: take a code from /tv/v1/category/list.`,
        req,
      );
    const clips = BY_POPULARITY.filter((c) => c.categoryCode === category.categoryCode);
    return { ...category, ...page(clips, query) };
  });
  get('/ranking/clip', pagingQuerySchema, (query) => page(BY_POPULARITY, query));
  get('/search/clip', searchQuerySchema, (query) => {
    const keyword = normalizeQuery(query.query);
    const words = keyword.split(' ');
    sql(db, 'INSERT INTO video_searches (keyword, searched_at) VALUES (?, ?)').run(
      keyword,
      clock.now(),
    );
    const matches = BY_POPULARITY.filter((c) => {
      const title = c.clipTitle.toLowerCase();
      return words.every((w) => title.includes(w));
    });
    return { query: query.query, ...page(matches, query) };
  });
  get('/search/ranking', none, () => {
    const since = clock.now() - HOUR_MS;
    const rows = sql(
      db,
      `SELECT keyword, COUNT(*) AS n FROM video_searches WHERE searched_at > ?
       GROUP BY keyword ORDER BY n DESC, MAX(searched_at) DESC LIMIT ?`,
    ).all(since, RANKING_SIZE) as { keyword: string; n: number }[];
    return {
      since,
      keywords: rows.map((r, i) => ({ rank: i + 1, keyword: r.keyword, count: r.n })),
    };
  });
  get('/station/list', none, () => ({
    stations: STATIONS.map(({ stationId, stationName, stationDesc, stationLogo }) => ({
      stationId,
      stationName,
      stationDesc,
      stationLogo,
    })),
  }));
  get('/station', stationQuerySchema, ({ stationId }, req, reply) => {
    const station = STATIONS.find((s) => s.stationId === stationId);
    if (!station)
      return void fail(
        reply,
        404,
        'NOT_FOUND',
        `No station ${stationId}: take an ID from /tv/v1/station/list.`,
        req,
      );
    return { station };
  });
  get('/live/schedule', none, () => ({ lives: liveSchedule(clock.now()) }));
}

export const videoArea: EmulatorArea = {
  name: 'video',
  migrate: ({ db }) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS video_searches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        keyword TEXT NOT NULL,
        searched_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS video_searches_time ON video_searches (searched_at);
    `),
  routes,
};
