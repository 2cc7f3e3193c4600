// Provisioning: profiles, a product's plan (profile and PSDI strategy), one board or a batch,
// their progress, and the records a crash left unfinished.
import { z } from 'zod';
import { rssiSchema } from '../../bounds';
import { auditRecordSchema } from './audit';
import { fileTextField, namedFileText, requiredId as id } from './fields';
import { none, op } from './op';
import { imageFile } from './firmware';

export const psdiPlanSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({
      kind: z.literal('sequence'),
      prefix: z.string().max(32).default(''),
      start: z.number().int().min(0).default(1),
      width: z.number().int().min(1).max(20).default(6),
    }),
    z.object({
      kind: z.literal('random'),
      alphabet: z
        .string()
        .min(2, 'needs at least 2 characters')
        .max(100)
        .default('0123456789ABCDEF'),
      length: z.number().int().min(4).max(64).default(16),
      prefix: z.string().max(32).default(''),
    }),
    z.object({
      kind: z.literal('list'),
      /** The CSV as loaded; the first column (or `column`) holds the PSDIs. */
      csv: fileTextField,
      column: z.string().optional(),
      /** The first row is a header (implied by `column`); otherwise it must be a PSDI. */
      header: z.boolean().optional(),
    }),
  ],
  { error: "kind must be 'sequence', 'random' or 'list'" },
);

export const productPlanSchema = z.object({
  productId: id,
  profileId: id,
  psdi: psdiPlanSchema,
});

export const provisioningProfileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  source: z.string(),
  psdiSource: z.enum(['tool', 'device']),
  service: z.string(),
});

export const provisioningProgressSchema = z.object({
  runId: z.string(),
  deviceId: z.string(),
  address: z.string().optional(),
  /** The board's advertised name, when it gives one. */
  name: z.string().optional(),
  step: z.string(),
  /**
   * `started`/`finished` per step; `done`, `failed` and `skipped` end the board. `skipped`: its
   * GATT does not fit the profile, nothing was reserved or written; `message` says why and
   * names the profile that fits.
   */
  phase: z.enum(['started', 'finished', 'retrying', 'done', 'failed', 'skipped']),
  attempt: z.number().optional(),
  psdi: z.string().optional(),
  recordId: z.number().optional(),
  message: z.string().optional(),
  at: z.number(),
});

export const batchSummarySchema = z.object({
  runId: z.string(),
  /** The product the batch provisions, so a page shows it only under that product and names it. */
  productId: z.string(),
  productName: z.string(),
  state: z.enum(['running', 'stopping', 'finished', 'stopped']),
  /**
   * The boards the batch took on; once stopped, the most it had taken on before the stop, so a
   * stopped batch reads "12 of 20 — stopped".
   */
  total: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  /** Boards of another profile, skipped before anything was reserved (not in `total`). */
  skipped: z.number().default(0),
  inFlight: z.number(),
  startedAt: z.number(),
  finishedAt: z.number().optional(),
  /** Set while the batch holds because the audit log cannot be reached: it resumes by itself. */
  storeError: z.string().optional(),
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
  'provisioning:reconcile': op(
    z.object({ recordId: z.number().int(), action: z.enum(['finish', 'release']) }),
    auditRecordSchema,
  ),
} as const;

export const provisioningEvents = {
  'provisioning:progress': provisioningProgressSchema,
  'provisioning:batch': batchSummarySchema,
} as const;
