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
const provisioningSteps = [
  'select',
  'flash',
  'reserve',
  'connect',
  'discover',
  'pair',
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
const recordEventSchema = z.object({
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

/** A record's id, as the database hands them out: from 1. */
export const recordIdSchema = z.number().int().min(1);

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
  /**
   * The SHA-256 (hex) of the MCUboot image flashed to the board just before it was provisioned
   * (`provision --image`); null when none was.
   */
  imageHash: z.string().nullable().default(null),
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

/**
 * Counts stop here: past it a count says "10,000+" instead of reading every match, so a search
 * costs the same on a log of any size (docs/decisions.md, "The audit log at a million records").
 */
export const AUDIT_COUNT_CAP = 10_000;

/** Text search reads an index of trigrams, so it needs at least three characters. */
export const AUDIT_TEXT_MIN = 3;

/** Where a page of the newest-first list ends: the next page starts just after it. */
export const auditCursorSchema = z.object({
  createdAt: z.number().int().min(0),
  id: z.number().int().min(0),
});
export type AuditCursor = z.output<typeof auditCursorSchema>;

/**
 * An address as records keep it (lower case, `:` between bytes, as noble and the simulated
 * bench report it); anything that is not six bytes is kept as typed, in lower case.
 */
function storedAddressForm(address: string): string {
  const hex = address.toLowerCase().replace(/[^0-9a-f]/g, '');
  return hex.length === 12 && /^[0-9a-f:\-\s]+$/i.test(address)
    ? (hex.match(/../g) as string[]).join(':')
    : address.toLowerCase();
}

export const auditQuerySchema = z.object({
  productId: z.string().min(1).optional(),
  /** Records taken at this station only (a line's log holds every station's). */
  station: z.string().min(1).max(100).optional(),
  /**
   * One board's records: its address exactly, in any case, with `:`, `-` or no separators.
   * Indexed on both engines, where the same address as `text` is a substring search over every
   * record's text.
   */
  boardAddress: z.string().trim().min(1).max(100).transform(storedAddressForm).optional(),
  /**
   * Case-insensitive substring of the PSDI, the board address or the board name (an engine
   * without a trigram index matches the start of the PSDI or address: AuditPage.textMatch).
   */
  text: z
    .string()
    .trim()
    .max(200)
    .refine(
      (text) => text === '' || [...text].length >= AUDIT_TEXT_MIN,
      `type at least ${AUDIT_TEXT_MIN} characters to search`,
    )
    .optional(),
  states: z.array(z.enum(provisioningStates)).optional(),
  /** `createdAt` range in ms since the epoch, both ends inclusive. */
  from: z.number().int().min(0).optional(),
  to: z.number().int().min(0).optional(),
  /** The `next` of the page before: this page holds the records older than it. */
  after: auditCursorSchema.optional(),
  limit: z.number().int().min(1).max(500).default(50),
});
export type AuditQuery = z.input<typeof auditQuerySchema>;

/** How a search's text matched: anywhere in PSDI, address or name, or the start of PSDI/address. */
export type AuditTextMatch = 'substring' | 'prefix';

export interface AuditPage {
  items: ProvisioningRecord[];
  /** Records the filter matches, counted up to AUDIT_COUNT_CAP. */
  total: number;
  /** More than AUDIT_COUNT_CAP match: `total` is a floor, shown as "10,000+". */
  totalCapped: boolean;
  /** The cursor of the next (older) page; null on the last page. */
  next: AuditCursor | null;
  limit: number;
  textMatch: AuditTextMatch;
}

/** A count as people read it: "10,000+" past the cap. */
export function describeCount(total: number, capped: boolean): string {
  return capped ? `${AUDIT_COUNT_CAP.toLocaleString('en-US')}+` : String(total);
}

/** The line as the shared log sees it (docs/decisions.md, "Production line"). */
const lineStationSchema = z.object({
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
  /** What reconcile works on, with the station that holds each: the oldest LINE_UNFINISHED_SHOWN. */
  unfinished: z.array(provisioningRecordSchema),
  /** Every unfinished record, counted: the Line page says how many it leaves out. */
  unfinishedCount: z.number().int(),
});
export type LineStatus = z.output<typeof lineStatusSchema>;

/** The Line page lists the oldest unfinished records, this many, and counts the rest. */
export const LINE_UNFINISHED_SHOWN = 100;
