// Dry runs in the audit log: each run's summary, the set it ran (so a run can be read back
// after the set changed) and every timeline event, beside the provisioning records (the same
// SQLite file, or the line's PostgreSQL: postgres-scenario-runs.ts). Events are appended in
// batches (a scenario's worth) so the log costs the radio nothing; a run the station did not
// finish is marked `interrupted` when its log next opens.
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { openAuditDatabase } from './database';
import {
  LEGACY_BENCH_TO_SPEC,
  scenarioRuns,
  scenarioRunsTable,
  SCENARIO_RUNS_INDEX,
} from './schema';
import { countResults, type ResultCounts } from '../scenario/result-counts';
import {
  runListQuerySchema,
  runnableSetSchema,
  timelineEventSchema,
  type RunnableSet,
  type ScenarioRunSummary,
  type StopReason,
  type TimelineEvent,
} from '../scenario/schema';
import type { z } from 'zod';

/**
 * SQLite cannot drop a CHECK: a log from before adapter specs gets its runs table rebuilt
 * without it, in one transaction, the events kept (foreign keys off while the parent is swapped).
 */
function upgradeBenchColumn(db: Database.Database): void {
  const hasOldCheck = () =>
    (
      db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'scenario_runs'")
        .get() as { sql: string } | undefined
    )?.sql.includes("bench IN ('simulated', 'hardware')") === true;
  if (!hasOldCheck()) return;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      // Asked again under the write lock: another process opening the log may have rebuilt it
      // meanwhile (docs/decisions/audit-log.md, "Migrations under one lock").
      if (!hasOldCheck()) return;
      db.exec(`
${scenarioRunsTable('sqlite', 'scenario_runs_next')}
INSERT INTO scenario_runs_next SELECT * FROM scenario_runs;
UPDATE scenario_runs_next SET ${LEGACY_BENCH_TO_SPEC};
DROP TABLE scenario_runs;
ALTER TABLE scenario_runs_next RENAME TO scenario_runs;
${SCENARIO_RUNS_INDEX.sqlite}
`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/** The run log as the scenario service uses it, on either engine. */
export interface ScenarioRunLog {
  start(run: NewRun): Promise<ScenarioRunSummary>;
  /** Appends events in order, counting the results among them. */
  append(id: number, events: readonly TimelineEvent[]): Promise<void>;
  finish(id: number, reason: StopReason): Promise<ScenarioRunSummary>;
  get(id: number): Promise<ScenarioRunSummary | undefined>;
  /** The run with the set it ran and every event, in order. */
  read(id: number): Promise<RunRead | undefined>;
  /** Newest first. */
  list(query?: z.input<typeof runListQuerySchema>): Promise<RunList>;
  close(): Promise<void>;
}

export interface RunRead {
  run: ScenarioRunSummary;
  set: RunnableSet;
  events: TimelineEvent[];
}

export interface RunList {
  items: ScenarioRunSummary[];
  total: number;
}

export interface RunRow {
  id: number;
  started_at: number;
  ended_at: number | null;
  product_id: string;
  product_name: string;
  device_id: string;
  board_name: string;
  bench: string;
  set_source: 'saved' | 'draft';
  revision: number;
  set_json: string;
  station: string;
  status: ScenarioRunSummary['status'];
  stop_reason: StopReason | null;
  results: number;
  failures: number;
}

export interface NewRun {
  productId: string;
  productName: string;
  deviceId: string;
  boardName: string;
  bench: string;
  setSource: 'saved' | 'draft';
  set: RunnableSet;
}

/**
 * A new run's column values, in the order both engines' INSERT names them: started_at,
 * product_id, product_name, device_id, board_name, bench, set_source, revision, set_json, station.
 */
export function newRunValues(run: NewRun, startedAt: number, station: string) {
  return [
    startedAt,
    run.productId,
    run.productName,
    run.deviceId,
    run.boardName,
    run.bench,
    run.setSource,
    run.set.revision,
    JSON.stringify(run.set),
    station,
  ];
}

/** Results and failures among a batch of events: what a run's counters go up by. */
export function countEnded(events: readonly TimelineEvent[]): ResultCounts {
  return countResults(events.flatMap((e) => (e.kind === 'scenario-end' ? [e.result] : [])));
}

export class SqliteScenarioRunLog implements ScenarioRunLog {
  private readonly db: Database.Database;
  private readonly station: string;
  private readonly now: () => number;
  private readonly nextSeq = new Map<number, number>();

  constructor(options: { file: string; station?: string; now?: () => number }) {
    this.station = options.station?.trim() || hostname();
    this.now = options.now ?? Date.now;
    // A lost batch of timeline events on power loss is acceptable; provisioning's FULL is not needed.
    this.db = openAuditDatabase(options.file, 'NORMAL');
    upgradeBenchColumn(this.db);
    this.db.pragma('foreign_keys = ON');
    this.db.exec(scenarioRuns('sqlite'));
    this.db
      .prepare(
        `UPDATE scenario_runs SET status = 'interrupted', ended_at = ?
         WHERE status = 'running' AND station = ?`,
      )
      .run(this.now(), this.station);
  }

  async start(run: NewRun): Promise<ScenarioRunSummary> {
    const { lastInsertRowid } = this.db
      .prepare(
        `INSERT INTO scenario_runs (started_at, product_id, product_name, device_id, board_name,
           bench, set_source, revision, set_json, station, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`,
      )
      .run(...newRunValues(run, this.now(), this.station));
    const id = Number(lastInsertRowid);
    this.nextSeq.set(id, 0);
    return this.require(id);
  }

  /** Appends events in one transaction, counting the results among them. */
  async append(id: number, events: readonly TimelineEvent[]): Promise<void> {
    if (!events.length) return;
    const insert = this.db.prepare(
      'INSERT INTO scenario_run_events (run_id, seq, event) VALUES (?, ?, ?)',
    );
    const count = this.db.prepare(
      'UPDATE scenario_runs SET results = results + ?, failures = failures + ? WHERE id = ?',
    );
    this.db.transaction(() => {
      let seq = this.nextSeq.get(id);
      if (seq === undefined) throw new Error(`scenario run ${id} is not running in this log`);
      for (const event of events) insert.run(id, seq++, JSON.stringify(event));
      const { results, failures } = countEnded(events);
      this.nextSeq.set(id, seq);
      if (results) count.run(results, failures, id);
    })();
  }

  async finish(id: number, reason: StopReason): Promise<ScenarioRunSummary> {
    this.db
      .prepare(
        `UPDATE scenario_runs SET status = 'finished', ended_at = ?, stop_reason = ? WHERE id = ?`,
      )
      .run(this.now(), reason, id);
    this.nextSeq.delete(id);
    return this.require(id);
  }

  async get(id: number): Promise<ScenarioRunSummary | undefined> {
    return this.summary(id);
  }

  private summary(id: number): ScenarioRunSummary | undefined {
    const row = this.db.prepare('SELECT * FROM scenario_runs WHERE id = ?').get(id) as
      RunRow | undefined;
    return row && toSummary(row);
  }

  async read(id: number): Promise<RunRead | undefined> {
    const row = this.db.prepare('SELECT * FROM scenario_runs WHERE id = ?').get(id) as
      RunRow | undefined;
    if (!row) return undefined;
    const events = (
      this.db
        .prepare('SELECT event FROM scenario_run_events WHERE run_id = ? ORDER BY seq')
        .all(id) as {
        event: string;
      }[]
    ).map((e) => timelineEventSchema.parse(JSON.parse(e.event)));
    return { run: toSummary(row), set: runnableSetSchema.parse(JSON.parse(row.set_json)), events };
  }

  async list(query: z.input<typeof runListQuerySchema> = {}): Promise<RunList> {
    const q = runListQuerySchema.parse(query);
    const where = 'WHERE (@productId IS NULL OR product_id = @productId)';
    const params = { productId: q.productId ?? null };
    const rows = this.db
      .prepare(`SELECT * FROM scenario_runs ${where} ORDER BY id DESC LIMIT @limit OFFSET @offset`)
      .all({ ...params, limit: q.limit, offset: q.offset }) as RunRow[];
    const { total } = this.db
      .prepare(`SELECT COUNT(*) AS total FROM scenario_runs ${where}`)
      .get(params) as {
      total: number;
    };
    return { items: rows.map(toSummary), total };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private require(id: number): ScenarioRunSummary {
    const run = this.summary(id);
    if (!run) throw new Error(`no scenario run ${id}`);
    return run;
  }
}

export function toSummary(row: RunRow): ScenarioRunSummary {
  return {
    id: row.id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    productId: row.product_id,
    productName: row.product_name,
    deviceId: row.device_id,
    boardName: row.board_name,
    bench: row.bench,
    setSource: row.set_source,
    revision: row.revision,
    station: row.station,
    status: row.status,
    stopReason: row.stop_reason,
    results: row.results,
    failures: row.failures,
  };
}
