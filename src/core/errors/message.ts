// What a caught value says, for a log line or an error shown to a person. Framework-free, so the
// main process, the CLI and the renderer read a failure the same way.

/** The message of an Error, or the value as text for anything else that was thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The message of what caused `err`, or of `err` itself when nothing did: fetch rejects with
 * "fetch failed" and names the network failure (refused, reset, unknown host) in its cause.
 */
export function causeMessage(err: unknown): string {
  return errorMessage(err instanceof Error && err.cause !== undefined ? err.cause : err);
}
