// SQLite's side of what the two audit engines share: how it spells the shared statements
// (record-rows.ts), how it applies the shared schema (schema.ts) under its own lock, and how
// its driver reports a unique violation (docs/decisions.md, "What the two audit engines
// share").
import type Database from 'better-sqlite3';
import { stationSql, type SearchDialect } from './record-rows';
import { checkVersion, migrations } from './schema';

/**
 * Text search on the trigram index: the text as one FTS5 phrase, which the trigram tokenizer
 * matches as a case-insensitive substring of any of the three columns.
 */
export const SQLITE_SEARCH: SearchDialect = {
  placeholder: () => '?',
  text: (text, bind) =>
    `id IN (SELECT rowid FROM audit_text WHERE audit_text MATCH ${bind(`"${text.replace(/"/g, '""')}"`)})`,
};

/** A station's reads (docs/decisions.md, "The audit log at a million records"). */
export const SQLITE_VIA = (index: string) => `provisioning_records INDEXED BY ${index}`;
export const STATION = stationSql(() => '?', SQLITE_VIA);

/** Each version in its own IMMEDIATE transaction: another process on the file waits for it. */
export function migrateSqlite(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  checkVersion('sqlite', version, file);
  const versions = migrations('sqlite');
  for (let v = version; v < versions.length; v++) {
    db.transaction(() => {
      for (const step of versions[v] ?? []) db.exec(step);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}

export function isUniqueViolation(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    (err as { code: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
