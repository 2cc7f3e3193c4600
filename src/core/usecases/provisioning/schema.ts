// Provisioning's shapes, the same for every front end: a product's plan (a profile and a PSDI
// plan) as saved in the data folder and taken by the contract, and a run's progress and batch
// summary as the use case emits them and the contract's events carry them. No Node imports, so
// the renderer's build can take them through the contract.
import { z } from 'zod';
import { fileTextField, requiredId as id } from '../../bounds';

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
  /** The failure in full, where `message` says it short (shown behind a "Details" toggle). */
  details: z.string().optional(),
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
