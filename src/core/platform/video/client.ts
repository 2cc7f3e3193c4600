// Typed client for the video service (`/tv/v1`, docs/platform-api.md#video): every call carries the
// channel's `platformChannelId` and `country=th`.
import type { z } from 'zod';
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import {
  categoryListSchema,
  categorySchema,
  curationListSchema,
  curationSchema,
  liveScheduleSchema,
  rankingSchema,
  searchRankingSchema,
  searchSchema,
  stationHomeSchema,
  stationListSchema,
  VIDEO_COUNTRY,
  type CurationModule,
  type PagingQuery,
} from './schema';

export class VideoClient {
  private readonly http: PlatformHttp;

  constructor(
    target: PlatformTarget,
    private readonly platformChannelId: string,
    options?: HttpOptions,
  ) {
    this.http = new PlatformHttp(target, options);
  }

  private get<T>(path: string, schema: z.ZodType<T>, extra: Record<string, unknown> = {}) {
    const query: Record<string, string> = {
      platformChannelId: this.platformChannelId,
      country: VIDEO_COUNTRY,
    };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) query[k] = String(v);
    return this.http.request<T>('GET', `/tv/v1${path}`, { query, schema });
  }

  curationList() {
    return this.get('/curation/list', curationListSchema);
  }
  curation(module: CurationModule) {
    return this.get('/curation', curationSchema, { module });
  }
  categoryList() {
    return this.get('/category/list', categoryListSchema);
  }
  category(categoryCode: string, paging: PagingQuery = {}) {
    return this.get('/category', categorySchema, { categoryCode, ...paging });
  }
  clipRanking(paging: PagingQuery = {}) {
    return this.get('/ranking/clip', rankingSchema, paging);
  }
  searchClips(query: string, paging: PagingQuery = {}) {
    return this.get('/search/clip', searchSchema, { query, ...paging });
  }
  searchRanking() {
    return this.get('/search/ranking', searchRankingSchema);
  }
  stationList() {
    return this.get('/station/list', stationListSchema);
  }
  station(stationId: string) {
    return this.get('/station', stationHomeSchema, { stationId });
  }
  liveSchedule() {
    return this.get('/live/schedule', liveScheduleSchema);
  }
}
