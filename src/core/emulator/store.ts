// The emulator's SQLite database: a file when state must survive restarts, memory otherwise.
// Each area creates its own tables; small scalar state (clock offset, counters) lives in `meta`.
import Database from 'better-sqlite3';

export type Db = Database.Database;

export function openStore(file?: string): Db {
  const db = new Database(file ?? ':memory:');
  if (file) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  return db;
}

export function readMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

export function writeMeta(db: Db, key: string, value: string): void {
  db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

/** Next value of a named counter, starting at 1; survives restarts with the database. */
export function nextSequence(db: Db, name: string): number {
  const key = `seq:${name}`;
  const next = Number(readMeta(db, key) ?? '0') + 1;
  writeMeta(db, key, String(next));
  return next;
}
