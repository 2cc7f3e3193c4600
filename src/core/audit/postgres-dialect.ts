// PostgreSQL's side of what the two audit engines share: how it spells the shared statements
// (record-rows.ts), how it applies the shared schema (schema.ts) under its own lock, and how
// its driver reports a unique violation (docs/decisions.md, "What the two audit engines
// share").
import pg from 'pg';
import { likeAnywhere, likePrefix, stationSql, type SearchDialect } from './record-rows';
import { checkVersion, migrations, SEARCH_TEXT, TRIGRAM_INDEX } from './schema';

/** PostgreSQL's n-th bound parameter. */
export const PARAM = (n: number) => `$${n}`;

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

/**
 * How long a record's trigrams wait in the text index's pending list before a station moves
 * them into the index: searches read the pending list row by row, so it stays about a second of
 * the line's writes long.
 */
const TEXT_CLEAN_MS = 1_000;

/**
 * Text search as the log was migrated: on trigrams where pg_trgm was there, else on prefixes
 * (schema.ts); `pool` undefined for a log not open yet.
 */
export class PostgresTextSearch {
  readonly dialect: SearchDialect;
  readonly match: 'substring' | 'prefix';
  /** The next move of the text index's pending list into the index, once one is due. */
  private clean: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly pool: pg.Pool | undefined) {
    this.dialect = pool ? TRIGRAM_SEARCH : PREFIX_SEARCH;
    this.match = pool ? 'substring' : 'prefix';
  }

  /** Whether the trigram index exists: this log's text search. */
  static async open(pool: pg.Pool): Promise<PostgresTextSearch> {
    const { rows } = await pool.query<{ found: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS found',
      [TRIGRAM_INDEX],
    );
    return new PostgresTextSearch(rows[0]?.found === true ? pool : undefined);
  }

  /**
   * After a write: moves the text index's pending list into the index in one bulk pass, a
   * second after this station's first write since the last pass. A station that may not (it
   * does not own the index) leaves it to the others and to autovacuum; a reservation that fills
   * the list to `gin_pending_list_limit` still empties it itself.
   */
  wrote(): void {
    const pool = this.pool;
    if (!pool || this.clean || this.stopped) return;
    this.clean = setTimeout(() => {
      this.clean = undefined;
      if (this.stopped) return;
      pool
        .query('SELECT gin_clean_pending_list($1::regclass)', [TRIGRAM_INDEX])
        .catch(() => undefined);
    }, TEXT_CLEAN_MS);
    // A finished command does not wait for the next pass.
    this.clean.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.clean);
  }
}

/** Any constant: the advisory lock under which one station at a time migrates. */
const MIGRATION_LOCK = 7_146_218;

/**
 * Brings the log up to date in one transaction. Stations opening at once: one migrates under
 * the advisory lock, the others wait and find it done. A step that needs what the server may
 * lack runs under a savepoint, and its `otherwise` where it fails.
 */
export async function migratePostgres(client: pg.PoolClient, location: string): Promise<void> {
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS devicebench_migrations (
         version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT MAX(version) AS v FROM devicebench_migrations',
    );
    const version = rows[0]?.v ?? 0;
    checkVersion('postgres', version, location);
    const versions = migrations('postgres');
    for (let v = version; v < versions.length; v++) {
      for (const step of versions[v] ?? []) {
        if (typeof step === 'string') {
          await client.query(step);
          continue;
        }
        await client.query('SAVEPOINT optional_step');
        try {
          for (const sql of step.attempt) await client.query(sql);
          await client.query('RELEASE SAVEPOINT optional_step');
        } catch {
          await client.query('ROLLBACK TO SAVEPOINT optional_step');
          await client.query(step.otherwise);
        }
      }
      await client.query(
        'INSERT INTO devicebench_migrations (version, applied_at) VALUES ($1, $2)',
        [v + 1, Date.now()],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** The constraint a unique violation names; undefined for any other error. */
export function uniqueViolation(err: unknown): string | undefined {
  if (err instanceof pg.DatabaseError && err.code === '23505') return err.constraint ?? '';
  return undefined;
}
