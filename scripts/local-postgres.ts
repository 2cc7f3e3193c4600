// A PostgreSQL server of its own in a folder, from Debian's `postgresql` package: what
// `npm run line-db`, the line tests and `npm run bench -- line` run against. PostgreSQL refuses
// to run as root, so as root its programs run as the `postgres` user (docs/decisions.md,
// "Production line").
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { urlWithPassword } from '../src/core/audit/postgres-connection';

const run = promisify(execFile);

export interface LocalPostgres {
  /** postgres://postgres@127.0.0.1:<port>/<database>, without the password. */
  url: string;
  port: number;
  dataDir: string;
  /** `immediate` is a crash as far as the database is concerned; `fast` a clean shutdown. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
}

export interface LocalPostgresOptions {
  /** The folder that holds the server's data (created; `pgdata` inside it). */
  dir: string;
  port?: number;
  database?: string;
  /** Require this password for `postgres` over TCP; without one, local connections are trusted. */
  password?: string;
  /** Tests only: no fsync (a killed server keeps its commits; a power cut would not). */
  noFsync?: boolean;
}

/** The newest installed server's programs, or PG_BIN. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error(
      "no PostgreSQL server found in /usr/lib/postgresql: install Debian's postgresql package (apt-get install postgresql) or set PG_BIN",
    );
  return join(root, versions[0], 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs one of the server's programs, as `postgres` when we are root. */
async function pgRun(program: string, args: string[]): Promise<string> {
  const file = join(postgresBin(), program);
  const { stdout } = asRoot
    ? await run('runuser', ['-u', 'postgres', '--', file, ...args])
    : await run(file, args);
  return stdout;
}

export async function startLocalPostgres(options: LocalPostgresOptions): Promise<LocalPostgres> {
  const database = options.database ?? 'devicebench';
  const dataDir = join(options.dir, 'pgdata');
  const log = join(options.dir, 'postgres.log');
  mkdirSync(options.dir, { recursive: true });
  const owner = asRoot ? await postgresIds() : undefined;
  if (owner) {
    chownSync(options.dir, owner.uid, owner.gid);
    // Every folder above it must let `postgres` through too (a folder under /root does not).
    await run('runuser', ['-u', 'postgres', '--', 'test', '-w', options.dir]).catch(() => {
      throw new Error(
        `${options.dir}: the postgres user cannot reach this folder (PostgreSQL refuses to run as root, so it runs as postgres); choose one outside /root, such as /var/tmp/devicebench-line`,
      );
    });
  }
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  if (fresh) {
    const args = ['-D', dataDir, '-U', 'postgres', '--encoding=UTF8', '--no-instructions'];
    if (options.password !== undefined) {
      // initdb reads the password from a file; it exists for the length of this call.
      const pwfile = join(options.dir, '.initdb-password');
      writeFileSync(pwfile, options.password, { mode: 0o600 });
      if (owner) chownSync(pwfile, owner.uid, owner.gid);
      try {
        await pgRun('initdb', [...args, '--auth=scram-sha-256', `--pwfile=${pwfile}`]);
      } finally {
        rmSync(pwfile, { force: true });
      }
    } else await pgRun('initdb', [...args, '--auth=trust']);
  }
  const port = options.port ?? (await freePort());
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    ...(options.noFsync ? ['-c fsync=off', '-c full_page_writes=off'] : []),
  ].join(' ');
  const start = async () => {
    await pgRun('pg_ctl', ['-D', dataDir, '-l', log, '-o', settings, '-w', '-t', '60', 'start']);
  };
  await start();
  const base = `postgres://postgres@127.0.0.1:${port}`;
  if (fresh) {
    const admin = new pg.Client({
      connectionString: urlWithPassword(`${base}/postgres`, options.password),
    });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
    } finally {
      await admin.end();
    }
  }
  return {
    url: `${base}/${database}`,
    port,
    dataDir,
    start,
    stop: (mode = 'fast') => stopLocalPostgres(dataDir, mode),
  };
}

/** Stops the server running on `dataDir` (`pgdata` in a `startLocalPostgres` folder). */
export async function stopLocalPostgres(
  dataDir: string,
  mode: 'fast' | 'immediate' = 'fast',
): Promise<void> {
  await pgRun('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([
    run('id', ['-u', 'postgres']).then(({ stdout }) => Number(stdout.trim())),
    run('id', ['-g', 'postgres']).then(({ stdout }) => Number(stdout.trim())),
  ]);
  return { uid, gid };
}
