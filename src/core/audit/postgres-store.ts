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
  StoreUnavailableError,
} from './errors';
import { csvChunks, csvPage, EXPORT_CHUNK_ROWS, type CsvChunk } from './csv-export';
import { PostgresScenarioRunLog } from './postgres-scenario-runs';
import { StationPicks, type PickAttempt } from './station-picks';
import { LEGACY_BENCH_TO_SPEC, SCENARIO_RUN_COLUMNS, type ScenarioRunLog } from './scenario-runs';
import {
  BOARD_ADDRESS_INDEX,
  copyValues,
  countFromPage,
  HOUR_MS,
  insertSql,
  likeAnywhere,
  likePrefix,
  lineSql,
  MILLION_RECORD_INDEXES,
  peekContext,
  refusedValues,
  reservedValues,
  RETURNED_POOL_BACKFILL,
  RETURNED_POOL_RECOMPUTE,
  searchSql,
  stationSql,
  toLineStatus,
  toPage,
  toRecord,
  whereClause,
  type RecordRow,
  type SearchDialect,
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
  TRANSITIONS,
  type Transition,
} from './transitions';
import {
  stationName,
  type AllocationContext,
  type AuditStore,
  type CopyResult,
  type ExportQuery,
  type FailureInput,
  type ProvisioningRecord,
  type PsdiAllocator,
  type ReleaseInput,
  type ReserveInput,
} from './store';

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database`; a password in it is used but never shown. */
  url: string;
  /** The password from the keychain, kept out of the URL so the URL can be shown and saved. */
  password?: string;
  station?: string;
  now?: () => number;
  /** No statement, lock or connection attempt waits longer than this; default 5 s. */
  timeoutMs?: number;
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
  /** Connections this station keeps; default 8. */
  maxConnections?: number;
}

/**
 * Versioned schema: entry n-1 takes the database from version n-1 to n, as SQL or as steps on
 * the migrating connection (inside the migration's transaction).
 */
const MIGRATIONS = [
  `
CREATE TABLE provisioning_records (
  id BIGSERIAL PRIMARY KEY,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  written_at BIGINT,
  verified_at BIGINT,
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
  psdi_held SMALLINT NOT NULL CHECK (psdi_held IN (0, 1)),
  failed_step TEXT,
  error TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  origin TEXT,
  CHECK (psdi_held = 0 OR state <> 'released')
);
CREATE UNIQUE INDEX provisioning_records_held_psdi
  ON provisioning_records (product_id, psdi) WHERE psdi_held = 1;
CREATE UNIQUE INDEX provisioning_records_busy_board
  ON provisioning_records (product_id, board_address) WHERE state IN ('reserved', 'written');
CREATE UNIQUE INDEX provisioning_records_origin ON provisioning_records (origin) WHERE origin IS NOT NULL;
CREATE INDEX provisioning_records_created ON provisioning_records (created_at, id);
CREATE INDEX provisioning_records_product ON provisioning_records (product_id, psdi);
CREATE INDEX provisioning_records_state ON provisioning_records (state);
CREATE INDEX provisioning_records_board ON provisioning_records (product_id, board_id, state, id);
CREATE INDEX provisioning_records_station ON provisioning_records (station, created_at);
CREATE TABLE psdi_counters (
  product_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (product_id, key)
);
CREATE TABLE audit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`,
  // 2: dry runs, beside the records (src/core/audit/scenario-runs.ts).
  `
CREATE TABLE scenario_runs (
  id BIGSERIAL PRIMARY KEY,
  started_at BIGINT NOT NULL,
  ended_at BIGINT,
${SCENARIO_RUN_COLUMNS});
CREATE INDEX scenario_runs_product ON scenario_runs (product_id, id);
CREATE TABLE scenario_run_events (
  run_id BIGINT NOT NULL REFERENCES scenario_runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`,
  // 3: every try and operator action on a record, PSDIs given back to the pool, board names.
  `
ALTER TABLE provisioning_records ADD COLUMN psdi_returned SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE provisioning_records ADD COLUMN history TEXT NOT NULL DEFAULT '[]';
ALTER TABLE provisioning_records ADD COLUMN board_name TEXT;
`,
  // 4: a year on the line — every station call and UI read on an index made for it, the pool of
  // returned PSDIs kept by a trigger, and trigram text search where pg_trgm can be had
  // (docs/decisions.md, "The audit log at a million records").
  async (client: pg.PoolClient) => {
    await client.query(`${MILLION_RECORD_INDEXES}
CREATE TABLE returned_psdis (
  product_id TEXT NOT NULL,
  psdi TEXT NOT NULL,
  first_id BIGINT NOT NULL,
  PRIMARY KEY (product_id, psdi)
);
CREATE INDEX returned_psdis_order ON returned_psdis (product_id, first_id);
${RETURNED_POOL_BACKFILL};
CREATE FUNCTION devicebench_returned_pool() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${RETURNED_POOL_RECOMPUTE}
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER provisioning_records_pool_insert AFTER INSERT ON provisioning_records
  FOR EACH ROW EXECUTE FUNCTION devicebench_returned_pool();
CREATE TRIGGER provisioning_records_pool_update AFTER UPDATE OF psdi_returned ON provisioning_records
  FOR EACH ROW WHEN (OLD.psdi_returned <> NEW.psdi_returned)
  EXECUTE FUNCTION devicebench_returned_pool();
`);
    // pg_trgm ships with PostgreSQL and is trusted (a database owner may create it), but a
    // server may lack it: then text search matches the start of the PSDI or address instead.
    // fastupdate off: each reservation adds its own trigrams, and none ever waits on a flush of
    // GIN's pending list (with it on, a line of stations saw reservations stall and boards time
    // out).
    await client.query('SAVEPOINT text_search');
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await client.query(
        `CREATE INDEX ${TRIGRAM_INDEX} ON provisioning_records
           USING gin ((${SEARCH_TEXT}) gin_trgm_ops) WITH (fastupdate = off)`,
      );
      await client.query('RELEASE SAVEPOINT text_search');
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT text_search');
      await client.query(`
CREATE INDEX provisioning_records_psdi_prefix ON provisioning_records (lower(psdi) text_pattern_ops);
CREATE INDEX provisioning_records_address_prefix
  ON provisioning_records (lower(board_address) text_pattern_ops);
`);
    }
  },
  // 5: adapter specs — a dry run keeps the adapter list it ran on as spec text (the old
  // simulated/hardware CHECK goes), a record the adapter its board was written through.
  `
ALTER TABLE scenario_runs DROP CONSTRAINT IF EXISTS scenario_runs_bench_check;
UPDATE scenario_runs SET ${LEGACY_BENCH_TO_SPEC};
ALTER TABLE provisioning_records ADD COLUMN adapter TEXT;
`,
  // 6: one board's records by its address (the failure path after a provisioning run, verify).
  BOARD_ADDRESS_INDEX,
  // 7: a reservation appends its trigrams to the index's pending list; the stations move them
  // into the index in bulk about once a second (cleanTextIndexSoon), off the reserve path
  // (docs/decisions.md, "Reservations fast again").
  `ALTER INDEX IF EXISTS provisioning_records_text SET (fastupdate = on);`,
  // 8: the image flashed to a board before it was provisioned (`provision --image`).
  `ALTER TABLE provisioning_records ADD COLUMN image_hash TEXT;`,
];

/** The three searched columns as one value for the trigram index; chr(31) keeps them apart. */
const SEARCH_TEXT = `psdi || chr(31) || board_address || chr(31) || COALESCE(board_name, '')`;
const TRIGRAM_INDEX = 'provisioning_records_text';

/** PostgreSQL's n-th bound parameter. */
const PARAM = (n: number) => `$${n}`;

/** A station's reads (docs/decisions.md, "The audit log at a million records"). */
export const PG_VIA = () => 'provisioning_records';
export const STATION = stationSql(PARAM, PG_VIA);

export const TRIGRAM_SEARCH: SearchDialect = {
  placeholder: PARAM,
  text: (text, bind) => `(${SEARCH_TEXT}) ILIKE ${bind(likeAnywhere(text))}`,
};

/** Without pg_trgm: the start of the PSDI or address, on their lower-case btree indexes. */
const PREFIX_SEARCH: SearchDialect = {
  placeholder: PARAM,
  text: (text, bind) => {
    const pattern = bind(likePrefix(text.toLowerCase()));
    return `(lower(psdi) LIKE ${pattern} OR lower(board_address) LIKE ${pattern})`;
  },
};

/** Any constant: the advisory lock under which one station at a time migrates. */
const MIGRATION_LOCK = 7_146_218;

const INSERT_SQL = insertSql(PARAM);

/**
 * How long a record's trigrams wait in the text index's pending list before a station moves
 * them into the index: searches read the pending list row by row, so it stays about a second of
 * the line's writes long.
 */
const TEXT_CLEAN_MS = 1_000;

/** Another station taking the same value first: the allocator picks again, this many times. */
const RESERVE_TRIES = 20;

export class PostgresAuditStore implements AuditStore {
  readonly engine = 'postgres' as const;
  readonly station: string;
  readonly location: string;
  private readonly pool: pg.Pool;
  /**
   * Connections that commit without waiting for the WAL flush, for sequence numbers only. Safe:
   * a record that uses a number is committed after it and waits for the flush, which covers the
   * number's WAL too; a number lost in a crash was used by no committed record.
   */
  private readonly counters: pg.Pool;
  private readonly now: () => number;
  private readonly retryForMs: number;
  private closed = false;
  private runs: PostgresScenarioRunLog | undefined;
  /** Whether the trigram index exists (pg_trgm was available when the log was migrated). */
  private trigram = false;
  private readonly picks = new StationPicks();
  /** The next move of the text index's pending list into the index, once one is due. */
  private textClean: NodeJS.Timeout | undefined;
  /** When the database last stopped answering, while it still does not. */
  private unreachableSince: number | undefined;

  private constructor(private readonly options: PostgresStoreOptions) {
    this.station = stationName(options.station);
    this.location = redactUrl(options.url);
    this.now = options.now ?? Date.now;
    this.retryForMs = options.retryForMs ?? 60_000;
    const timeoutMs = options.timeoutMs ?? 5_000;
    this.pool = new pg.Pool({
      // pg lets the URL's (empty) password win over a `password` option, so it goes into the
      // URL handed to pg, and only there.
      connectionString: urlWithPassword(options.url, options.password),
      max: options.maxConnections ?? 8,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      lock_timeout: timeoutMs,
      idle_in_transaction_session_timeout: timeoutMs * 2,
      application_name: `devicebench ${this.station}`.slice(0, 63),
    });
    this.counters = new pg.Pool({
      connectionString: urlWithPassword(options.url, options.password),
      max: 2,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      lock_timeout: timeoutMs,
      options: '-c synchronous_commit=off',
      application_name: `devicebench ${this.station} counters`.slice(0, 63),
    });
    // An idle connection the server dropped (restart, failover) must not crash the app; the
    // next query reconnects or reports the store unavailable.
    this.pool.on('error', () => undefined);
    this.counters.on('error', () => undefined);
  }

  /** Connects and brings the schema up to date before the first reservation. */
  static async open(options: PostgresStoreOptions): Promise<PostgresAuditStore> {
    const store = new PostgresAuditStore(options);
    try {
      await store.migrate();
      const { rows } = await store.pool.query<{ found: boolean }>(
        'SELECT to_regclass($1) IS NOT NULL AS found',
        [TRIGRAM_INDEX],
      );
      store.trigram = rows[0]?.found === true;
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  reserve(input: ReserveInput): Promise<ProvisioningRecord> {
    return this.guard(async () => {
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
              : await input.psdi.allocate(this.allocationContext(input.product.id, attempt));
          // Another of this station's reservations took the same pick a moment earlier.
          if (attempt && !attempt.hold(psdi)) continue;
          try {
            const { rows } = await this.pool.query<RecordRow>(
              `${INSERT_SQL} RETURNING *`,
              reservedValues(input, psdi, this.now(), this.station),
            );
            this.cleanTextIndexSoon();
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
    return this.guard(async () => {
      const { rows } = await this.pool.query<RecordRow>(
        `${INSERT_SQL} RETURNING *`,
        refusedValues(input, this.now(), this.station),
      );
      this.cleanTextIndexSoon();
      return toRecord(rows[0] as RecordRow);
    });
  }

  markWritten(id: number, attempts?: number): Promise<ProvisioningRecord> {
    return this.transition(
      id,
      TRANSITIONS.markWritten,
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
      TRANSITIONS.markVerified,
      `UPDATE provisioning_records SET state = 'verified', verified_at = $2, updated_at = $2,
         attempts = COALESCE($3, attempts), history = COALESCE($4, history)`,
      () => [this.now(), attempts ?? null, history ? JSON.stringify(history) : null],
    );
  }

  markFailed(id: number, failure: FailureInput): Promise<ProvisioningRecord> {
    return this.transition(
      id,
      TRANSITIONS.markFailed,
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
      TRANSITIONS.release,
      `UPDATE provisioning_records SET state = 'released', updated_at = $2, psdi_held = 0,
         psdi_returned = GREATEST(psdi_returned, $4), error = COALESCE(error, $3)`,
      () => [this.now(), reason, options.returnPsdi ? 1 : 0],
    );
  }

  async releaseHeld(id: number, input: ReleaseInput): Promise<ProvisioningRecord> {
    const record = await this.guard(() => this.read(id));
    if (!record) throw new RecordNotFoundError(id);
    const refusal = transitionRefusal(record, TRANSITIONS.releaseHeld);
    if (refusal) throw refusal;
    // The condition repeats the check: a record changed since the read is refused, not released.
    return this.transition(
      id,
      TRANSITIONS.releaseHeld,
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
    return this.guard(() =>
      allocator.allocate(
        peekContext(this.allocationContext(productId), async (key) => {
          const { rows } = await this.pool.query<{ value: string }>(STATION.counter, [
            productId,
            key,
          ]);
          return rows[0] ? Number(rows[0].value) : undefined;
        }),
      ),
    );
  }

  get(id: number): Promise<ProvisioningRecord | undefined> {
    return this.guard(() => this.read(id));
  }

  listUnfinished(): Promise<ProvisioningRecord[]> {
    return this.guard(async () => {
      const { rows } = await this.pool.query<RecordRow>(STATION.unfinished);
      return rows.map(toRecord);
    });
  }

  verifiedPsdi(productId: string, boardId: string): Promise<string | undefined> {
    return this.guard(async () => {
      const { rows } = await this.pool.query<{ psdi: string }>(STATION.verifiedPsdi, [
        productId,
        boardId,
      ]);
      return rows[0]?.psdi;
    });
  }

  async search(query: AuditQuery = {}): Promise<AuditPage> {
    const q = auditQuerySchema.parse(query);
    return this.guard(async () => {
      const { count: counted, page } = searchSql(q, this.trigram ? TRIGRAM_SEARCH : PREFIX_SEARCH);
      const { rows } = await this.pool.query<RecordRow>(page.sql, page.params);
      const count =
        countFromPage(q, rows) ??
        Number((await this.pool.query<{ n: string }>(counted.sql, counted.params)).rows[0]?.n ?? 0);
      return toPage(rows, count, q.limit, this.trigram ? 'substring' : 'prefix');
    });
  }

  exportCsv(query: ExportQuery = {}): AsyncIterable<CsvChunk> {
    const q = auditQuerySchema.parse(query);
    return csvChunks((after) =>
      this.guard(async () => {
        const { where, params } = whereClause(q, this.trigram ? TRIGRAM_SEARCH : PREFIX_SEARCH, {
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
    return this.guard(async () => {
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
    return this.guard(async () => {
      const { rows } = await this.pool.query<RecordRow>(
        'SELECT * FROM provisioning_records WHERE id > $1 ORDER BY id LIMIT $2',
        [afterId, batch],
      );
      return rows.map(toRecord);
    });
  }

  copyFrom(sourceId: string, records: readonly ProvisioningRecord[]): Promise<CopyResult> {
    return this.guard(async () => {
      const result: CopyResult = { copied: 0, alreadyCopied: 0, refused: [] };
      for (const r of records) {
        try {
          const { rowCount } = await this.pool.query(
            `${INSERT_SQL} ON CONFLICT (origin) WHERE origin IS NOT NULL DO NOTHING`,
            copyValues(r, `${sourceId}:${r.id}`),
          );
          if (rowCount) {
            result.copied++;
            this.cleanTextIndexSoon();
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
    return this.guard(async () => {
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
    return this.guard(async () => {
      this.runs ??= await PostgresScenarioRunLog.open(this.pool, this.station, this.now);
      return this.runs;
    });
  }

  ping(): Promise<void> {
    return this.guard(async () => {
      await this.pool.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.textClean);
    await Promise.all([this.pool.end(), this.counters.end()]);
  }

  private async migrate(): Promise<void> {
    await this.guard(async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        // Stations opening at once: one migrates, the others wait and find it done.
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS devicebench_migrations (
             version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`,
        );
        const { rows } = await client.query<{ v: number | null }>(
          'SELECT MAX(version) AS v FROM devicebench_migrations',
        );
        const version = rows[0]?.v ?? 0;
        if (version > MIGRATIONS.length)
          throw new Error(
            `${this.location}: audit database version ${version} is newer than this app understands (${MIGRATIONS.length})`,
          );
        for (let v = version; v < MIGRATIONS.length; v++) {
          const step = MIGRATIONS[v] as string | ((client: pg.PoolClient) => Promise<void>);
          if (typeof step === 'string') await client.query(step);
          else await step(client);
          await client.query(
            'INSERT INTO devicebench_migrations (version, applied_at) VALUES ($1, $2)',
            [v + 1, Date.now()],
          );
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
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
    const deadline = performance.now() + this.retryForMs;
    let retried = false;
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        return await this.guard(async () => {
          const { rows } = await this.pool.query<RecordRow>(update, [id, ...params()]);
          if (rows[0]) return toRecord(rows[0]);
          const record = await this.read(id);
          if (!record) throw new RecordNotFoundError(id);
          if (retried && record.state === rule.to) return record;
          throw (
            transitionRefusal(record, rule) ?? new InvalidTransitionError(id, record.state, rule.to)
          );
        });
      } catch (err) {
        if (!(err instanceof StoreUnavailableError) || performance.now() + delayMs > deadline)
          throw err;
        retried = true;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  /**
   * Moves the text index's pending list into the index in one bulk pass, a second after this
   * station's first write since the last pass. A station that may not (it does not own the
   * index) leaves it to the others and to autovacuum; a reservation that fills the list to
   * `gin_pending_list_limit` still empties it itself.
   */
  private cleanTextIndexSoon(): void {
    if (!this.trigram || this.textClean || this.closed) return;
    this.textClean = setTimeout(() => {
      this.textClean = undefined;
      if (this.closed) return;
      this.pool
        .query('SELECT gin_clean_pending_list($1::regclass)', [TRIGRAM_INDEX])
        .catch(() => undefined);
    }, TEXT_CLEAN_MS);
    // A finished command does not wait for the next pass.
    this.textClean.unref();
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

  /**
   * The allocator's questions for one try of a reservation (`attempt`; none for a preview):
   * values this station's other reservations hold are left out, and a list value is held for
   * this try as it is answered, so two of them never get the same one.
   */
  private allocationContext(productId: string, attempt?: PickAttempt): AllocationContext {
    const heldElsewhere = () => attempt?.heldByOthers() ?? new Set<string>();
    return {
      productId,
      wasRecorded: async (psdi) =>
        (await this.pool.query(STATION.wasRecorded, [productId, psdi])).rowCount !== 0,
      returned: async () => {
        const { rows } = await this.pool.query<{ psdi: string }>(STATION.returned, [productId]);
        const held = heldElsewhere();
        return rows.map((r) => r.psdi).filter((psdi) => !held.has(psdi));
      },
      // One statement: the row lock lasts only as long as the upsert, so stations taking
      // numbers at once queue for microseconds, not for each other's reservations.
      takeNumber: async (key, start) => {
        const { rows } = await this.counters.query<{ n: string }>(
          `INSERT INTO psdi_counters (product_id, key, value) VALUES ($1, $2, $3::bigint + 1)
           ON CONFLICT (product_id, key)
             DO UPDATE SET value = GREATEST(psdi_counters.value, $3::bigint) + 1
           RETURNING value - 1 AS n`,
          [productId, key, start],
        );
        return Number((rows[0] as { n: string }).n);
      },
      // As many free values as this station has reservations picking, so each can hold its own
      // from one answer; asked again only if the others held them all in the meantime.
      firstFree: async (values) => {
        for (;;) {
          const held = heldElsewhere();
          const { rows } = await this.pool.query<{ psdi: string }>(
            `SELECT v.psdi FROM unnest($2::text[]) WITH ORDINALITY AS v(psdi, i)
             WHERE NOT EXISTS (SELECT 1 FROM provisioning_records r
               WHERE r.product_id = $1 AND r.psdi = v.psdi AND r.psdi_held = 1)
             ORDER BY v.i LIMIT $3`,
            [productId, values.filter((psdi) => !held.has(psdi)), attempt?.contenders() ?? 1],
          );
          if (!attempt || rows.length === 0) return rows[0]?.psdi;
          const mine = rows.find((r) => attempt.hold(r.psdi));
          if (mine) return mine.psdi;
        }
      },
    };
  }

  /**
   * Connection failures become StoreUnavailableError; every other error passes unchanged. The
   * first failure and the first answer after it are said (`onReachability`), so a station
   * whose work waits inside a retry never goes quiet.
   */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await work();
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      const unavailable = new StoreUnavailableError(this.location, err);
      if (this.unreachableSince === undefined) {
        this.unreachableSince = performance.now();
        this.options.onReachability?.(`${unavailable.message}; work waits for it`);
      }
      throw unavailable;
    }
    if (this.unreachableSince !== undefined) {
      const waited = (performance.now() - this.unreachableSince) / 1000;
      this.unreachableSince = undefined;
      this.options.onReachability?.(
        `the audit log at ${this.location} is back; work waited ${waited.toFixed(1)} s for it`,
      );
    }
    return value;
  }
}

export function urlWithPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** The URL as it may be shown or saved: without a password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'an invalid PostgreSQL URL';
  }
}

function uniqueViolation(err: unknown): string | undefined {
  if (err instanceof pg.DatabaseError && err.code === '23505') return err.constraint ?? '';
  return undefined;
}

/** Errors that say nothing about the statement, only that the server could not answer it. */
function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Class 08: connection exception; 57P0x: the server is shutting down or starting up.
    if (code.startsWith('08') || /^57P0[1-3]$/.test(code)) return true;
    if (
      ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(
        code,
      )
    )
      return true;
  }
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is/i.test(
    err.message,
  );
}
