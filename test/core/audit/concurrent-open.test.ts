// Processes opening one new SQLite log at once migrate it once: the version is read and every
// step applied under one write lock (sqlite-dialect.ts). Before, 1 run in 10 of two processes
// left the log unusable ("duplicate column name: origin", issue 44); such a log now opens and is
// repaired, said once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openAuditStore } from '../../../src/core/audit/open-store';
import { SqliteAuditStore } from '../../../src/core/audit/sqlite-store';
import { migrations } from '../../../src/core/audit/schema';
import { bundled } from '../../helpers/bundled';
import { usePostgres } from '../../helpers/postgres';
import { reserveInput } from './fixture';

const postgres = usePostgres();
const PROCESSES = 6;
const ROUNDS = 3;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const newFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-open-'));
  dirs.push(dir);
  return join(dir, 'audit.sqlite');
};

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * open-child.ts on `file`, once for each of `workers`: each opens it and reserves one PSDI for
 * board `worker`, all at the same moment, once every child has loaded (so their migrations
 * overlap however loaded the machine is). `stdout` is what each printed after `ready`.
 */
function openChildren(file: string, workers: number[]): Promise<ChildRun[]> {
  const ready: Promise<void>[] = [];
  const children = workers.map((worker) => {
    const child = spawn(process.execPath, [bundled('open-child'), file, String(worker)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Ready, or gone before it was (a crash, which fails below).
    ready.push(
      new Promise((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.startsWith('ready\n')) resolve();
        });
        child.once('close', () => resolve());
      }),
    );
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Bounded: a child still opening after this is a failure, not a hang.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const run = new Promise<ChildRun>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: stdout.replace(/^ready\n/, ''), stderr });
      });
    });
    return { child, run };
  });
  void Promise.all(ready).then(() => {
    for (const { child } of children) child.stdin.end('go\n');
  });
  return Promise.all(children.map((c) => c.run));
}

const version = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('opening one SQLite audit log from many processes', () => {
  it(`migrates a new log once when ${PROCESSES} processes open it at once, ${ROUNDS} times over`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const file = newFile();
      const runs = await openChildren(
        file,
        Array.from({ length: PROCESSES }, (_, n) => n + 1),
      );
      for (const run of runs)
        expect(run, `round ${round}: ${run.stderr}`).toMatchObject({ code: 0, stderr: '' });
      expect(new Set(runs.map((r) => r.stdout)).size).toBe(PROCESSES);
      expect(version(file)).toBe(migrations('sqlite').length);
      // And it opens again, with every reservation in it.
      const store = new SqliteAuditStore({ file });
      try {
        expect((await store.search({ limit: 50 })).total).toBe(PROCESSES);
      } finally {
        await store.close();
      }
    }
  }, 120_000);

  it('opens and repairs a log the old bug left half-migrated, saying so once', async () => {
    const file = newFile();
    await new SqliteAuditStore({ file }).close();
    // What a second process did: it applied version 1 after the first reached the last
    // version, and set the count back to 1.
    const db = new Database(file);
    db.pragma('user_version = 1');
    db.close();

    const first = (await openChildren(file, [1]))[0]!;
    expect(first.code, first.stderr).toBe(0);
    const last = migrations('sqlite').length;
    const applied = Array.from({ length: last - 1 }, (_, i) => i + 2).join(', ');
    expect(first.stderr).toBe(
      `devicebench: the audit log ${file} said version 1, but versions ${applied} had been applied already (two processes migrated it at once); repaired: it is at version ${last}\n`,
    );
    expect(version(file)).toBe(last);

    const second = (await openChildren(file, [2]))[0]!;
    expect(second).toMatchObject({ code: 0, stderr: '' });
    const store = new SqliteAuditStore({ file });
    try {
      expect((await store.search({ limit: 10 })).items.map((r) => r.psdi).sort()).toEqual([
        'OPEN-1',
        'OPEN-2',
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('refuses a log a newer release made, and leaves it as it is', () => {
    const file = newFile();
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    expect(() => new SqliteAuditStore({ file })).toThrow(
      `${file}: audit database version 99 is newer than this app understands (${migrations('sqlite').length})`,
    );
    expect(version(file)).toBe(99);
  });

  it(`PostgreSQL: ${PROCESSES} stations opening one new database at once migrate it once, under its advisory lock`, async () => {
    const url = await postgres.database();
    const stores = await Promise.all(
      Array.from({ length: PROCESSES }, (_, n) =>
        openAuditStore({ location: { kind: 'postgres', url }, station: `station-${n}` }),
      ),
    );
    try {
      await Promise.all(stores.map((store, n) => store.reserve(reserveInput(n + 1, `PG-${n}`))));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ version: number }>(
          'SELECT version FROM devicebench_migrations ORDER BY version',
        );
        expect(rows.map((r) => r.version)).toEqual(
          Array.from({ length: migrations('postgres').length }, (_, i) => i + 1),
        );
      } finally {
        await client.end();
      }
      expect((await stores[0]!.search({ limit: 50 })).total).toBe(PROCESSES);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  }, 60_000);
});
