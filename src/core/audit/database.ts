// audit.sqlite is opened the same way by both of its logs (provisioning records and scenario
// runs): WAL lets the UI read while a batch or a run writes, and a second window or process on
// the same file waits for the other instead of failing. How durable each commit must be is
// each log's own call.
import Database from 'better-sqlite3';

export function openAuditDatabase(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  const db = new Database(file);
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  return db;
}
