// PostgreSQL for tests (Debian's package; as root its programs run as `postgres`).
// `usePostgres`: fresh databases on the run's one server (test/helpers/postgres-run.ts), which
// the first file to ask starts; with a password, each database belongs to a role of its own
// that must log in with it. `useOwnPostgres`: a server of the file's own, for tests that stop
// and restart it; stopped hard afterwards.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres';
import { SERVER_DIR } from './postgres-run';

export interface TestPostgres {
  /** A new empty database: its URL (without the password). */
  database(): Promise<string>;
}

export interface OwnPostgres extends TestPostgres {
  server(): LocalPostgres;
}

const START_TIMEOUT_MS = 120_000;

/** The superuser's URL of the run's shared server, starting it if no file has yet. */
async function sharedServer(): Promise<string> {
  const dir = inject('postgresRunDir');
  const ready = join(dir, 'url');
  const failed = join(dir, 'error');
  try {
    // mkdir is atomic: one file of the run wins and starts the server.
    mkdirSync(join(dir, 'starting'));
  } catch {
    const until = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const error = readIfThere(failed);
      if (error !== undefined)
        throw new Error(`the run's PostgreSQL server did not start: ${error}`);
      const url = readIfThere(ready);
      if (url !== undefined) return url;
      if (Date.now() > until) throw new Error("the run's PostgreSQL server is not up after 2 min");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    const server = await startLocalPostgres({ dir: join(dir, SERVER_DIR), noFsync: true });
    // `postgres` (the tests' superuser) is trusted; the roles made for a password log in with it.
    writeFileSync(
      join(server.dataDir, 'pg_hba.conf'),
      'host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n',
    );
    const url = new URL(server.url);
    url.pathname = '/postgres';
    await withClient(url.toString(), (admin) => admin.query('SELECT pg_reload_conf()'));
    writeFileSync(`${ready}.tmp`, url.toString());
    renameSync(`${ready}.tmp`, ready);
    return url.toString();
  } catch (error) {
    writeFileSync(failed, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Databases named for the worker process and a count: unique across the run's files. */
let made = 0;
function nextName(): string {
  return `t${process.pid}_${++made}`;
}

export function usePostgres(options: { password?: string } = {}): TestPostgres {
  let admin: string | undefined;
  beforeAll(async () => {
    admin = await sharedServer();
  }, START_TIMEOUT_MS);
  return {
    async database() {
      if (!admin) throw new Error('the test PostgreSQL server did not start');
      const name = nextName();
      const url = new URL(admin);
      await withClient(admin, async (client) => {
        const db = pg.escapeIdentifier(name);
        if (options.password === undefined) await client.query(`CREATE DATABASE ${db}`);
        else {
          const password = client.escapeLiteral(options.password);
          await client.query(`CREATE ROLE ${db} LOGIN PASSWORD ${password}`);
          await client.query(`CREATE DATABASE ${db} OWNER ${db}`);
          url.username = name;
        }
      });
      url.pathname = `/${name}`;
      return url.toString();
    },
  };
}

export function useOwnPostgres(): OwnPostgres {
  let server: LocalPostgres | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'devicebench-pg-'));
    server = await startLocalPostgres({ dir, noFsync: true });
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
      const url = new URL(running().url);
      const name = nextName();
      url.pathname = '/postgres';
      await withClient(url.toString(), (client) =>
        client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`),
      );
      url.pathname = `/${name}`;
      return url.toString();
    },
  };
}
