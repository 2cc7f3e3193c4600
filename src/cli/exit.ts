// The command's exit codes (docs/decisions.md, "Command line") and the errors that choose them.
// Anything the user can fix by changing a flag or a file is a UsageError naming the flag or the
// file's field; anything about the machine (adapter, platform, keychain) is an EnvironmentError.
// The core's own errors are sorted the same way by the use-case floor (usecases/refusals.ts).
import { refusalOf } from '../core/usecases/refusals';

export const EXIT = {
  /** Every board and scenario passed. */
  ok: 0,
  /** Some board or scenario failed. */
  failed: 1,
  /** Bad usage or input: a flag or a file field is named. */
  usage: 2,
  /** No adapter, or the environment (platform, keychain, emulator) is not usable. */
  environment: 3,
  /** Stopped by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    /** The flag (`--count`), environment variable or `file: field` at fault; none for yargs' own. */
    readonly field: string | undefined,
    message: string,
  ) {
    super(field ? `${field}: ${message}` : message);
  }
}

export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
}

export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof EnvironmentError) return EXIT.environment;
  const refusal = refusalOf(err);
  if (refusal === 'input') return EXIT.usage;
  if (refusal === 'station') return EXIT.environment;
  return EXIT.failed;
}
