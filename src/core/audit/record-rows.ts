// Rows of provisioning_records as both engines return them, turned into records, and the search
// filter turned into a WHERE clause of bound parameters: one definition for SQLite and PostgreSQL.
import {
  AUDIT_COUNT_CAP,
  LINE_UNFINISHED_SHOWN,
  type AuditPage,
  type AuditTextMatch,
  type auditQuerySchema,
  type LineStatus,
  type ProvisioningRecord,
  type ProvisioningState,
  type RecordEvent,
  type ProvisioningStep,
} from './records';
import type { z } from 'zod';
import type { AllocationContext, FailureInput, ReserveInput } from './store';
import { UNFINISHED_SQL } from './schema';

/** PostgreSQL hands BIGINT columns back as strings, SQLite as numbers: both are read with Number. */
export interface RecordRow {
  id: number | string;
  created_at: number | string;
  updated_at: number | string;
  written_at: number | string | null;
  verified_at: number | string | null;
  product_id: string;
  product_name: string;
  service_uuid: string;
  psdi_service_uuid: string;
  psdi_characteristic_uuid: string;
  board_id: string;
  board_address: string;
  board_name: string | null;
  adapter: string | null;
  image_hash: string | null;
  psdi: string;
  psdi_source: 'tool' | 'device';
  profile_id: string;
  station: string;
  state: ProvisioningState;
  psdi_held: number | string;
  failed_step: ProvisioningStep | null;
  error: string | null;
  attempts: number | string;
  psdi_returned: number | string;
  /** JSON: RecordEvent[]. */
  history: string;
}

/** The columns a new record is inserted with, in this order. */
const INSERT_COLUMNS = [
  'created_at',
  'updated_at',
  'product_id',
  'product_name',
  'service_uuid',
  'psdi_service_uuid',
  'psdi_characteristic_uuid',
  'board_id',
  'board_address',
  'psdi',
  'psdi_source',
  'profile_id',
  'station',
  'board_name',
  'adapter',
  'image_hash',
] as const;

/** Every column a whole record is inserted with: INSERT_COLUMNS, then its outcome so far. */
export const RECORD_COLUMNS = [
  ...INSERT_COLUMNS,
  'state',
  'psdi_held',
  'failed_step',
  'error',
  'attempts',
  'written_at',
  'verified_at',
  'origin',
  'psdi_returned',
  'history',
] as const;

/**
 * The INSERT of one whole record, its values from reservedValues, refusedValues or copyValues;
 * `p(n)` spells parameter n.
 */
export function insertSql(p: (n: number) => string): string {
  return `INSERT INTO provisioning_records (${RECORD_COLUMNS.join(', ')})
  VALUES (${RECORD_COLUMNS.map((_, i) => p(i + 1)).join(', ')})`;
}

/** A new reservation: it holds its PSDI from the start. */
export function reservedValues(
  input: ReserveInput,
  psdi: string,
  at: number,
  station: string,
): unknown[] {
  return [
    ...reservationValues(input, psdi, at, station),
    ...newOutcome('reserved', 1, null, null, 0, '[]'),
  ];
}

/** A device-source board whose PSDI another record holds: failed at once, holding nothing. */
export function refusedValues(
  input: ReserveInput & { psdi: string } & Omit<FailureInput, 'psdiHeld'>,
  at: number,
  station: string,
): unknown[] {
  return [
    ...reservationValues(input, input.psdi, at, station),
    ...newOutcome(
      'failed',
      0,
      input.step,
      input.error,
      input.attempts ?? 0,
      JSON.stringify(input.history ?? []),
    ),
  ];
}

/**
 * The outcome columns of a record this station inserts: not yet written or verified, not a
 * copy, its PSDI not given back.
 */
function newOutcome(
  state: ProvisioningState,
  psdiHeld: 0 | 1,
  failedStep: ProvisioningStep | null,
  error: string | null,
  attempts: number,
  history: string,
): unknown[] {
  return [state, psdiHeld, failedStep, error, attempts, null, null, null, 0, history];
}

/** The INSERT_COLUMNS of a board's reservation at this station. */
function reservationValues(
  input: ReserveInput,
  psdi: string,
  at: number,
  station: string,
): unknown[] {
  return [
    at,
    at,
    input.product.id,
    input.product.name,
    input.product.serviceUuid,
    input.product.psdiServiceUuid,
    input.product.psdiCharacteristicUuid,
    input.board.id,
    input.board.address,
    psdi,
    input.psdiSource,
    input.profileId,
    station,
    input.board.name ?? null,
    input.board.adapter ?? null,
    input.imageHash ?? null,
  ];
}

export function toRecord(row: RecordRow): ProvisioningRecord {
  const optional = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    id: Number(row.id),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    writtenAt: optional(row.written_at),
    verifiedAt: optional(row.verified_at),
    productId: row.product_id,
    productName: row.product_name,
    serviceUuid: row.service_uuid,
    psdiServiceUuid: row.psdi_service_uuid,
    psdiCharacteristicUuid: row.psdi_characteristic_uuid,
    boardId: row.board_id,
    boardAddress: row.board_address,
    boardName: row.board_name,
    adapter: row.adapter,
    imageHash: row.image_hash,
    psdi: row.psdi,
    psdiSource: row.psdi_source,
    profileId: row.profile_id,
    station: row.station,
    state: row.state,
    result: resultOf(row.state),
    psdiHeld: Number(row.psdi_held) === 1,
    failedStep: row.failed_step,
    error: row.error,
    attempts: Number(row.attempts),
    psdiReturned: Number(row.psdi_returned) === 1,
    history: JSON.parse(row.history) as RecordEvent[],
  };
}

function resultOf(state: ProvisioningState): ProvisioningRecord['result'] {
  if (state === 'verified') return 'ok';
  if (state === 'failed' || state === 'released') return state;
  return 'pending';
}

/** How an engine spells a bound parameter and a text match (docs/decisions.md, "The audit log at a million records"). */
export interface SearchDialect {
  /** The n-th bound parameter. */
  placeholder(n: number): string;
  /** The condition for `text` (trimmed, at least AUDIT_TEXT_MIN characters), binding its values. */
  text(text: string, bind: (value: unknown) => string): string;
}

/**
 * The search filter as a WHERE clause. Only fixed column names and placeholders go into the
 * text; every value the user typed is a bound parameter. The cursor is left out for a count.
 */
export function whereClause(
  q: z.output<typeof auditQuerySchema>,
  dialect: SearchDialect,
  options: { cursor: boolean } = { cursor: true },
): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  if (q.productId !== undefined) clauses.push(`product_id = ${bind(q.productId)}`);
  if (q.station !== undefined) clauses.push(`station = ${bind(q.station)}`);
  if (q.boardAddress !== undefined) clauses.push(`lower(board_address) = ${bind(q.boardAddress)}`);
  if (q.text) clauses.push(dialect.text(q.text, bind));
  if (q.states?.length) clauses.push(`state IN (${q.states.map((s) => bind(s)).join(', ')})`);
  if (q.from !== undefined) clauses.push(`created_at >= ${bind(q.from)}`);
  if (q.to !== undefined) clauses.push(`created_at <= ${bind(q.to)}`);
  // A row value, so the (…, created_at, id) indexes seek to the page instead of skipping rows.
  if (options.cursor && q.after)
    clauses.push(`(created_at, id) < (${bind(q.after.createdAt)}, ${bind(q.after.id)})`);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** `text` as a LIKE pattern matching it anywhere, `%` and `_` taken literally (escape `\`). */
export function likeAnywhere(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** `text` as a LIKE pattern matching the start of a value. */
export function likePrefix(text: string): string {
  return `${escapeLike(text)}%`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A capped count of what `where` matches: reads at most AUDIT_COUNT_CAP + 1 index entries. */
function cappedCountSql(where: string): string {
  return `SELECT COUNT(*) AS n FROM (SELECT 1 FROM provisioning_records ${where} LIMIT ${AUDIT_COUNT_CAP + 1}) AS matches`;
}

/** One page, newest first; one row more than asked tells whether an older page exists. */
function pageSql(where: string, limit: string): string {
  return `SELECT * FROM provisioning_records ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
}

/** A search's two statements: the capped count of every match, and the page itself. */
export function searchSql(
  q: z.output<typeof auditQuerySchema>,
  dialect: SearchDialect,
): { count: { sql: string; params: unknown[] }; page: { sql: string; params: unknown[] } } {
  const counted = whereClause(q, dialect, { cursor: false });
  const { where, params } = whereClause(q, dialect);
  return {
    count: { sql: cappedCountSql(counted.where), params: counted.params },
    page: {
      sql: pageSql(where, dialect.placeholder(params.length + 1)),
      params: [...params, q.limit + 1],
    },
  };
}

/**
 * A first page that holds every match is its own count: the count statement, which costs as much
 * as the page when a text search must be checked row by row, is then not run.
 */
export function countFromPage(
  q: z.output<typeof auditQuerySchema>,
  rows: readonly RecordRow[],
): number | undefined {
  return q.after === undefined && rows.length <= q.limit ? rows.length : undefined;
}

/** The page a search returns, from `limit + 1` rows and the capped count. */
export function toPage(
  rows: RecordRow[],
  count: number,
  limit: number,
  textMatch: AuditTextMatch,
): AuditPage {
  const items = rows.slice(0, limit).map(toRecord);
  const last = items[items.length - 1];
  return {
    items,
    total: Math.min(count, AUDIT_COUNT_CAP),
    totalCapped: count > AUDIT_COUNT_CAP,
    next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null,
    limit,
    textMatch,
  };
}

export const HOUR_MS = 3_600_000;

/** A copied record keeps its times, station and outcome; only its id is this log's own. */
export function copyValues(r: ProvisioningRecord, origin: string): unknown[] {
  return [
    r.createdAt,
    r.updatedAt,
    r.productId,
    r.productName,
    r.serviceUuid,
    r.psdiServiceUuid,
    r.psdiCharacteristicUuid,
    r.boardId,
    r.boardAddress,
    r.psdi,
    r.psdiSource,
    r.profileId,
    r.station,
    r.boardName,
    r.adapter,
    r.imageHash,
    r.state,
    r.psdiHeld ? 1 : 0,
    r.failedStep,
    r.error,
    r.attempts,
    r.writtenAt,
    r.verifiedAt,
    origin,
    r.psdiReturned ? 1 : 0,
    JSON.stringify(r.history),
  ];
}

/**
 * `provisioning_records` read through one index. SQLite's planner, with statistics from a small
 * log, can prefer the state index and then read every failed record; there `INDEXED BY` pins the
 * partial index (and the query fails if it is missing). PostgreSQL's planner is left to choose.
 */
export type RecordsVia = (index: string) => string;

/**
 * The reads a station makes for every board (reserve, complete, next PSDI, the busy-board check,
 * reconcile), each on an index made for it, so they cost the same on a log of any size; named
 * so a test can check their plans. `p(n)` spells parameter n.
 */
export function stationSql(p: (n: number) => string, via: RecordsVia) {
  return {
    record: `SELECT * FROM provisioning_records WHERE id = ${p(1)}`,
    busyBoard: `SELECT id, psdi FROM provisioning_records
      WHERE product_id = ${p(1)} AND board_address = ${p(2)} AND state IN ('reserved', 'written')
      ORDER BY id LIMIT 1`,
    holder: `SELECT id FROM provisioning_records
      WHERE product_id = ${p(1)} AND psdi = ${p(2)} AND psdi_held = 1`,
    wasRecorded: `SELECT 1 FROM provisioning_records
      WHERE product_id = ${p(1)} AND psdi = ${p(2)} AND psdi_returned = 0 LIMIT 1`,
    // PSDIs given back to the pool that no record has used since, oldest first, from the pool
    // table the triggers keep (schema.ts).
    returned: `SELECT psdi FROM returned_psdis WHERE product_id = ${p(1)} ORDER BY first_id`,
    counter: `SELECT value FROM psdi_counters WHERE product_id = ${p(1)} AND key = ${p(2)}`,
    unfinished: `SELECT * FROM ${via('provisioning_records_unfinished')} WHERE ${UNFINISHED_SQL} ORDER BY id`,
    verifiedPsdi: `SELECT psdi FROM provisioning_records
      WHERE product_id = ${p(1)} AND board_id = ${p(2)} AND state = 'verified'
      ORDER BY id DESC LIMIT 1`,
  };
}

/**
 * The Line page's reads, each bounded by the number of stations or by the last hour's records
 * (docs/decisions.md, "The audit log at a million records"). `p(n)` spells parameter n.
 */
export function lineSql(p: (n: number) => string, via: RecordsVia) {
  return {
    // A loose index scan: one seek per station on (station, updated_at), not a pass over the log.
    stations: `WITH RECURSIVE s(station) AS (
        SELECT MIN(station) FROM provisioning_records
        UNION ALL
        SELECT (SELECT MIN(r.station) FROM provisioning_records r WHERE r.station > s.station)
        FROM s WHERE s.station IS NOT NULL)
      SELECT station,
        (SELECT MAX(r.updated_at) FROM provisioning_records r WHERE r.station = s.station) AS last_seen_at
      FROM s WHERE station IS NOT NULL ORDER BY station`,
    verified: `SELECT station, COUNT(*) AS n FROM ${via('provisioning_records_verified_at')}
      WHERE state = 'verified' AND verified_at >= ${p(1)} GROUP BY station`,
    failed: `SELECT station, failed_step AS step, COUNT(*) AS n
      FROM ${via('provisioning_records_failed_at')} WHERE state = 'failed' AND updated_at >= ${p(1)} GROUP BY station, failed_step`,
    inFlight: `SELECT station, COUNT(*) AS n FROM ${via('provisioning_records_busy_board')}
      WHERE state IN ('reserved', 'written') GROUP BY station`,
    unfinished: `SELECT * FROM ${via('provisioning_records_unfinished')} WHERE ${UNFINISHED_SQL}
      ORDER BY id LIMIT ${LINE_UNFINISHED_SHOWN}`,
    unfinishedCount: `SELECT COUNT(*) AS n FROM ${via('provisioning_records_unfinished')}
      WHERE ${UNFINISHED_SQL}`,
  };
}

type Counted = { station: string; n: number | string };

/** The Line page's status from the rows of lineSql's queries. */
export function toLineStatus(
  at: number,
  rows: {
    stations: { station: string; last_seen_at: number | string }[];
    verified: Counted[];
    failed: (Counted & { step: string | null })[];
    inFlight: Counted[];
    unfinished: RecordRow[];
    unfinishedCount: number | string;
  },
): LineStatus {
  const byStation = (counted: Counted[]) => {
    const totals = new Map<string, number>();
    for (const c of counted) totals.set(c.station, (totals.get(c.station) ?? 0) + Number(c.n));
    return totals;
  };
  const verified = byStation(rows.verified);
  const failed = byStation(rows.failed);
  const inFlight = byStation(rows.inFlight);
  const steps = new Map<string, number>();
  for (const f of rows.failed) {
    const step = f.step ?? 'unknown';
    steps.set(step, (steps.get(step) ?? 0) + Number(f.n));
  }
  return {
    at,
    stations: rows.stations.map((s) => ({
      station: s.station,
      lastSeenAt: Number(s.last_seen_at),
      boardsPerHour: verified.get(s.station) ?? 0,
      inFlight: inFlight.get(s.station) ?? 0,
      failedLastHour: failed.get(s.station) ?? 0,
    })),
    failuresByStep: [...steps]
      .map(([step, count]) => ({ step, count }))
      .sort((a, b) => b.count - a.count || (a.step < b.step ? -1 : a.step > b.step ? 1 : 0)),
    unfinished: rows.unfinished.map(toRecord),
    unfinishedCount: Number(rows.unfinishedCount),
  };
}

/**
 * An allocation context that takes nothing: numbers are read, not taken, so an allocator run on
 * it tells what it would hand out next.
 */
export function peekContext(
  base: Omit<AllocationContext, 'takeNumber'>,
  readNumber: (key: string) => Promise<number | undefined>,
): AllocationContext {
  const next = new Map<string, number>();
  return {
    ...base,
    takeNumber: async (key, start) => {
      const n = next.get(key) ?? Math.max((await readNumber(key)) ?? start, start);
      next.set(key, n + 1);
      return n;
    },
  };
}
