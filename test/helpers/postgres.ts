// A PostgreSQL server per test file (Debian's package, a temp folder, a free port; as root its
// programs run as `postgres`), stopped hard afterwards, and a fresh database per test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres';
import { urlWithPassword } from '../../src/core/audit/postgres-connection';

export interface TestPostgres {
  server(): LocalPostgres;
  /** A new empty database on the server: its URL (without the password). */
  database(): Promise<string>;
}

export function usePostgres(options: { password?: string } = {}): TestPostgres {
  let server: LocalPostgres | undefined;
  let dir: string | undefined;
  let n = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'devicebench-pg-'));
    server = await startLocalPostgres({ dir, noFsync: true, password: options.password });
  }, 120_000);
  afterAll(async () => {
    await server?.stop('immediate').catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  const running = () => {
    if (!server) throw new Error('the test PostgreSQL server did not start');
    return server;
  };
  return {
    server: running,
    async database() {
      const base = new URL(running().url);
      const name = `t${process.pid}_${++n}`;
      base.pathname = '/postgres';
      const admin = new pg.Client({
        connectionString: urlWithPassword(base.toString(), options.password),
      });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await admin.end();
      }
      base.pathname = `/${name}`;
      return base.toString();
    },
  };
}
