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

/**
 * A version's first statement refused because its table, index, trigger or column is there:
 * the version was applied but not counted. Versions are applied whole or not at all, so the
 * first statement being there means all of it is.
 */
const ALREADY_THERE = /^(duplicate column name: |(table|index|trigger|view) \S+ already exists)/;

/**
 * Brings the log up to date in one IMMEDIATE transaction, the version read under its write lock:
 * of processes opening a new log at once, one migrates and the others wait (busy_timeout) and
 * find it done. Before, each read the version first and applied each version in a transaction of
 * its own, so a second process could apply version 1 again after the first had reached 7 and
 * set the version back to 1; that log opened as "duplicate column name: origin" ever after
 * (issue 44). Such a log is repaired here: a version found applied is counted, and said once on
 * stderr (docs/decisions/audit-log.md, "Migrations under one lock"). A log that is up to date
 * is only read.
 */
export function migrateSqlite(db: Database.Database, file: string): void {
  const versions = migrations('sqlite');
  const current = () => db.pragma('user_version', { simple: true }) as number;
  const seen = current();
  checkVersion('sqlite', seen, file);
  if (seen === versions.length) return;
  const counted: number[] = [];
  let from = 0;
  db.transaction(() => {
    const version = (from = current());
    checkVersion('sqlite', version, file);
    for (let v = version; v < versions.length; v++) {
      db.exec('SAVEPOINT migration');
      try {
        for (const step of versions[v] ?? []) db.exec(step);
      } catch (err) {
        db.exec('ROLLBACK TO migration');
        if (!(err instanceof Error && ALREADY_THERE.test(err.message))) throw err;
        counted.push(v + 1);
      } finally {
        db.exec('RELEASE migration');
      }
    }
    db.pragma(`user_version = ${versions.length}`);
  }).immediate();
  if (counted.length)
    process.stderr.write(
      `devicebench: the audit log ${file} said version ${from}, but version${counted.length > 1 ? 's' : ''} ${counted.join(', ')} had been applied already (two processes migrated it at once); repaired: it is at version ${versions.length}\n`,
    );
}

export function isUniqueViolation(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    (err as { code: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
