// audit.sqlite is opened the same way by both of its logs (provisioning records and scenario
// runs): WAL lets the UI read while a batch or a run writes, and a second window or process on
// the same file waits for the other instead of failing. How durable each commit must be is
// each log's own call.
import Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS } from './sqlite-write-turns';

export function openAuditDatabase(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  const db = new Database(file);
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}
