// Dry runs in the line's shared log: the same records as the SQLite run log, on the provisioning
// store's PostgreSQL pool. Each station marks only its own unfinished runs interrupted when it
// opens the log: another station's running run is still running.
import type pg from 'pg';
import { z } from 'zod';
import {
  runListQuerySchema,
  runnableSetSchema,
  timelineEventSchema,
  type ScenarioRunSummary,
  type StopReason,
  type TimelineEvent,
} from '../scenario/schema';
import {
  countEnded,
  newRunValues,
  toSummary,
  type NewRun,
  type RunList,
  type RunRead,
  type RunRow,
  type ScenarioRunLog,
} from './scenario-runs';

type PgRunRow = Omit<RunRow, 'id' | 'started_at' | 'ended_at' | 'results' | 'failures'> & {
  id: string;
  started_at: string;
  ended_at: string | null;
  results: number;
  failures: number;
};

export class PostgresScenarioRunLog implements ScenarioRunLog {
  /** Next event number per run this station writes. */
  private readonly nextSeq = new Map<number, number>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly station: string,
    private readonly now: () => number,
  ) {}

  static async open(pool: pg.Pool, station: string, now: () => number) {
    await pool.query(
      `UPDATE scenario_runs SET status = 'interrupted', ended_at = $1
       WHERE status = 'running' AND station = $2`,
      [now(), station],
    );
    return new PostgresScenarioRunLog(pool, station, now);
  }

  async start(run: NewRun): Promise<ScenarioRunSummary> {
    const { rows } = await this.pool.query<PgRunRow>(
      `INSERT INTO scenario_runs (started_at, product_id, product_name, device_id, board_name,
         bench, set_source, revision, set_json, station, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'running') RETURNING *`,
      newRunValues(run, this.now(), this.station),
    );
    const summary = fromRow(rows[0] as PgRunRow);
    this.nextSeq.set(summary.id, 0);
    return summary;
  }

  async append(id: number, events: readonly TimelineEvent[]): Promise<void> {
    if (!events.length) return;
    const first = this.nextSeq.get(id);
    if (first === undefined) throw new Error(`scenario run ${id} is not running in this log`);
    this.nextSeq.set(id, first + events.length);
    const { results, failures } = countEnded(events);
    // One statement: the events and the counters land together or not at all.
    await this.pool.query(
      `WITH added AS (
         INSERT INTO scenario_run_events (run_id, seq, event)
         SELECT $1, $2 + e.i - 1, e.event FROM unnest($3::text[]) WITH ORDINALITY AS e(event, i)
       )
       UPDATE scenario_runs SET results = results + $4, failures = failures + $5 WHERE id = $1`,
      [id, first, events.map((e) => JSON.stringify(e)), results, failures],
    );
  }

  async finish(id: number, reason: StopReason): Promise<ScenarioRunSummary> {
    const { rows } = await this.pool.query<PgRunRow>(
      `UPDATE scenario_runs SET status = 'finished', ended_at = $2, stop_reason = $3
       WHERE id = $1 RETURNING *`,
      [id, this.now(), reason],
    );
    this.nextSeq.delete(id);
    if (!rows[0]) throw new Error(`no scenario run ${id}`);
    return fromRow(rows[0]);
  }

  async get(id: number): Promise<ScenarioRunSummary | undefined> {
    const { rows } = await this.pool.query<PgRunRow>('SELECT * FROM scenario_runs WHERE id = $1', [
      id,
    ]);
    return rows[0] && fromRow(rows[0]);
  }

  async read(id: number): Promise<RunRead | undefined> {
    const { rows } = await this.pool.query<PgRunRow>('SELECT * FROM scenario_runs WHERE id = $1', [
      id,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const events = await this.pool.query<{ event: string }>(
      'SELECT event FROM scenario_run_events WHERE run_id = $1 ORDER BY seq',
      [id],
    );
    return {
      run: fromRow(row),
      set: runnableSetSchema.parse(JSON.parse(row.set_json)),
      events: events.rows.map((e) => timelineEventSchema.parse(JSON.parse(e.event))),
    };
  }

  async list(query: z.input<typeof runListQuerySchema> = {}): Promise<RunList> {
    const q = runListQuerySchema.parse(query);
    const { rows } = await this.pool.query<PgRunRow>(
      `SELECT * FROM scenario_runs WHERE ($1::text IS NULL OR product_id = $1)
       ORDER BY id DESC LIMIT $2 OFFSET $3`,
      [q.productId ?? null, q.limit, q.offset],
    );
    const count = await this.pool.query<{ total: string }>(
      'SELECT COUNT(*) AS total FROM scenario_runs WHERE ($1::text IS NULL OR product_id = $1)',
      [q.productId ?? null],
    );
    return { items: rows.map(fromRow), total: Number(count.rows[0]?.total ?? 0) };
  }

  /** The pool is the provisioning store's; it closes it. */
  async close(): Promise<void> {}
}

function fromRow(row: PgRunRow): ScenarioRunSummary {
  return toSummary({
    ...row,
    id: Number(row.id),
    started_at: Number(row.started_at),
    ended_at: row.ended_at === null ? null : Number(row.ended_at),
  });
}
