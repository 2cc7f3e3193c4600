// The provisioning record as the audit log keeps it, and the search query over those records.
// zod and nothing Node-only, so a contract or the renderer can import the same shapes.
import { z } from 'zod';

/**
 * The life of one PSDI on one board: `reserved` (taken in the log, not yet on the board) →
 * `written` (the board acknowledged the commit) → `verified` (read back from the board in
 * product mode); or `failed` / `released` (docs/provisioning-protocol.md, "Crash safety").
 */
export const provisioningStates = [
  'reserved',
  'written',
  'verified',
  'failed',
  'released',
] as const;
export type ProvisioningState = (typeof provisioningStates)[number];

/** Where a provisioning run was when it stopped; the workflow's steps plus the log itself. */
export const provisioningSteps = [
  'select',
  'reserve',
  'connect',
  'discover',
  'read-psdi',
  'write',
  'commit',
  'verify',
  'reconcile',
] as const;
export type ProvisioningStep = (typeof provisioningSteps)[number];

/**
 * One line of a record's history: a try that failed and what the tool did next, or an
 * operator's action on the record (a release from the audit log names who and where).
 */
export const recordEventSchema = z.object({
  at: z.number(),
  step: z.enum(provisioningSteps),
  attempt: z.number().int(),
  /** `failed`: a try of the step failed; `released`: an operator gave the PSDI back. */
  kind: z.enum(['failed', 'released']),
  /** What went wrong (an ATT code in words), or why the PSDI was released. */
  message: z.string(),
  /** What the tool did about it, e.g. "attempt 2 after link lost: reconnected, rewrote every value". */
  then: z.string().optional(),
  /** For an operator's action: the person and the station. */
  by: z.string().optional(),
  station: z.string().optional(),
});
export type RecordEvent = z.output<typeof recordEventSchema>;

/** One history line in words, as the audit log, the CSV and the CLI show it. */
export function describeRecordEvent(event: RecordEvent): string {
  const who = event.by ? ` by ${event.by}${event.station ? ` at ${event.station}` : ''}` : '';
  const head =
    event.kind === 'released'
      ? `released${who}: ${event.message}`
      : `${event.step} attempt ${event.attempt} failed: ${event.message}`;
  return event.then ? `${head} → ${event.then}` : head;
}

export const provisioningRecordSchema = z.object({
  id: z.number().int(),
  createdAt: z.number(),
  updatedAt: z.number(),
  writtenAt: z.number().nullable(),
  verifiedAt: z.number().nullable(),
  productId: z.string(),
  productName: z.string(),
  /** The product UUIDs written to the board, kept so a record can be reconciled on its own. */
  serviceUuid: z.string(),
  psdiServiceUuid: z.string(),
  psdiCharacteristicUuid: z.string(),
  /** noble's peripheral id, and the board's Bluetooth address (what verify matches on). */
  boardId: z.string(),
  boardAddress: z.string(),
  /** The board's advertised name when it was provisioned, if it had one. */
  boardName: z.string().nullable().default(null),
  /**
   * The adapter the board was heard through when it was reserved, as spec text; null for a
   * record from before adapter specs (docs/decisions.md, "Adapter spec everywhere").
   */
  adapter: z.string().nullable().default(null),
  psdi: z.string(),
  psdiSource: z.enum(['tool', 'device']),
  profileId: z.string(),
  station: z.string(),
  state: z.enum(provisioningStates),
  result: z.enum(['pending', 'ok', 'failed', 'released']),
  /**
   * Whether this record keeps its PSDI out of circulation. True from reserve until released,
   * and for a failure after the commit was sent (the board may carry the PSDI); false for a
   * failure before it (the board cannot have taken it) and for a device PSDI refused as a
   * duplicate.
   */
  psdiHeld: z.boolean(),
  failedStep: z.enum(provisioningSteps).nullable(),
  error: z.string().nullable(),
  /** Tries of the last step that ran (the failing one, for a failure). */
  attempts: z.number().int(),
  /**
   * The PSDI went back to the pool: nothing reached the board (a refusal before any write) or an
   * operator released it. Allocators may hand it out again (docs/decisions.md, "Provisioning
   * that explains itself").
   */
  psdiReturned: z.boolean().default(false),
  /** Every failed try, what followed it, and operator actions, oldest first. */
  history: z.array(recordEventSchema).default([]),
});
export type ProvisioningRecord = z.output<typeof provisioningRecordSchema>;

export const auditQuerySchema = z.object({
  productId: z.string().min(1).optional(),
  /** Records taken at this station only (a line's log holds every station's). */
  station: z.string().min(1).max(100).optional(),
  /** Case-insensitive substring of the PSDI, the board address or the board name. */
  text: z.string().max(200).optional(),
  states: z.array(z.enum(provisioningStates)).optional(),
  /** `createdAt` range in ms since the epoch, both ends inclusive. */
  from: z.number().int().min(0).optional(),
  to: z.number().int().min(0).optional(),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(500).default(50),
});
export type AuditQuery = z.input<typeof auditQuerySchema>;

export interface AuditPage {
  items: ProvisioningRecord[];
  /** All records the filter matches, for paging. */
  total: number;
  offset: number;
  limit: number;
}

/** The line as the shared log sees it (docs/decisions.md, "Production line"). */
export const lineStationSchema = z.object({
  station: z.string(),
  /** The newest change any of its records saw, ms since the epoch. */
  lastSeenAt: z.number(),
  /** Verified in the last hour. */
  boardsPerHour: z.number().int(),
  /** Records reserved or written now: boards in flight, or left by a crash. */
  inFlight: z.number().int(),
  failedLastHour: z.number().int(),
});
export const lineStatusSchema = z.object({
  at: z.number(),
  stations: z.array(lineStationSchema),
  /** Failures of the last hour by the step that failed. */
  failuresByStep: z.array(z.object({ step: z.string(), count: z.number().int() })),
  /** What reconcile works on, with the station that holds each. */
  unfinished: z.array(provisioningRecordSchema),
});
export type LineStatus = z.output<typeof lineStatusSchema>;
