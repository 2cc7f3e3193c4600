// The shared audit log of a production line on PostgreSQL: several stations reserve PSDIs from
// one pool and write one log. The database arbitrates: partial unique indexes keep a PSDI on at
// most one live record per product and a board on at most one unfinished record, and a
// sequence number is taken by one atomic upsert, so stations never wait on each other's
// transactions (docs/decisions.md, "Production line").
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  BoardBusyError,
  InvalidTransitionError,
  PsdiTakenError,
  RecordNotFoundError,
} from './errors';
import { csvChunks, csvPage, EXPORT_CHUNK_ROWS, type CsvChunk } from './csv-export';
import { PostgresScenarioRunLog } from './postgres-scenario-runs';
import { StationPicks } from './station-picks';
import { postgresAllocationContext } from './postgres-allocation';
import {
  openPools,
  Reachability,
  redactUrl,
  type PostgresConnectionOptions,
} from './postgres-connection';
import type { ScenarioRunLog } from './scenario-runs';
import {
  migratePostgres,
  PARAM,
  PG_VIA,
  PostgresTextSearch,
  STATION,
  uniqueViolation,
} from './postgres-dialect';
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
import {
  failureKeepsPsdi,
  releaseEvent,
  transitionCondition,
  transitionRefusal,
} from './transitions';
import {
  stationName,
  STORE_CALLS,
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

export interface PostgresStoreOptions extends PostgresConnectionOptions {
  station?: string;
  now?: () => number;
  /**
   * How long a state change of a reserved record keeps retrying while the database is away
   * (the board already acted on it); default 60 s. A reservation itself is never retried.
   */
  retryForMs?: number;
  /**
   * Told in words when the database stops answering this station and when it answers again,
   * with how long work waited for it: once each way (docs/decisions.md, "Production line").
   */
  onReachability?: (words: string) => void;
}

const INSERT_SQL = insertSql(PARAM);

/** Another station taking the same value first: the allocator picks again, this many times. */
const RESERVE_TRIES = 20;

export class PostgresAuditStore implements AuditStore {
  readonly engine = 'postgres' as const;
  readonly station: string;
  readonly location: string;
  private readonly pool: pg.Pool;
  /** Sequence numbers only (openPools). */
  private readonly counters: pg.Pool;
  private readonly now: () => number;
  private readonly retryForMs: number;
  private readonly reachability: Reachability;
  private closed = false;
  private runs: PostgresScenarioRunLog | undefined;
  /** Trigrams or prefixes, as the log was migrated; prefixes until it is open. */
  private text = new PostgresTextSearch(undefined);
  private readonly picks = new StationPicks();

  private constructor(options: PostgresStoreOptions) {
    this.station = stationName(options.station);
    this.location = redactUrl(options.url);
    this.now = options.now ?? Date.now;
    this.retryForMs = options.retryForMs ?? 60_000;
    this.reachability = new Reachability(this.location, options.onReachability);
    ({ pool: this.pool, counters: this.counters } = openPools(options, this.station));
  }

  /** Connects and brings the schema up to date before the first reservation. */
  static async open(options: PostgresStoreOptions): Promise<PostgresAuditStore> {
    const store = new PostgresAuditStore(options);
    try {
      await store.migrate();
      store.text = await PostgresTextSearch.open(store.pool);
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  reserve(input: ReserveInput): Promise<ProvisioningRecord> {
    return this.reachability.guard(async () => {
      // A busy board is caught by its unique index on insert; a PSDI given as such is checked
      // first so the refusal can name its holder.
      if (typeof input.psdi === 'string') {
        const holder = await this.holderOf(input.product.id, input.psdi);
        if (holder !== undefined) throw new PsdiTakenError(input.product.id, input.psdi, holder);
      }
      for (let tries = 1; ;) {
        // This station's reservations of the product pick apart from each other (StationPicks),
        // so only another station can take the same value first.
        const attempt =
          typeof input.psdi === 'string' ? undefined : this.picks.begin(input.product.id);
        try {
          const psdi =
            typeof input.psdi === 'string'
              ? input.psdi
              : await input.psdi.allocate(
                  postgresAllocationContext(
                    { pool: this.pool, counters: this.counters },
                    input.product.id,
                    attempt,
                  ),
                );
          // Another of this station's reservations took the same pick a moment earlier.
          if (attempt && !attempt.hold(psdi)) continue;
          try {
            const { rows } = await this.pool.query<RecordRow>(
              `${INSERT_SQL} RETURNING *`,
              reservedValues(input, psdi, this.now(), this.station),
            );
            this.text.wrote();
            return toRecord(rows[0] as RecordRow);
          } catch (err) {
            const constraint = uniqueViolation(err);
            if (constraint === 'provisioning_records_busy_board') await this.refuseBusyBoard(input);
            if (constraint !== 'provisioning_records_held_psdi') throw err;
            // Another station committed the same value a moment earlier.
            if (typeof input.psdi === 'string' || tries++ >= RESERVE_TRIES)
              throw new PsdiTakenError(
                input.product.id,
                psdi,
                await this.holderOf(input.product.id, psdi),
              );
          }
        } finally {
          attempt?.end();
        }
      }
    });
  }

  recordRefused(
    input: ReserveInput & { psdi: string } & Omit<FailureInput, 'psdiHeld'>,
  ): Promise<ProvisioningRecord> {
    return this.reachability.guard(async () => {
      const { rows } = await this.pool.query<RecordRow>(
        `${INSERT_SQL} RETURNING *`,
        refusedValues(input, this.now(), this.station),
      );
      this.text.wrote();
      return toRecord(rows[0] as RecordRow);
    });
  }

  markWritten(id: number, attempts?: number): Promise<ProvisioningRecord> {
    return this.transition(
      id,
      STORE_CALLS.markWritten.transition,
      `UPDATE provisioning_records SET state = 'written', written_at = $2, updated_at = $2,
         failed_step = NULL, error = NULL, attempts = COALESCE($3, attempts)`,
      () => [this.now(), attempts ?? null],
    );
  }

  markVerified(
    id: number,
    attempts?: number,
    history?: RecordEvent[],
  ): Promise<ProvisioningRecord> {
    return this.transition(
      id,
      STORE_CALLS.markVerified.transition,
      `UPDATE provisioning_records SET state = 'verified', verified_at = $2, updated_at = $2,
         attempts = COALESCE($3, attempts), history = COALESCE($4, history)`,
      () => [this.now(), attempts ?? null, history ? JSON.stringify(history) : null],
    );
  }

  markFailed(id: number, failure: FailureInput): Promise<ProvisioningRecord> {
    return this.transition(
      id,
      STORE_CALLS.markFailed.transition,
      `UPDATE provisioning_records SET state = 'failed', updated_at = $2, failed_step = $3,
         error = $4, psdi_held = CASE WHEN psdi_held = 1 AND $5 THEN 1 ELSE 0 END,
         attempts = COALESCE($6, attempts), psdi_returned = $7, history = COALESCE($8, history)`,
      () => [
        this.now(),
        failure.step,
        failure.error,
        failureKeepsPsdi(failure),
        failure.attempts ?? null,
        failure.returnPsdi ? 1 : 0,
        failure.history ? JSON.stringify(failure.history) : null,
      ],
    );
  }

  release(
    id: number,
    reason: string,
    options: { returnPsdi?: boolean } = {},
  ): Promise<ProvisioningRecord> {
    return this.transition(
      id,
      STORE_CALLS.release.transition,
      `UPDATE provisioning_records SET state = 'released', updated_at = $2, psdi_held = 0,
         psdi_returned = GREATEST(psdi_returned, $4), error = COALESCE(error, $3)`,
      () => [this.now(), reason, options.returnPsdi ? 1 : 0],
    );
  }

  async releaseHeld(id: number, input: ReleaseInput): Promise<ProvisioningRecord> {
    const record = await this.reachability.guard(() => this.read(id));
    if (!record) throw new RecordNotFoundError(id);
    const refusal = transitionRefusal(record, STORE_CALLS.releaseHeld.transition);
    if (refusal) throw refusal;
    // The condition repeats the check: a record changed since the read is refused, not released.
    return this.transition(
      id,
      STORE_CALLS.releaseHeld.transition,
      `UPDATE provisioning_records SET state = 'released', updated_at = $2, psdi_held = 0,
         psdi_returned = 1, history = $3`,
      () => {
        const at = this.now();
        const event = releaseEvent(record, input, at, this.station);
        return [at, JSON.stringify([...record.history, event])];
      },
    );
  }

  peekPsdi(productId: string, allocator: PsdiAllocator): Promise<string> {
    return this.reachability.guard(() =>
      allocator.allocate(
        peekContext(
          postgresAllocationContext({ pool: this.pool, counters: this.counters }, productId),
          async (key) => {
            const { rows } = await this.pool.query<{ value: string }>(STATION.counter, [
              productId,
              key,
            ]);
            return rows[0] ? Number(rows[0].value) : undefined;
          },
        ),
      ),
    );
  }

  get(id: number): Promise<ProvisioningRecord | undefined> {
    return this.reachability.guard(() => this.read(id));
  }

  listUnfinished(): Promise<ProvisioningRecord[]> {
    return this.reachability.guard(async () => {
      const { rows } = await this.pool.query<RecordRow>(STATION.unfinished);
      return rows.map(toRecord);
    });
  }

  verifiedPsdi(productId: string, boardId: string): Promise<string | undefined> {
    return this.reachability.guard(async () => {
      const { rows } = await this.pool.query<{ psdi: string }>(STATION.verifiedPsdi, [
        productId,
        boardId,
      ]);
      return rows[0]?.psdi;
    });
  }

  async search(query: AuditQuery = {}): Promise<AuditPage> {
    const q = auditQuerySchema.parse(query);
    return this.reachability.guard(async () => {
      const { count: counted, page } = searchSql(q, this.text.dialect);
      const { rows } = await this.pool.query<RecordRow>(page.sql, page.params);
      const count =
        countFromPage(q, rows) ??
        Number((await this.pool.query<{ n: string }>(counted.sql, counted.params)).rows[0]?.n ?? 0);
      return toPage(rows, count, q.limit, this.text.match);
    });
  }

  exportCsv(query: ExportQuery = {}): AsyncIterable<CsvChunk> {
    const q = auditQuerySchema.parse(query);
    return csvChunks((after) =>
      this.reachability.guard(async () => {
        const { where, params } = whereClause(q, this.text.dialect, {
          cursor: false,
        });
        const n = params.length;
        const keyset = after
          ? `${where ? `${where} AND` : 'WHERE'} (created_at, id) > ($${n + 1}, $${n + 2})`
          : where;
        const { rows } = await this.pool.query<RecordRow>(
          `SELECT * FROM provisioning_records ${keyset} ORDER BY created_at, id
           LIMIT ${EXPORT_CHUNK_ROWS}`,
          after ? [...params, after.createdAt, after.id] : params,
        );
        return csvPage(rows.map(toRecord));
      }),
    );
  }

  lineStatus(): Promise<LineStatus> {
    return this.reachability.guard(async () => {
      const at = this.now();
      const since = at - HOUR_MS;
      const sql = lineSql(PARAM, PG_VIA);
      type Counted = { station: string; n: string };
      const [stations, verified, failed, inFlight, unfinished, unfinishedCount] = await Promise.all(
        [
          this.pool.query<{ station: string; last_seen_at: string }>(sql.stations),
          this.pool.query<Counted>(sql.verified, [since]),
          this.pool.query<Counted & { step: string | null }>(sql.failed, [since]),
          this.pool.query<Counted>(sql.inFlight),
          this.pool.query<RecordRow>(sql.unfinished),
          this.pool.query<{ n: string }>(sql.unfinishedCount),
        ],
      );
      return toLineStatus(at, {
        stations: stations.rows,
        verified: verified.rows,
        failed: failed.rows,
        inFlight: inFlight.rows,
        unfinished: unfinished.rows,
        unfinishedCount: unfinishedCount.rows[0]?.n ?? 0,
      });
    });
  }

  records(afterId: number, batch: number): Promise<ProvisioningRecord[]> {
    return this.reachability.guard(async () => {
      const { rows } = await this.pool.query<RecordRow>(
        'SELECT * FROM provisioning_records WHERE id > $1 ORDER BY id LIMIT $2',
        [afterId, batch],
      );
      return rows.map(toRecord);
    });
  }

  copyFrom(sourceId: string, records: readonly ProvisioningRecord[]): Promise<CopyResult> {
    return this.reachability.guard(async () => {
      const result: CopyResult = { copied: 0, alreadyCopied: 0, refused: [] };
      for (const r of records) {
        try {
          const { rowCount } = await this.pool.query(
            `${INSERT_SQL} ON CONFLICT (origin) WHERE origin IS NOT NULL DO NOTHING`,
            copyValues(r, `${sourceId}:${r.id}`),
          );
          if (rowCount) {
            result.copied++;
            this.text.wrote();
          } else result.alreadyCopied++;
        } catch (err) {
          const constraint = uniqueViolation(err);
          if (!constraint) throw err;
          result.refused.push({
            id: r.id,
            reason:
              constraint === 'provisioning_records_held_psdi'
                ? `PSDI "${r.psdi}" is held here already`
                : `board ${r.boardAddress} has an unfinished record here already`,
          });
        }
      }
      return result;
    });
  }

  sourceId(): Promise<string> {
    return this.reachability.guard(async () => {
      const { rows } = await this.pool.query<{ value: string }>(
        `INSERT INTO audit_meta (key, value) VALUES ('source_id', $1)
         ON CONFLICT (key) DO UPDATE SET value = audit_meta.value RETURNING value`,
        [randomUUID()],
      );
      return (rows[0] as { value: string }).value;
    });
  }

  /** The dry-run log on this store's pool; this station's unfinished runs become interrupted. */
  scenarioRuns(): Promise<ScenarioRunLog> {
    return this.reachability.guard(async () => {
      this.runs ??= await PostgresScenarioRunLog.open(this.pool, this.station, this.now);
      return this.runs;
    });
  }

  ping(): Promise<void> {
    return this.reachability.guard(async () => {
      await this.pool.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.text.stop();
    await Promise.all([this.pool.end(), this.counters.end()]);
  }

  private async migrate(): Promise<void> {
    await this.reachability.guard(async () => {
      const client = await this.pool.connect();
      try {
        await migratePostgres(client, this.location);
      } finally {
        client.release();
      }
    });
  }

  /**
   * One UPDATE (`set`, its SET clause) under `rule` as its condition. When it changes nothing,
   * the record says why. A board already acted on this change, so a lost connection is retried
   * until the database is back; a retry that finds the change already made (its first answer
   * was lost) returns the record as it is.
   */
  private async transition(
    id: number,
    rule: Transition,
    set: string,
    params: () => unknown[],
  ): Promise<ProvisioningRecord> {
    const update = `${set} WHERE id = $1 AND ${transitionCondition(rule)} RETURNING *`;
    return this.reachability.retry(this.retryForMs, async (retried) => {
      const { rows } = await this.pool.query<RecordRow>(update, [id, ...params()]);
      if (rows[0]) return toRecord(rows[0]);
      const record = await this.read(id);
      if (!record) throw new RecordNotFoundError(id);
      if (retried && record.state === rule.to) return record;
      throw (
        transitionRefusal(record, rule) ?? new InvalidTransitionError(id, record.state, rule.to)
      );
    });
  }

  private async read(id: number): Promise<ProvisioningRecord | undefined> {
    const { rows } = await this.pool.query<RecordRow>(STATION.record, [id]);
    return rows[0] && toRecord(rows[0]);
  }

  private async refuseBusyBoard(input: ReserveInput): Promise<void> {
    const { rows } = await this.pool.query<{ id: string; psdi: string }>(STATION.busyBoard, [
      input.product.id,
      input.board.address,
    ]);
    const busy = rows[0];
    if (busy)
      throw new BoardBusyError(input.product.id, input.board.address, Number(busy.id), busy.psdi);
  }

  private async holderOf(productId: string, psdi: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ id: string }>(STATION.holder, [productId, psdi]);
    return rows[0] ? Number(rows[0].id) : undefined;
  }
}
