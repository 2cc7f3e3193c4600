// One PostgreSQL server for a whole test run (a project's globalSetup, vitest.config.ts): each
// file gets databases of its own on it (test/helpers/postgres.ts) instead of an `initdb` and a
// server of its own. The first file that asks starts it, so a run without such a file starts
// none; this setup only names the folder the files meet in, and stops the server at the end.
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopLocalPostgres } from '../../scripts/local-postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's folder for its shared PostgreSQL server (test/helpers/postgres.ts). */
    postgresRunDir: string;
  }
}

/** The shared server's folder inside the run's folder: `startLocalPostgres`'s `dir`. */
export const SERVER_DIR = 'server';

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-pg-run-'));
  // The server runs as `postgres` when the tests run as root: it must get through this folder.
  chmodSync(dir, 0o755);
  project.provide('postgresRunDir', dir);
  return async () => {
    const dataDir = join(dir, SERVER_DIR, 'pgdata');
    if (existsSync(join(dataDir, 'postmaster.pid')))
      await stopLocalPostgres(dataDir, 'immediate').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
}
