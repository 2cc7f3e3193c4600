// Rows of provisioning_records as both engines return them, turned into records, and the search
// filter turned into a WHERE clause of bound parameters: one definition for SQLite and PostgreSQL.
import type {
  auditQuerySchema,
  ProvisioningRecord,
  ProvisioningState,
  RecordEvent,
  ProvisioningStep,
} from './records';
import type { z } from 'zod';
import type { AllocationContext } from './store';

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
export const INSERT_COLUMNS = [
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
] as const;

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

/**
 * The search filter as a WHERE clause. Only fixed column names and placeholders go into the
 * text; every value the user typed is a bound parameter. `placeholder(n)` spells the n-th one.
 */
export function whereClause(
  q: z.output<typeof auditQuerySchema>,
  placeholder: (n: number) => string,
  caseInsensitiveLike: 'LIKE' | 'ILIKE',
): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return placeholder(params.length);
  };
  if (q.productId !== undefined) clauses.push(`product_id = ${bind(q.productId)}`);
  if (q.station !== undefined) clauses.push(`station = ${bind(q.station)}`);
  if (q.text) {
    const pattern = `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    clauses.push(
      `(psdi ${caseInsensitiveLike} ${bind(pattern)} ESCAPE '\\' OR board_address ${caseInsensitiveLike} ${bind(pattern)} ESCAPE '\\' OR board_name ${caseInsensitiveLike} ${bind(pattern)} ESCAPE '\\')`,
    );
  }
  if (q.states?.length) clauses.push(`state IN (${q.states.map((s) => bind(s)).join(', ')})`);
  if (q.from !== undefined) clauses.push(`created_at >= ${bind(q.from)}`);
  if (q.to !== undefined) clauses.push(`created_at <= ${bind(q.to)}`);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** A record reconcile still has work on (what listUnfinished returns), as SQL. */
export const UNFINISHED_SQL = `(state IN ('reserved', 'written') OR (state = 'failed' AND psdi_held = 1))`;

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
 * PSDIs of a product given back to the pool that no record has used since, oldest first; `p`
 * spells the one parameter (the product id).
 */
export function returnedSql(p: string): string {
  return `SELECT psdi FROM provisioning_records r
    WHERE product_id = ${p} AND psdi_returned = 1 AND NOT EXISTS (
      SELECT 1 FROM provisioning_records o
      WHERE o.product_id = r.product_id AND o.psdi = r.psdi AND o.psdi_returned = 0)
    GROUP BY psdi ORDER BY MIN(id)`;
}

/** Why an operator may not release this record's PSDI from the audit log, if they may not. */
export function releaseProblem(record: ProvisioningRecord): string | undefined {
  if (record.state !== 'failed') return `only a failed record's PSDI can be released here`;
  if (!record.psdiHeld) return 'it holds no PSDI';
  return undefined;
}

export function releaseEvent(
  record: ProvisioningRecord,
  input: { reason: string; by: string },
  at: number,
  station: string,
): RecordEvent {
  return {
    at,
    step: record.failedStep ?? 'reconcile',
    attempt: record.attempts,
    kind: 'released',
    message: input.reason,
    then: `PSDI ${record.psdi} back in the pool`,
    by: input.by,
    station,
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
