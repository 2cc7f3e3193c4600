// The audit log of provisioning: one SQLite file (WAL, synchronous=FULL) in the app's data
// folder. Every state change is committed to disk before the caller takes its next BLE step,
// and a partial unique index keeps a PSDI on at most one live record per product.
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { openAuditDatabase } from './database';
import {
  BoardBusyError,
  InvalidTransitionError,
  PsdiTakenError,
  RecordNotFoundError,
} from './errors';
import { exportRecordsCsv } from './csv-export';
import {
  auditQuerySchema,
  type AuditPage,
  type AuditQuery,
  type ProvisioningRecord,
  type ProvisioningState,
  type ProvisioningStep,
} from './records';

/** What an allocator may ask while it picks a PSDI, inside the reserving transaction. */
export interface AllocationContext {
  readonly productId: string;
  /** Held by a live record of this product: must not be handed out. */
  isHeld(psdi: string): boolean;
  /** Appears on any record of this product, held or not. */
  wasRecorded(psdi: string): boolean;
  /** A per-product counter an allocator keeps (e.g. a sequence's next number). */
  readCounter(key: string): number | undefined;
  writeCounter(key: string, value: number): void;
}

/** Picks a PSDI; runs inside the reserve transaction, so what it sees cannot change under it. */
export interface PsdiAllocator {
  allocate(context: AllocationContext): string;
}

export interface ReserveInput {
  product: {
    id: string;
    name: string;
    serviceUuid: string;
    psdiServiceUuid: string;
    psdiCharacteristicUuid: string;
  };
  board: { id: string; address: string };
  profileId: string;
  psdiSource: 'tool' | 'device';
  /** A PSDI the board reported (device source) or an allocator that picks one. */
  psdi: string | PsdiAllocator;
}

export interface FailureInput {
  step: ProvisioningStep;
  error: string;
  /** Whether the board may carry the PSDI (the commit was sent); false frees it for reuse. */
  psdiHeld: boolean;
  attempts?: number;
}

export interface AuditStoreOptions {
  /** The database file; `:memory:` for a throwaway store. */
  file: string;
  /** Recorded on each record; the host name when not set. */
  station?: string;
  /** ms since the epoch; injectable so tests control time. */
  now?: () => number;
}

interface RecordRow {
  id: number;
  created_at: number;
  updated_at: number;
  written_at: number | null;
  verified_at: number | null;
  product_id: string;
  product_name: string;
  service_uuid: string;
  psdi_service_uuid: string;
  psdi_characteristic_uuid: string;
  board_id: string;
  board_address: string;
  psdi: string;
  psdi_source: 'tool' | 'device';
  profile_id: string;
  station: string;
  state: ProvisioningState;
  psdi_held: number;
  failed_step: ProvisioningStep | null;
  error: string | null;
  attempts: number;
}

const SCHEMA_VERSION = 1;

const MIGRATION = `
CREATE TABLE IF NOT EXISTS provisioning_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  written_at INTEGER,
  verified_at INTEGER,
  product_id TEXT NOT NULL,
  product_name TEXT NOT NULL,
  service_uuid TEXT NOT NULL,
  psdi_service_uuid TEXT NOT NULL,
  psdi_characteristic_uuid TEXT NOT NULL,
  board_id TEXT NOT NULL,
  board_address TEXT NOT NULL,
  psdi TEXT NOT NULL,
  psdi_source TEXT NOT NULL CHECK (psdi_source IN ('tool', 'device')),
  profile_id TEXT NOT NULL,
  station TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'written', 'verified', 'failed', 'released')),
  psdi_held INTEGER NOT NULL CHECK (psdi_held IN (0, 1)),
  failed_step TEXT,
  error TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  CHECK (psdi_held = 0 OR state <> 'released')
);
-- The guarantee itself: however many writers, one live record per (product, PSDI).
CREATE UNIQUE INDEX IF NOT EXISTS provisioning_records_held_psdi
  ON provisioning_records (product_id, psdi) WHERE psdi_held = 1;
CREATE INDEX IF NOT EXISTS provisioning_records_created ON provisioning_records (created_at, id);
CREATE INDEX IF NOT EXISTS provisioning_records_product ON provisioning_records (product_id, psdi);
CREATE INDEX IF NOT EXISTS provisioning_records_state ON provisioning_records (state);
CREATE TABLE IF NOT EXISTS psdi_counters (
  product_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY (product_id, key)
);
`;

export class AuditStore {
  readonly file: string;
  readonly station: string;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(options: AuditStoreOptions) {
    this.file = options.file;
    this.station = options.station?.trim() || hostname();
    this.now = options.now ?? Date.now;
    // FULL makes each commit durable against power loss too, not only a crash: a transition
    // must be on disk before the radio acts on it.
    this.db = openAuditDatabase(options.file, 'FULL');
    this.migrate();
  }

  /**
   * Takes a PSDI for a board in one IMMEDIATE transaction: the allocator picks it, the store
   * refuses one another live record of the product holds, and the record is on disk before
   * this returns.
   */
  reserve(input: ReserveInput): ProvisioningRecord {
    const reserveTx = this.db.transaction((): ProvisioningRecord => {
      const busy = this.sql(
        `SELECT id, psdi FROM provisioning_records
         WHERE product_id = ? AND board_address = ? AND state IN ('reserved', 'written')
         ORDER BY id LIMIT 1`,
      ).get(input.product.id, input.board.address) as { id: number; psdi: string } | undefined;
      if (busy) throw new BoardBusyError(input.product.id, input.board.address, busy.id, busy.psdi);
      const psdi =
        typeof input.psdi === 'string'
          ? input.psdi
          : input.psdi.allocate(this.allocationContext(input.product.id));
      const holder = this.holderOf(input.product.id, psdi);
      if (holder !== undefined) throw new PsdiTakenError(input.product.id, psdi, holder);
      const at = this.now();
      const { lastInsertRowid } = this.sql(
        `INSERT INTO provisioning_records (created_at, updated_at, product_id, product_name,
           service_uuid, psdi_service_uuid, psdi_characteristic_uuid, board_id, board_address,
           psdi, psdi_source, profile_id, station, state, psdi_held, attempts)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reserved', 1, 0)`,
      ).run(...this.insertValues(input, psdi, at));
      return this.require(Number(lastInsertRowid));
    });
    try {
      return reserveTx.immediate();
    } catch (err) {
      // Only another connection racing past the check lands here; same meaning, same error.
      if (isUniqueViolation(err) && typeof input.psdi === 'string')
        throw new PsdiTakenError(input.product.id, input.psdi);
      throw err;
    }
  }

  /**
   * A record that never held its PSDI: a device-source board whose PSDI another record of the
   * product already holds. Kept so the log shows the refused board.
   */
  recordRefused(
    input: ReserveInput & { psdi: string } & Omit<FailureInput, 'psdiHeld'>,
  ): ProvisioningRecord {
    const at = this.now();
    const { lastInsertRowid } = this.sql(
      `INSERT INTO provisioning_records (created_at, updated_at, product_id, product_name,
         service_uuid, psdi_service_uuid, psdi_characteristic_uuid, board_id, board_address,
         psdi, psdi_source, profile_id, station, state, psdi_held, failed_step, error, attempts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'failed', 0, ?, ?, ?)`,
    ).run(
      ...this.insertValues(input, input.psdi, at),
      input.step,
      input.error,
      input.attempts ?? 0,
    );
    return this.require(Number(lastInsertRowid));
  }

  /** The board acknowledged the commit. Also the way back in for a reconciled record. */
  markWritten(id: number, attempts?: number): ProvisioningRecord {
    return this.transition(id, (record) => {
      if (!['reserved', 'written', 'failed'].includes(record.state))
        throw new InvalidTransitionError(id, record.state, 'written');
      if (!record.psdiHeld)
        throw new InvalidTransitionError(
          id,
          record.state,
          'written',
          'it no longer holds its PSDI',
        );
      const at = this.now();
      this.sql(
        `UPDATE provisioning_records SET state = 'written', written_at = ?, updated_at = ?,
           failed_step = NULL, error = NULL, attempts = COALESCE(?, attempts) WHERE id = ?`,
      ).run(at, at, attempts ?? null, id);
    });
  }

  /** The PSDI was read back from the board in product mode and matched. */
  markVerified(id: number, attempts?: number): ProvisioningRecord {
    return this.transition(id, (record) => {
      if (record.state !== 'written')
        throw new InvalidTransitionError(id, record.state, 'verified');
      const at = this.now();
      this.sql(
        `UPDATE provisioning_records SET state = 'verified', verified_at = ?, updated_at = ?,
           attempts = COALESCE(?, attempts) WHERE id = ?`,
      ).run(at, at, attempts ?? null, id);
    });
  }

  /** A failure is final for the run; `psdiHeld` can only drop (a freed PSDI may be someone's). */
  markFailed(id: number, failure: FailureInput): ProvisioningRecord {
    return this.transition(id, (record) => {
      if (!['reserved', 'written', 'failed'].includes(record.state))
        throw new InvalidTransitionError(id, record.state, 'failed');
      this.sql(
        `UPDATE provisioning_records SET state = 'failed', updated_at = ?, failed_step = ?,
           error = ?, psdi_held = ?, attempts = COALESCE(?, attempts) WHERE id = ?`,
      ).run(
        this.now(),
        failure.step,
        failure.error,
        record.psdiHeld && failure.psdiHeld ? 1 : 0,
        failure.attempts ?? null,
        id,
      );
    });
  }

  /**
   * Gives the PSDI back. Never for a verified record (the board carries it). Meant to follow a
   * look at the board (reconcile found it blank) or a board known lost.
   */
  release(id: number, reason: string): ProvisioningRecord {
    return this.transition(id, (record) => {
      if (!['reserved', 'written', 'failed'].includes(record.state))
        throw new InvalidTransitionError(id, record.state, 'released');
      this.sql(
        `UPDATE provisioning_records SET state = 'released', updated_at = ?, psdi_held = 0,
           error = COALESCE(error, ?) WHERE id = ?`,
      ).run(this.now(), reason, id);
    });
  }

  get(id: number): ProvisioningRecord | undefined {
    const row = this.sql('SELECT * FROM provisioning_records WHERE id = ?').get(id) as
      RecordRow | undefined;
    return row && toRecord(row);
  }

  /** Records a crash or kill left between reserve and verify: what reconciliation works on. */
  listUnfinished(): ProvisioningRecord[] {
    const rows = this.sql(
      `SELECT * FROM provisioning_records WHERE state IN ('reserved', 'written') ORDER BY id`,
    ).all() as RecordRow[];
    return rows.map(toRecord);
  }

  /** Newest first; every filter optional; bad input throws a ZodError naming the field. */
  search(query: AuditQuery = {}): AuditPage {
    const q = auditQuerySchema.parse(query);
    const { where, params } = whereClause(q);
    const total = (
      this.db.prepare(`SELECT COUNT(*) AS n FROM provisioning_records ${where}`).get(...params) as {
        n: number;
      }
    ).n;
    const rows = this.db
      .prepare(
        `SELECT * FROM provisioning_records ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, q.limit, q.offset) as RecordRow[];
    return { items: rows.map(toRecord), total, offset: q.offset, limit: q.limit };
  }

  /** Every record the filter matches (paging ignored), oldest first, as CSV with a header. */
  exportCsv(query: Omit<AuditQuery, 'offset' | 'limit'> = {}): string {
    const q = auditQuerySchema.parse(query);
    const { where, params } = whereClause(q);
    const rows = this.db
      .prepare(`SELECT * FROM provisioning_records ${where} ORDER BY created_at, id`)
      .iterate(...params) as IterableIterator<RecordRow>;
    return exportRecordsCsv(mapIterable(rows, toRecord));
  }

  close(): void {
    this.db.close();
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION)
      throw new Error(
        `${this.file}: audit database version ${version} is newer than this app understands (${SCHEMA_VERSION})`,
      );
    this.db.exec(MIGRATION);
    if (version < SCHEMA_VERSION) this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  /** Reads, checks and writes in one IMMEDIATE transaction, so two writers cannot interleave. */
  private transition(id: number, apply: (record: ProvisioningRecord) => void): ProvisioningRecord {
    const tx = this.db.transaction(() => {
      apply(this.require(id));
      return this.require(id);
    });
    return tx.immediate();
  }

  private require(id: number): ProvisioningRecord {
    const record = this.get(id);
    if (!record) throw new RecordNotFoundError(id);
    return record;
  }

  private holderOf(productId: string, psdi: string): number | undefined {
    const row = this.sql(
      'SELECT id FROM provisioning_records WHERE product_id = ? AND psdi = ? AND psdi_held = 1',
    ).get(productId, psdi) as { id: number } | undefined;
    return row?.id;
  }

  private allocationContext(productId: string): AllocationContext {
    return {
      productId,
      isHeld: (psdi) => this.holderOf(productId, psdi) !== undefined,
      wasRecorded: (psdi) =>
        this.sql(
          'SELECT 1 FROM provisioning_records WHERE product_id = ? AND psdi = ? LIMIT 1',
        ).get(productId, psdi) !== undefined,
      readCounter: (key) =>
        (
          this.sql('SELECT value FROM psdi_counters WHERE product_id = ? AND key = ?').get(
            productId,
            key,
          ) as { value: number } | undefined
        )?.value,
      writeCounter: (key, value) => {
        this.sql(
          `INSERT INTO psdi_counters (product_id, key, value) VALUES (?, ?, ?)
           ON CONFLICT (product_id, key) DO UPDATE SET value = excluded.value`,
        ).run(productId, key, value);
      },
    };
  }

  private insertValues(input: ReserveInput, psdi: string, at: number): unknown[] {
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
      this.station,
    ];
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }
}

export function openAuditStore(options: AuditStoreOptions): AuditStore {
  return new AuditStore(options);
}

function toRecord(row: RecordRow): ProvisioningRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    writtenAt: row.written_at,
    verifiedAt: row.verified_at,
    productId: row.product_id,
    productName: row.product_name,
    serviceUuid: row.service_uuid,
    psdiServiceUuid: row.psdi_service_uuid,
    psdiCharacteristicUuid: row.psdi_characteristic_uuid,
    boardId: row.board_id,
    boardAddress: row.board_address,
    psdi: row.psdi,
    psdiSource: row.psdi_source,
    profileId: row.profile_id,
    station: row.station,
    state: row.state,
    result: resultOf(row.state),
    psdiHeld: row.psdi_held === 1,
    failedStep: row.failed_step,
    error: row.error,
    attempts: row.attempts,
  };
}

function resultOf(state: ProvisioningState): ProvisioningRecord['result'] {
  if (state === 'verified') return 'ok';
  if (state === 'failed' || state === 'released') return state;
  return 'pending';
}

function whereClause(q: ReturnType<typeof auditQuerySchema.parse>): {
  where: string;
  params: unknown[];
} {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (q.productId !== undefined) {
    clauses.push('product_id = ?');
    params.push(q.productId);
  }
  if (q.text) {
    const pattern = `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    clauses.push(`(psdi LIKE ? ESCAPE '\\' OR board_address LIKE ? ESCAPE '\\')`);
    params.push(pattern, pattern);
  }
  if (q.states?.length) {
    clauses.push(`state IN (${q.states.map(() => '?').join(', ')})`);
    params.push(...q.states);
  }
  if (q.from !== undefined) {
    clauses.push('created_at >= ?');
    params.push(q.from);
  }
  if (q.to !== undefined) {
    clauses.push('created_at <= ?');
    params.push(q.to);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

function* mapIterable<T, U>(items: Iterable<T>, map: (item: T) => U): Generator<U> {
  for (const item of items) yield map(item);
}

function isUniqueViolation(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    (err as { code: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
