// Video service console (docs/platform-api.md#video): the ten operations, on the active
// environment's channel with `country=th`.
import { z } from 'zod';
import { requiredText as required } from './fields';
import {
  categoryListSchema,
  categorySchema,
  COUNT_PER_PAGE_MAX,
  CURATION_MODULES,
  curationListSchema,
  curationSchema,
  liveScheduleSchema,
  rankingSchema,
  searchRankingSchema,
  searchSchema,
  stationHomeSchema,
  stationListSchema,
} from '../../platform/video/schema';
import { none, op } from './op';

const paging = {
  page: z.number().int().min(1).optional(),
  countPerPage: z.number().int().min(1).max(COUNT_PER_PAGE_MAX).optional(),
};

export const videoOperations = {
  'video:curationList': op(none, curationListSchema),
  'video:curation': op(z.object({ module: z.enum(CURATION_MODULES) }), curationSchema),
  'video:categoryList': op(none, categoryListSchema),
  'video:category': op(z.object({ categoryCode: required, ...paging }), categorySchema),
  'video:ranking': op(z.object(paging), rankingSchema),
  'video:search': op(z.object({ query: required, ...paging }), searchSchema),
  'video:searchRanking': op(none, searchRankingSchema),
  'video:stationList': op(none, stationListSchema),
  'video:station': op(z.object({ stationId: required }), stationHomeSchema),
  'video:liveSchedule': op(none, liveScheduleSchema),
} as const;
