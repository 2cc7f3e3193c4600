// The emulator's SQLite database: a file when state must survive restarts, memory otherwise.
// Each area creates its own tables; small scalar state (clock offset, counters) lives in `meta`.
// The file holds channel secrets and access tokens, so it is its owner's alone (0600), as are
// the WAL files SQLite makes with the database's mode.
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement, prepared once per database: preparing is most of a small query's cost. */
export function sql(db: Db, text: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = db.prepare(text)));
  return statement;
}

/** Only the owner reads or writes a file that holds secrets. */
const SECRET_FILE_MODE = 0o600;

/** The database file made (or, from an older version, made again) its owner's alone. */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', SECRET_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`])
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, SECRET_FILE_MODE);
}

export function openStore(file?: string): Db {
  if (file) ownerOnly(file);
  const db = new Database(file ?? ':memory:');
  if (file) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  return db;
}

export function readMeta(db: Db, key: string): string | undefined {
  const row = sql(db, 'SELECT value FROM meta WHERE key = ?').get(key) as
    { value: string } | undefined;
  return row?.value;
}

export function writeMeta(db: Db, key: string, value: string): void {
  sql(
    db,
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
