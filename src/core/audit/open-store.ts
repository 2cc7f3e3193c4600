// Opens the audit log a configuration names: the SQLite file in the data folder (held by a
// worker thread, so the caller's thread never waits on it), or a shared PostgreSQL database.
// Environment overrides for scripts, CI and the bench server live here too.
import { z } from 'zod';
import { PostgresAuditStore } from './postgres-store';
import { SqliteWorkerStore } from './sqlite-worker-store';
import type { AuditStore } from './store';

export const postgresUrlSchema = z
  .string()
  .max(2000)
  .refine((url) => {
    try {
      const parsed = new URL(url);
      return ['postgres:', 'postgresql:'].includes(parsed.protocol) && parsed.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be a postgres://user@host:port/database URL');

export type AuditLocation =
  { kind: 'local'; file: string } | { kind: 'postgres'; url: string; password?: string };

export interface OpenAuditOptions {
  location: AuditLocation;
  station?: string;
  now?: () => number;
  /** PostgreSQL only: see PostgresStoreOptions. */
  timeoutMs?: number;
  retryForMs?: number;
  onReachability?: (words: string) => void;
}

export async function openAuditStore(options: OpenAuditOptions): Promise<AuditStore> {
  const { location, ...rest } = options;
  if (location.kind === 'local')
    return SqliteWorkerStore.open({ file: location.file, station: rest.station, now: rest.now });
  return PostgresAuditStore.open({ url: location.url, password: location.password, ...rest });
}

/**
 * `DEVICEBENCH_AUDIT_URL` (a postgres:// URL) and `DEVICEBENCH_STATION` win over the settings,
 * so a script, CI or a headless bench server can join a line without the UI.
 */
export function auditEnvironment(env: NodeJS.ProcessEnv = process.env): {
  url?: string;
  station?: string;
} {
  const url = env.DEVICEBENCH_AUDIT_URL?.trim() || undefined;
  if (url !== undefined && !postgresUrlSchema.safeParse(url).success)
    throw new Error('DEVICEBENCH_AUDIT_URL must be a postgres://user@host:port/database URL');
  return { url, station: env.DEVICEBENCH_STATION?.trim() || undefined };
}
