// The one place a `devicebench` failure becomes words on stderr and an exit code: what a
// command throws, what yargs refuses, and what escapes every handler (an unhandled rejection,
// an exception in a callback). A person sees what failed and why, never a stack trace; a bug
// still says what failed in one line, and DEVICEBENCH_DEBUG=1 adds the stack and its causes
// (docs/decisions/cli.md, "Words, never a stack trace").
import { errorMessage } from '../core/errors/message';
import { EXIT, exitCodeOf, UsageError, type ExitCode } from './exit';

/** The environment variable that adds each failure's stack trace, for a bug report. */
const DEBUG_VARIABLE = 'DEVICEBENCH_DEBUG';

/**
 * JavaScript's own errors: thrown by code that went wrong, never on purpose to tell a person
 * something, so their message alone rarely says what failed.
 */
const INTERNAL_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/** A bug rather than a failure to report: the boundary says so, with where to find more. */
export function isInternal(err: unknown): boolean {
  return !(err instanceof Error) || INTERNAL_ERRORS.some((kind) => err.constructor === kind);
}

function debugging(): boolean {
  const value = process.env[DEBUG_VARIABLE];
  return value !== undefined && value !== '' && value !== '0';
}

/** The stack of `err` and of each error that caused it, for DEVICEBENCH_DEBUG. */
function stackLines(err: unknown): string[] {
  const lines: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && depth < 8; depth++) {
    const text = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    lines.push(depth === 0 ? text : `caused by: ${text}`);
    e = e instanceof Error ? e.cause : undefined;
  }
  return lines;
}

/** The lines a failure prints: its words, and with DEVICEBENCH_DEBUG where it happened. */
function failureLines(err: unknown): string[] {
  const message = errorMessage(err).trim() || (err instanceof Error ? err.name : 'no message');
  const lines = isInternal(err)
    ? [
        `devicebench: internal error: ${message} (${DEBUG_VARIABLE}=1 prints where it happened, for a bug report)`,
      ]
    : [
        `devicebench: ${message}${err instanceof UsageError ? '\n(devicebench <command> --help shows the flags)' : ''}`,
      ];
  if (debugging()) lines.push(...stackLines(err));
  return lines;
}

/** Prints the failure on `write` (stderr) and returns the exit code it means. */
export function reportFailure(err: unknown, write: (line: string) => void): ExitCode {
  for (const line of failureLines(err)) write(line);
  return exitCodeOf(err);
}

/**
 * What escapes every handler ends the command in words too, exit 1: Node's default would print
 * the stack and its own banner.
 */
export function catchEscapes(write: (line: string) => void): void {
  const fail = (err: unknown) => {
    reportFailure(err, write);
    process.exit(EXIT.failed);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}
