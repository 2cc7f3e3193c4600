// The audit log in one SQLite file (WAL, synchronous=FULL) in the app's data folder: the
// default for one bench. Every state change is committed to disk before the caller takes its
// next BLE step, and a partial unique index keeps a PSDI on at most one live record per product.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { openAuditDatabase } from './database';
import { BoardBusyError, PsdiTakenError, RecordNotFoundError } from './errors';
import {
  csvChunks,
  csvPage,
  EXPORT_CHUNK_ROWS,
  type CsvChunk,
  type ExportCursor,
} from './csv-export';
import { SqliteScenarioRunLog, type ScenarioRunLog } from './scenario-runs';
import {
  isUniqueViolation,
  migrateSqlite,
  SQLITE_SEARCH,
  SQLITE_VIA,
  STATION,
} from './sqlite-dialect';
import {
  copyValues,
  countFromPage,
  HOUR_MS,
  insertSql,
  lineSql,
  peekContext,
  refusedValues,
  reservedValues,
  searchSql,
  toLineStatus,
  toPage,
  toRecord,
  whereClause,
  type RecordRow,
} from './record-rows';
import {
  auditQuerySchema,
  type AuditPage,
  type AuditQuery,
  type LineStatus,
  type RecordEvent,
} from './records';
import { failureKeepsPsdi, releaseEvent, transitionRefusal } from './transitions';
import { inTurn, type WriteTurns } from './sqlite-write-turns';
import {
  stationName,
  STORE_CALLS,
  type AllocationContext,
  type AuditStore,
  type CopyResult,
  type ExportQuery,
  type FailureInput,
  type ProvisioningRecord,
  type PsdiAllocator,
  type ReleaseInput,
  type ReserveInput,
  type Transition,
} from './store';

export interface SqliteStoreOptions {
  /** The database file; `:memory:` for a throwaway store. */
  file: string;
  /** Recorded on each record; the host name when not set. */
  station?: string;
  /** ms since the epoch; injectable so tests control time. */
  now?: () => number;
  /** Turns at writing shared with the other stores of this process on the file. */
  turns?: WriteTurns;
}

/** Writes between two `PRAGMA optimize` runs, so the planner's statistics follow the log's growth. */
const OPTIMIZE_EVERY = 1_000;

const INSERT_SQL = insertSql(() => '?');

/** WAL pages between automatic checkpoints (16 MiB at SQLite's default page size). */
const WAL_CHECKPOINT_PAGES = 4_096;

/**
 * Held by one worker thread (sqlite-worker.ts), which runs its calls one at a time: that is the
 * only queue. Two logs open on one file are two threads, kept apart by SQLite's own write lock
 * (busy_timeout).
 */
export class SqliteAuditStore implements AuditStore {
  readonly engine = 'sqlite' as const;
  readonly file: string;
  readonly station: string;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly turns: WriteTurns | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  private runs: SqliteScenarioRunLog | undefined;
  /** Writes since the last `PRAGMA optimize`. */
  private writes = 0;

  constructor(options: SqliteStoreOptions) {
    this.file = options.file;
    this.station = stationName(options.station);
    this.now = options.now ?? Date.now;
    this.turns = options.turns;
    // FULL makes each commit durable against power loss too, not only a crash: a transition
    // must be on disk before the radio acts on it.
    this.db = openAuditDatabase(options.file, 'FULL');
    // A commit that takes the WAL past this many pages checkpoints it, on that commit's path
    // (two fsyncs and the pages copied back). A reservation writes about 22 pages since the
    // million-record indexes and text search: at SQLite's default of 1,000, one reservation in
    // 45 paid a checkpoint, more than the 1 in 100 a p99 leaves out; here one in about 190 does
    // (docs/decisions/audit-log.md, "Reservations against another revision").
    this.db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    migrateSqlite(this.db, this.file);
    // Statistics for the planner, so a filtered page walks the index made for it; the limit
    // bounds what one ANALYZE reads on a large log (docs/decisions.md, "The audit log at a
    // million records").
    this.db.pragma('analysis_limit = 1000');
    this.db.pragma('optimize = 0x10002');
  }

  get location(): string {
    return this.file;
  }

  async reserve(input: ReserveInput): Promise<ProvisioningRecord> {
    const [outcome] = await this.reserveTogether([{ input }]);
    if (outcome?.status !== 'fulfilled') throw outcome?.reason;
    return outcome.value;
  }

  /**
   * Reservations that arrived together, in one transaction and one commit: one fsync for all of
   * them. Each runs under a savepoint of its own, so one refused (a busy board, a PSDI taken, its
   * allocator's error) leaves the others; none is answered before the commit is on disk
   * (docs/decisions.md, "Reservations fast again"). `at` is a reservation's time, when its
   * caller's clock is the store's.
   */
  async reserveTogether(
    batch: readonly { input: ReserveInput; at?: number }[],
  ): Promise<PromiseSettledResult<ProvisioningRecord>[]> {
    return inTurn(this.turns, () => this.reserveInTurn(batch));
  }

  private async reserveInTurn(
    batch: readonly { input: ReserveInput; at?: number }[],
  ): Promise<PromiseSettledResult<ProvisioningRecord>[]> {
    // IMMEDIATE takes the write lock now: another process on the file waits (busy_timeout)
    // until these reservations are committed or rolled back.
    this.db.exec('BEGIN IMMEDIATE');
    const outcomes: ({ id: number } | { error: unknown })[] = [];
    try {
      for (const { input, at } of batch) {
        this.db.exec('SAVEPOINT reservation');
        try {
          outcomes.push({ id: await this.insertReservation(input, at) });
          this.db.exec('RELEASE reservation');
        } catch (err) {
          this.db.exec('ROLLBACK TO reservation');
          this.db.exec('RELEASE reservation');
          outcomes.push({
            error:
              isUniqueViolation(err) && typeof input.psdi === 'string'
                ? new PsdiTakenError(input.product.id, input.psdi)
                : err,
          });
        }
      }
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
    this.wrote(outcomes.filter((o) => 'id' in o).length);
    return outcomes.map((o) =>
      'id' in o
        ? { status: 'fulfilled', value: this.require(o.id) }
        : { status: 'rejected', reason: o.error },
    );
  }

  /** One reservation's statements, inside reserveTogether's transaction; its record's id. */
  private async insertReservation(input: ReserveInput, at: number | undefined): Promise<number> {
    const busy = this.sql(STATION.busyBoard).get(input.product.id, input.board.address) as
      { id: number; psdi: string } | undefined;
    if (busy) throw new BoardBusyError(input.product.id, input.board.address, busy.id, busy.psdi);
    const psdi =
      typeof input.psdi === 'string'
        ? input.psdi
        : await input.psdi.allocate(this.allocationContext(input.product.id));
    const holder = this.holderOf(input.product.id, psdi);
    if (holder !== undefined) throw new PsdiTakenError(input.product.id, psdi, holder);
    const { lastInsertRowid } = this.sql(INSERT_SQL).run(
      ...reservedValues(input, psdi, at ?? this.now(), this.station),
    );
    return Number(lastInsertRowid);
  }

  async recordRefused(
    input: ReserveInput & { psdi: string } & Omit<FailureInput, 'psdiHeld'>,
  ): Promise<ProvisioningRecord> {
    return inTurn(this.turns, () => {
      const { lastInsertRowid } = this.sql(INSERT_SQL).run(
        ...refusedValues(input, this.now(), this.station),
      );
      return this.require(Number(lastInsertRowid));
    });
  }

  markWritten(id: number, attempts?: number): Promise<ProvisioningRecord> {
    return this.transition(id, STORE_CALLS.markWritten.transition, () => {
      const at = this.now();
      this.sql(
        `UPDATE provisioning_records SET state = 'written', written_at = ?, updated_at = ?,
           failed_step = NULL, error = NULL, attempts = COALESCE(?, attempts) WHERE id = ?`,
      ).run(at, at, attempts ?? null, id);
    });
  }

  markVerified(
    id: number,
    attempts?: number,
    history?: RecordEvent[],
  ): Promise<ProvisioningRecord> {
    return this.transition(id, STORE_CALLS.markVerified.transition, () => {
      const at = this.now();
      this.sql(
        `UPDATE provisioning_records SET state = 'verified', verified_at = ?, updated_at = ?,
           attempts = COALESCE(?, attempts), history = COALESCE(?, history) WHERE id = ?`,
      ).run(at, at, attempts ?? null, history ? JSON.stringify(history) : null, id);
    });
  }

  markFailed(id: number, failure: FailureInput): Promise<ProvisioningRecord> {
    return this.transition(id, STORE_CALLS.markFailed.transition, (record) => {
      this.sql(
        `UPDATE provisioning_records SET state = 'failed', updated_at = ?, failed_step = ?,
           error = ?, psdi_held = ?, attempts = COALESCE(?, attempts),
           psdi_returned = ?, history = COALESCE(?, history) WHERE id = ?`,
      ).run(
        this.now(),
        failure.step,
        failure.error,
        record.psdiHeld && failureKeepsPsdi(failure) ? 1 : 0,
        failure.attempts ?? null,
        failure.returnPsdi ? 1 : 0,
        failure.history ? JSON.stringify(failure.history) : null,
        id,
      );
    });
  }

  release(
    id: number,
    reason: string,
    options: { returnPsdi?: boolean } = {},
  ): Promise<ProvisioningRecord> {
    return this.transition(id, STORE_CALLS.release.transition, () => {
      this.sql(
        `UPDATE provisioning_records SET state = 'released', updated_at = ?, psdi_held = 0,
           psdi_returned = MAX(psdi_returned, ?), error = COALESCE(error, ?) WHERE id = ?`,
      ).run(this.now(), options.returnPsdi ? 1 : 0, reason, id);
    });
  }

  releaseHeld(id: number, input: ReleaseInput): Promise<ProvisioningRecord> {
    return this.transition(id, STORE_CALLS.releaseHeld.transition, (record) => {
      const at = this.now();
      const history = [...record.history, releaseEvent(record, input, at, this.station)];
      this.sql(
        `UPDATE provisioning_records SET state = 'released', updated_at = ?, psdi_held = 0,
           psdi_returned = 1, history = ? WHERE id = ?`,
      ).run(at, JSON.stringify(history), id);
    });
  }

  async peekPsdi(productId: string, allocator: PsdiAllocator): Promise<string> {
    return allocator.allocate(
      peekContext(this.allocationContext(productId), async (key) => {
        const row = this.sql(STATION.counter).get(productId, key) as { value: number } | undefined;
        return row?.value;
      }),
    );
  }

  async get(id: number): Promise<ProvisioningRecord | undefined> {
    return this.read(id);
  }

  async listUnfinished(): Promise<ProvisioningRecord[]> {
    return (this.sql(STATION.unfinished).all() as RecordRow[]).map(toRecord);
  }

  async verifiedPsdi(productId: string, boardId: string): Promise<string | undefined> {
    const row = this.sql(STATION.verifiedPsdi).get(productId, boardId) as
      { psdi: string } | undefined;
    return row?.psdi;
  }

  async search(query: AuditQuery = {}): Promise<AuditPage> {
    const q = auditQuerySchema.parse(query);
    const { count, page } = searchSql(q, SQLITE_SEARCH);
    const rows = this.sql(page.sql).all(...page.params) as RecordRow[];
    const n =
      countFromPage(q, rows) ?? (this.sql(count.sql).get(...count.params) as { n: number }).n;
    return toPage(rows, n, q.limit, 'substring');
  }

  exportCsv(query: ExportQuery = {}): AsyncIterable<CsvChunk> {
    const q = auditQuerySchema.parse(query);
    return csvChunks(async (after) => csvPage(await this.exportRecords(q, after)));
  }

  /**
   * One chunk of an export: the records after `after` in export order. Each chunk is its own
   * read, so a station's reservation waits for one chunk at most, never for the whole export.
   */
  async exportRecords(
    query: ExportQuery,
    after: ExportCursor | undefined,
  ): Promise<ProvisioningRecord[]> {
    const q = auditQuerySchema.parse(query);
    const { where, params } = whereClause(q, SQLITE_SEARCH, { cursor: false });
    const keyset = after ? `${where ? `${where} AND` : 'WHERE'} (created_at, id) > (?, ?)` : where;
    // The export's own order, walked from the cursor: a filter's index would have SQLite
    // sort every match for each chunk, quadratic over an export. A product's export walks
    // that product's records only, already in this order.
    const index = q.productId
      ? 'provisioning_records_product_created'
      : 'provisioning_records_created';
    const rows = this.sql(
      `SELECT * FROM provisioning_records INDEXED BY ${index} ${keyset}
         ORDER BY created_at, id LIMIT ?`,
    ).all(
      ...params,
      ...(after ? [after.createdAt, after.id] : []),
      EXPORT_CHUNK_ROWS,
    ) as RecordRow[];
    return rows.map(toRecord);
  }

  async lineStatus(): Promise<LineStatus> {
    const at = this.now();
    const since = at - HOUR_MS;
    const sql = lineSql(() => '?', SQLITE_VIA);
    return toLineStatus(at, {
      stations: this.sql(sql.stations).all() as { station: string; last_seen_at: number }[],
      verified: this.sql(sql.verified).all(since) as { station: string; n: number }[],
      failed: this.sql(sql.failed).all(since) as {
        station: string;
        step: string | null;
        n: number;
      }[],
      inFlight: this.sql(sql.inFlight).all() as { station: string; n: number }[],
      unfinished: this.sql(sql.unfinished).all() as RecordRow[],
      unfinishedCount: (this.sql(sql.unfinishedCount).get() as { n: number }).n,
    });
  }

  async records(afterId: number, batch: number): Promise<ProvisioningRecord[]> {
    return (
      this.sql('SELECT * FROM provisioning_records WHERE id > ? ORDER BY id LIMIT ?').all(
        afterId,
        batch,
      ) as RecordRow[]
    ).map(toRecord);
  }

  async copyFrom(sourceId: string, records: readonly ProvisioningRecord[]): Promise<CopyResult> {
    const result: CopyResult = { copied: 0, alreadyCopied: 0, refused: [] };
    const tx = this.db.transaction(() => {
      for (const r of records) {
        const origin = `${sourceId}:${r.id}`;
        if (this.sql('SELECT 1 FROM provisioning_records WHERE origin = ?').get(origin)) {
          result.alreadyCopied++;
          continue;
        }
        if (r.psdiHeld && this.holderOf(r.productId, r.psdi) !== undefined) {
          result.refused.push({ id: r.id, reason: `PSDI "${r.psdi}" is held here already` });
          continue;
        }
        this.sql(INSERT_SQL).run(...copyValues(r, origin));
        result.copied++;
      }
    });
    await inTurn(this.turns, () => tx.immediate());
    this.wrote(result.copied);
    return result;
  }

  async sourceId(): Promise<string> {
    const row = this.sql("SELECT value FROM audit_meta WHERE key = 'source_id'").get() as
      { value: string } | undefined;
    if (row) return row.value;
    const id = randomUUID();
    this.sql("INSERT INTO audit_meta (key, value) VALUES ('source_id', ?)").run(id);
    return id;
  }

  /** The dry-run log in the same file (its own connection, synchronous=NORMAL). */
  async scenarioRuns(): Promise<ScenarioRunLog> {
    this.runs ??= new SqliteScenarioRunLog({
      file: this.file,
      station: this.station,
      now: this.now,
    });
    return this.runs;
  }

  async ping(): Promise<void> {
    this.sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    await this.runs?.close();
    if (!this.db.open) return;
    this.db.close();
  }

  /** Counts writes; every OPTIMIZE_EVERY of them the planner's statistics are refreshed. */
  private wrote(count = 1): void {
    this.writes += count;
    if (this.writes < OPTIMIZE_EVERY) return;
    this.writes = 0;
    this.db.pragma('optimize');
  }

  /**
   * Reads, checks `rule` and writes in one IMMEDIATE transaction, so two writers cannot
   * interleave.
   */
  private async transition(
    id: number,
    rule: Transition,
    apply: (record: ProvisioningRecord) => void,
  ): Promise<ProvisioningRecord> {
    const change = this.db.transaction(() => {
      const before = this.require(id);
      const refusal = transitionRefusal(before, rule);
      if (refusal) throw refusal;
      apply(before);
      return this.require(id);
    });
    const record = await inTurn(this.turns, () => change.immediate());
    this.wrote();
    return record;
  }

  private read(id: number): ProvisioningRecord | undefined {
    const row = this.sql(STATION.record).get(id) as RecordRow | undefined;
    return row && toRecord(row);
  }

  private require(id: number): ProvisioningRecord {
    const record = this.read(id);
    if (!record) throw new RecordNotFoundError(id);
    return record;
  }

  private holderOf(productId: string, psdi: string): number | undefined {
    const row = this.sql(STATION.holder).get(productId, psdi) as { id: number } | undefined;
    return row?.id;
  }

  /** Runs inside the reserve transaction: the write lock is held, nothing changes under it. */
  private allocationContext(productId: string): AllocationContext {
    return {
      productId,
      wasRecorded: async (psdi) => this.sql(STATION.wasRecorded).get(productId, psdi) !== undefined,
      returned: async () =>
        (this.sql(STATION.returned).all(productId) as { psdi: string }[]).map((r) => r.psdi),
      takeNumber: async (key, start) => {
        const row = this.sql(STATION.counter).get(productId, key) as { value: number } | undefined;
        const n = Math.max(row?.value ?? start, start);
        this.sql(
          `INSERT INTO psdi_counters (product_id, key, value) VALUES (?, ?, ?)
           ON CONFLICT (product_id, key) DO UPDATE SET value = excluded.value`,
        ).run(productId, key, n + 1);
        return n;
      },
      firstFree: async (values) =>
        values.find((psdi) => this.holderOf(productId, psdi) === undefined),
    };
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }
}
