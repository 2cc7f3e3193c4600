// The audit log: searching the provisioning records, giving back a failed record's PSDI, and
// exporting the log as CSV.
import { z } from 'zod';
import {
  auditCursorSchema,
  auditQuerySchema,
  provisioningRecordSchema,
  recordIdSchema,
  type ProvisioningRecord,
} from '../../audit/records';
import { op } from './op';

export const auditRecordSchema = provisioningRecordSchema;
export type AuditRecordView = ProvisioningRecord;

/**
 * The bench server's download of an export: `?query=<the filter as JSON>&exportId=<id>`. The
 * one route beside the operations, since a browser saves a streamed response but not an answer.
 */
export const AUDIT_EXPORT_PATH = '/api/audit/export.csv';

/** An export: its filter, and an id of the caller's choosing that its progress events carry. */
export const auditExportSchema = z.object({
  query: auditQuerySchema.omit({ limit: true, after: true }),
  exportId: z.string().regex(/^[\w-]{1,64}$/, 'must be 1–64 letters, digits, - or _'),
});
export type AuditExportInput = z.input<typeof auditExportSchema>;

const auditExportResultSchema = z.discriminatedUnion('saved', [
  z.object({ saved: z.literal(true), file: z.string(), rows: z.number() }),
  /** The save dialog was cancelled: nothing was written. */
  z.object({ saved: z.literal(false) }),
]);

/** After each chunk of an export, and once when it ends (`done`). */
const auditExportProgressSchema = z.object({
  exportId: z.string(),
  rows: z.number(),
  /** Records the filter matched when the export started (the search's count). */
  total: z.number(),
  done: z.boolean(),
  error: z.string().optional(),
});
export type AuditExportProgress = z.infer<typeof auditExportProgressSchema>;

export const auditOperations = {
  'audit:search': op(
    auditQuerySchema,
    z.object({
      items: z.array(auditRecordSchema),
      total: z.number(),
      totalCapped: z.boolean(),
      next: auditCursorSchema.nullable(),
      limit: z.number(),
      textMatch: z.enum(['substring', 'prefix']),
    }),
  ),
  /** Gives back the PSDI a failed record holds; logged on the record with who and where. */
  'audit:releasePsdi': op(
    z.object({
      recordId: recordIdSchema,
      reason: z
        .string()
        .trim()
        .min(1, 'Say why the PSDI can be used again')
        .max(200, 'Keep the reason under 200 characters'),
    }),
    auditRecordSchema,
  ),
  /**
   * The app (Electron): the main process asks where with a save dialog and streams the CSV
   * there; the path never comes from the page. Progress on `audit:exportProgress`. In a browser
   * the export is a download from the bench server (`GET /api/audit/export.csv`).
   */
  'audit:exportCsv': op(auditExportSchema, auditExportResultSchema),
} as const;

export const auditEvents = {
  'audit:exportProgress': auditExportProgressSchema,
} as const;
