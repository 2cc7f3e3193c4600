// A station's connections to the line's PostgreSQL log: its two pools, and what it does while
// the database does not answer — every failure said as StoreUnavailableError, the first one and
// the first answer after it told once each way, and a change the board already acted on
// retried until the database is back (docs/decisions.md, "Production line").
import pg from 'pg';
import { StoreUnavailableError } from './errors';

export interface PostgresConnectionOptions {
  /** `postgres://user@host:port/database`; a password in it is used but never shown. */
  url: string;
  /** The password from the keychain, kept out of the URL so the URL can be shown and saved. */
  password?: string;
  /** No statement, lock or connection attempt waits longer than this; default 5 s. */
  timeoutMs?: number;
  /** Connections this station keeps; default 8. */
  maxConnections?: number;
}

/**
 * The station's pool, and `counters`: connections that commit without waiting for the WAL
 * flush, for sequence numbers only. Safe: a record that uses a number is committed after it
 * and waits for the flush, which covers the number's WAL too; a number lost in a crash was used
 * by no committed record.
 */
export function openPools(
  options: PostgresConnectionOptions,
  station: string,
): { pool: pg.Pool; counters: pg.Pool } {
  const timeoutMs = options.timeoutMs ?? 5_000;
  // pg lets the URL's (empty) password win over a `password` option, so it goes into the URL
  // handed to pg, and only there.
  const connectionString = urlWithPassword(options.url, options.password);
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections ?? 8,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    lock_timeout: timeoutMs,
    idle_in_transaction_session_timeout: timeoutMs * 2,
    application_name: `devicebench ${station}`.slice(0, 63),
  });
  const counters = new pg.Pool({
    connectionString,
    max: 2,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    lock_timeout: timeoutMs,
    options: '-c synchronous_commit=off',
    application_name: `devicebench ${station} counters`.slice(0, 63),
  });
  // An idle connection the server dropped (restart, failover) must not crash the app; the next
  // query reconnects or reports the store unavailable.
  pool.on('error', () => undefined);
  counters.on('error', () => undefined);
  return { pool, counters };
}

/** Whether the database answers this station, as the station's work finds out. */
export class Reachability {
  /** When the database last stopped answering, while it still does not. */
  private unreachableSince: number | undefined;

  constructor(
    private readonly location: string,
    private readonly onReachability: ((words: string) => void) | undefined,
  ) {}

  /**
   * Connection failures become StoreUnavailableError; every other error passes unchanged. The
   * first failure and the first answer after it are said (`onReachability`), so a station
   * whose work waits inside a retry never goes quiet.
   */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await work();
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      const unavailable = new StoreUnavailableError(this.location, err);
      if (this.unreachableSince === undefined) {
        this.unreachableSince = performance.now();
        this.onReachability?.(`${unavailable.message}; work waits for it`);
      }
      throw unavailable;
    }
    if (this.unreachableSince !== undefined) {
      const waited = (performance.now() - this.unreachableSince) / 1000;
      this.unreachableSince = undefined;
      this.onReachability?.(
        `the audit log at ${this.location} is back; work waited ${waited.toFixed(1)} s for it`,
      );
    }
    return value;
  }

  /**
   * `work` under guard, tried again while the database is unavailable, for up to `retryForMs`;
   * `work` is told whether this is a retry (an earlier answer may have been lost).
   */
  async retry<T>(retryForMs: number, work: (retried: boolean) => Promise<T>): Promise<T> {
    const deadline = performance.now() + retryForMs;
    let retried = false;
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        return await this.guard(() => work(retried));
      } catch (err) {
        if (!(err instanceof StoreUnavailableError) || performance.now() + delayMs > deadline)
          throw err;
        retried = true;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }
}

export function urlWithPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** The URL as it may be shown or saved: without a password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'an invalid PostgreSQL URL';
  }
}

/** Errors that say nothing about the statement, only that the server could not answer it. */
function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Class 08: connection exception; 57P0x: the server is shutting down or starting up.
    if (code.startsWith('08') || /^57P0[1-3]$/.test(code)) return true;
    if (
      ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(
        code,
      )
    )
      return true;
  }
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is/i.test(
    err.message,
  );
}
