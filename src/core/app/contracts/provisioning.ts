// Provisioning: profiles, a product's plan (profile and PSDI strategy), one board or a batch,
// their progress, and the records a crash left unfinished.
import { z } from 'zod';
import { recordIdSchema } from '../../audit/records';
import { RECONCILE_ACTIONS } from '../../provisioning/reconcile-actions';
import { requiredId as id, rssiSchema } from '../../bounds';
import {
  batchSummarySchema,
  productPlanSchema,
  provisioningProgressSchema,
} from '../../usecases/provisioning/schema';
import { auditRecordSchema } from './audit';
import { namedFileText } from './fields';
import { none, op } from './op';
import { imageFile } from './firmware';

export const provisioningProfileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  source: z.string(),
  psdiSource: z.enum(['tool', 'device']),
  service: z.string(),
});

export const provisioningOperations = {
  'provisioning:listProfiles': op(none, z.array(provisioningProfileViewSchema)),
  'provisioning:loadProfile': op(namedFileText, provisioningProfileViewSchema),
  'provisioning:getPlan': op(z.object({ productId: id }), productPlanSchema.nullable()),
  'provisioning:savePlan': op(productPlanSchema, productPlanSchema),
  /** The PSDI this plan would hand out next, taking nothing; null when the firmware derives it. */
  'provisioning:nextPsdi': op(
    productPlanSchema,
    z.object({
      psdi: z.string().nullable(),
      /** A CSV list's rows left out (blank, repeated, too long, invalid), with their lines; absent when none. */
      skipped: z.array(z.object({ line: z.number(), message: z.string() })).optional(),
    }),
  ),
  'provisioning:provisionOne': op(
    z.object({ productId: id, deviceId: id }),
    z.object({ runId: z.string(), record: auditRecordSchema }),
  ),
  'provisioning:startBatch': op(
    z.object({
      productId: id,
      concurrency: z
        .number()
        .int()
        .min(1, 'must be at least 1')
        .max(16, 'must be at most 16')
        .default(4),
      name: z.string().trim().max(64).optional(),
      minRssi: rssiSchema.optional(),
      /** Stop after this many boards; omitted means every matching board in range. */
      limit: z.number().int().min(1).max(1000).optional(),
      /** Boards of another profile do not count toward `limit` (they are skipped either way). */
      onlyMatching: z.boolean().default(false),
      /**
       * An MCUboot image flashed to each board (upload, test, reset, confirm) before anything
       * is reserved for it; its SHA-256 TLV goes in each record.
       */
      image: imageFile.optional(),
    }),
    batchSummarySchema,
  ),
  'provisioning:stopBatch': op(z.object({ runId: id }), batchSummarySchema),
  /** Batches of this session, newest first: a page opened mid-batch picks it up from here. */
  'provisioning:listBatches': op(none, z.array(batchSummarySchema)),
  'provisioning:listUnfinished': op(none, z.array(auditRecordSchema)),
  /**
   * The record afterwards, and what was done in one sentence; a record settled since it was
   * listed answers as settled (`reconciled.action` "settled"), not refused.
   */
  'provisioning:reconcile': op(
    z.object({ recordId: recordIdSchema, action: z.enum(['finish', 'release']) }),
    auditRecordSchema.extend({
      reconciled: z.object({ action: z.enum(RECONCILE_ACTIONS), message: z.string() }),
    }),
  ),
} as const;

export const provisioningEvents = {
  'provisioning:progress': provisioningProgressSchema,
  'provisioning:batch': batchSummarySchema,
} as const;
