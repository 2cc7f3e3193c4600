// The audit log's tables, indexes and migrations, declared once for both engines. Each engine
// keeps the version numbers it shipped with, so a log any earlier release made opens and
// migrates as before: a version is a list of the changes below, and each engine applies its
// versions under its own lock (SqliteAuditStore.migrate, migratePostgres). What differs between
// the engines is their spelling (Dialect) and what arbitrates between writers (docs/decisions.md,
// "What the two audit engines share"). A shipped change never changes.

export type Engine = 'sqlite' | 'postgres';

/** How an engine spells the schema's types. */
interface Dialect {
  engine: Engine;
  /** An id the database hands out, rising. */
  serial: string;
  /** Milliseconds since the epoch, or another count past 32 bits. */
  bigint: string;
  /** 0 or 1. */
  flag: string;
}

const DIALECTS: Record<Engine, Dialect> = {
  sqlite: {
    engine: 'sqlite',
    serial: 'INTEGER PRIMARY KEY AUTOINCREMENT',
    bigint: 'INTEGER',
    flag: 'INTEGER',
  },
  postgres: {
    engine: 'postgres',
    serial: 'BIGSERIAL PRIMARY KEY',
    bigint: 'BIGINT',
    flag: 'SMALLINT',
  },
};

/**
 * One step of a version: SQL, or SQL that needs something the server may lack (an extension)
 * and what to do instead where it fails. PostgreSQL tries the first under a savepoint.
 */
type MigrationStep = string | { attempt: string[]; otherwise: string };

/** A record reconcile still has work on (what listUnfinished returns), as SQL. */
export const UNFINISHED_SQL = `(state IN ('reserved', 'written') OR (state = 'failed' AND psdi_held = 1))`;

/** The three searched columns as one value for PostgreSQL's trigram index; chr(31) keeps them apart. */
export const SEARCH_TEXT = `psdi || chr(31) || board_address || chr(31) || COALESCE(board_name, '')`;
export const TRIGRAM_INDEX = 'provisioning_records_text';

/** The records and the PSDI counters, as the first release made them. */
const records = (d: Dialect) => `
CREATE TABLE IF NOT EXISTS provisioning_records (
  id ${d.serial},
  created_at ${d.bigint} NOT NULL,
  updated_at ${d.bigint} NOT NULL,
  written_at ${d.bigint},
  verified_at ${d.bigint},
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
  psdi_held ${d.flag} NOT NULL CHECK (psdi_held IN (0, 1)),
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
  value ${d.bigint} NOT NULL,
  PRIMARY KEY (product_id, key)
);`;

/**
 * A line: the board lookup of dry runs, station filters, copies keyed on their source, and this
 * log's own id for copies made from it.
 */
const line = `
ALTER TABLE provisioning_records ADD COLUMN origin TEXT;
CREATE UNIQUE INDEX provisioning_records_origin ON provisioning_records (origin) WHERE origin IS NOT NULL;
CREATE INDEX provisioning_records_board ON provisioning_records (product_id, board_id, state, id);
CREATE INDEX provisioning_records_station ON provisioning_records (station, created_at);
CREATE TABLE audit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`;

/**
 * At most one unfinished record per board. On PostgreSQL the index is unique and is what
 * refuses a second station's reservation; SQLite checks under its write lock, and the index
 * only serves that check.
 */
const busyBoard = (d: Dialect) => `
CREATE ${d.engine === 'postgres' ? 'UNIQUE ' : ''}INDEX provisioning_records_busy_board
  ON provisioning_records (product_id, board_address) WHERE state IN ('reserved', 'written');`;

/** Every try and operator action on a record, PSDIs given back to the pool, board names. */
const history = (d: Dialect) => `
ALTER TABLE provisioning_records ADD COLUMN psdi_returned ${d.flag} NOT NULL DEFAULT 0;
ALTER TABLE provisioning_records ADD COLUMN history TEXT NOT NULL DEFAULT '[]';
ALTER TABLE provisioning_records ADD COLUMN board_name TEXT;`;

/**
 * The pool entry of one (product, PSDI) recomputed from its records, for the row `NEW`: a PSDI
 * is in the pool when it has records and every one of them gave it back. One probe of the
 * (product_id, psdi) index, so a write costs the same however long the log.
 */
const RETURNED_POOL_RECOMPUTE = `
  DELETE FROM returned_psdis WHERE product_id = NEW.product_id AND psdi = NEW.psdi;
  INSERT INTO returned_psdis (product_id, psdi, first_id)
    SELECT product_id, psdi, MIN(id) FROM provisioning_records
    WHERE product_id = NEW.product_id AND psdi = NEW.psdi
    GROUP BY product_id, psdi HAVING MIN(psdi_returned) = 1`;

/** The pool of a log that had none (or was filled in bulk): every returned PSDI no record has used since. */
export const RETURNED_POOL_BACKFILL = `
  INSERT INTO returned_psdis (product_id, psdi, first_id)
    SELECT product_id, psdi, MIN(id) FROM provisioning_records
    GROUP BY product_id, psdi HAVING MIN(psdi_returned) = 1`;

/** Each engine's trigger syntax around RETURNED_POOL_RECOMPUTE. */
const POOL_TRIGGERS: Record<Engine, string> = {
  sqlite: `
CREATE TRIGGER provisioning_records_pool_insert AFTER INSERT ON provisioning_records
BEGIN ${RETURNED_POOL_RECOMPUTE}; END;
CREATE TRIGGER provisioning_records_pool_update AFTER UPDATE OF psdi_returned ON provisioning_records
  WHEN OLD.psdi_returned <> NEW.psdi_returned
BEGIN ${RETURNED_POOL_RECOMPUTE}; END;`,
  postgres: `
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
  EXECUTE FUNCTION devicebench_returned_pool();`,
};

/**
 * A year on the line: every station call and UI read on an index made for it, and the pool of
 * returned PSDIs kept by triggers, filled from the records already there (docs/decisions.md,
 * "The audit log at a million records").
 */
const millionRecords = (d: Dialect) => `
CREATE INDEX provisioning_records_unfinished ON provisioning_records (id) WHERE ${UNFINISHED_SQL};
CREATE INDEX provisioning_records_product_created ON provisioning_records (product_id, created_at, id);
DROP INDEX provisioning_records_state;
CREATE INDEX provisioning_records_state_created ON provisioning_records (state, created_at, id);
CREATE INDEX provisioning_records_station_updated ON provisioning_records (station, updated_at);
CREATE INDEX provisioning_records_verified_at ON provisioning_records (verified_at)
  WHERE state = 'verified';
CREATE INDEX provisioning_records_failed_at ON provisioning_records (updated_at)
  WHERE state = 'failed';
CREATE TABLE returned_psdis (
  product_id TEXT NOT NULL,
  psdi TEXT NOT NULL,
  first_id ${d.bigint} NOT NULL,
  PRIMARY KEY (product_id, psdi)
);
CREATE INDEX returned_psdis_order ON returned_psdis (product_id, first_id);
${RETURNED_POOL_BACKFILL};
${POOL_TRIGGERS[d.engine]}`;

/**
 * Text search on trigrams. SQLite: an FTS5 index over the three columns, kept by triggers.
 * PostgreSQL: pg_trgm, which ships with the server and a database owner may create, but a
 * server may lack; then the start of the PSDI or address is matched on lower-case indexes.
 * fastupdate off here: each reservation added its own trigrams (the "pending list" change
 * below turned it on again).
 */
const TEXT_SEARCH = {
  sqlite: `
CREATE VIRTUAL TABLE audit_text USING fts5(psdi, board_address, board_name,
  content = 'provisioning_records', content_rowid = 'id', tokenize = 'trigram');
INSERT INTO audit_text (audit_text) VALUES ('rebuild');
CREATE TRIGGER provisioning_records_text_insert AFTER INSERT ON provisioning_records
BEGIN
  INSERT INTO audit_text (rowid, psdi, board_address, board_name)
    VALUES (NEW.id, NEW.psdi, NEW.board_address, NEW.board_name);
END;
CREATE TRIGGER provisioning_records_text_update
  AFTER UPDATE OF psdi, board_address, board_name ON provisioning_records
BEGIN
  INSERT INTO audit_text (audit_text, rowid, psdi, board_address, board_name)
    VALUES ('delete', OLD.id, OLD.psdi, OLD.board_address, OLD.board_name);
  INSERT INTO audit_text (rowid, psdi, board_address, board_name)
    VALUES (NEW.id, NEW.psdi, NEW.board_address, NEW.board_name);
END;
CREATE TRIGGER provisioning_records_text_delete AFTER DELETE ON provisioning_records
BEGIN
  INSERT INTO audit_text (audit_text, rowid, psdi, board_address, board_name)
    VALUES ('delete', OLD.id, OLD.psdi, OLD.board_address, OLD.board_name);
END;`,
  postgres: {
    attempt: [
      'CREATE EXTENSION IF NOT EXISTS pg_trgm',
      `CREATE INDEX ${TRIGRAM_INDEX} ON provisioning_records
           USING gin ((${SEARCH_TEXT}) gin_trgm_ops) WITH (fastupdate = off)`,
    ],
    otherwise: `
CREATE INDEX provisioning_records_psdi_prefix ON provisioning_records (lower(psdi) text_pattern_ops);
CREATE INDEX provisioning_records_address_prefix
  ON provisioning_records (lower(board_address) text_pattern_ops);`,
  },
} satisfies Record<Engine, MigrationStep>;

/**
 * The columns of a dry run that read the same on both engines; scenarioRunsTable adds the id
 * and the times.
 */
export const SCENARIO_RUN_COLUMNS = `  product_id TEXT NOT NULL,
  product_name TEXT NOT NULL,
  device_id TEXT NOT NULL,
  board_name TEXT NOT NULL,
  bench TEXT NOT NULL,
  set_source TEXT NOT NULL CHECK (set_source IN ('saved', 'draft')),
  revision INTEGER NOT NULL,
  set_json TEXT NOT NULL,
  station TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
  stop_reason TEXT,
  results INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0
`;

/** The dry runs' table under `name` (SQLite rebuilds it under another name to drop a CHECK). */
export function scenarioRunsTable(engine: Engine, name = 'scenario_runs'): string {
  const d = DIALECTS[engine];
  return `CREATE TABLE IF NOT EXISTS ${name} (
  id ${d.serial},
  started_at ${d.bigint} NOT NULL,
  ended_at ${d.bigint},
${SCENARIO_RUN_COLUMNS});`;
}

/**
 * The dry runs' index: SQLite's log lists them by start, PostgreSQL's was made for one
 * product's runs. Both are what the shipped logs have.
 */
export const SCENARIO_RUNS_INDEX: Record<Engine, string> = {
  sqlite: 'CREATE INDEX IF NOT EXISTS scenario_runs_started ON scenario_runs (started_at, id);',
  postgres: 'CREATE INDEX IF NOT EXISTS scenario_runs_product ON scenario_runs (product_id, id);',
};

/** Dry runs, beside the records (scenario-runs.ts); each event a row of its run. */
export function scenarioRuns(engine: Engine): string {
  return `
${scenarioRunsTable(engine)}
${SCENARIO_RUNS_INDEX[engine]}
CREATE TABLE IF NOT EXISTS scenario_run_events (
  run_id ${DIALECTS[engine].bigint} NOT NULL REFERENCES scenario_runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);`;
}

/**
 * A dry run from before adapter specs kept `simulated` or `hardware`: the first is `sim`; the
 * second cannot say which path ran (the kernel socket or noble's OS binding), so it becomes
 * `native`, the one that claims no confirmed write (docs/decisions.md, "Adapter spec
 * everywhere"). PostgreSQL drops the old CHECK here; SQLite cannot drop one and rebuilds the
 * table where its run log opens (scenario-runs.ts).
 */
export const LEGACY_BENCH_TO_SPEC = `bench = CASE bench WHEN 'simulated' THEN 'sim' WHEN 'hardware' THEN 'native' ELSE bench END`;

/** Adapter specs: the adapter a record's board was heard through. */
const adapter = `ALTER TABLE provisioning_records ADD COLUMN adapter TEXT;`;

const legacyBenches = `
ALTER TABLE scenario_runs DROP CONSTRAINT IF EXISTS scenario_runs_bench_check;
UPDATE scenario_runs SET ${LEGACY_BENCH_TO_SPEC};`;

/** One board's records by its address, newest first (the failure path after a run, verify). */
const addressIndex = `
CREATE INDEX provisioning_records_address
  ON provisioning_records (lower(board_address), created_at, id);`;

/**
 * A PostgreSQL reservation appends its trigrams to the index's pending list; the stations move
 * them into the index in bulk about once a second (cleanTextIndexSoon), off the reserve path
 * (docs/decisions.md, "Reservations fast again").
 */
const pendingTrigrams = `ALTER INDEX IF EXISTS ${TRIGRAM_INDEX} SET (fastupdate = on);`;

/** The image flashed to a board before it was provisioned (`provision --image`). */
const imageHash = `ALTER TABLE provisioning_records ADD COLUMN image_hash TEXT;`;

const S = DIALECTS.sqlite;
const P = DIALECTS.postgres;

/**
 * Each engine's versions as shipped: entry n-1 takes a log from version n-1 to n. The two
 * numberings differ only in how the releases cut them.
 */
const VERSIONS: {
  sqlite: readonly (readonly string[])[];
  postgres: readonly (readonly MigrationStep[])[];
} = {
  sqlite: [
    [records(S)],
    [line],
    [history(S)],
    [busyBoard(S), millionRecords(S), TEXT_SEARCH.sqlite],
    [adapter],
    [addressIndex],
    [imageHash],
  ],
  postgres: [
    [records(P), busyBoard(P), line],
    [scenarioRuns('postgres')],
    [history(P)],
    [millionRecords(P), TEXT_SEARCH.postgres],
    [legacyBenches, adapter],
    [addressIndex],
    [pendingTrigrams],
    [imageHash],
  ],
};

/** The versions `engine` applies, in order; its log's version is how many it has applied. */
export function migrations<E extends Engine>(engine: E): (typeof VERSIONS)[E] {
  return VERSIONS[engine];
}

/** A log made by a newer release: refused, never written to. */
export function checkVersion(engine: Engine, version: number, location: string): void {
  const known = VERSIONS[engine].length;
  if (version > known)
    throw new Error(
      `${location}: audit database version ${version} is newer than this app understands (${known})`,
    );
}
