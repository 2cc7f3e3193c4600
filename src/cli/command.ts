// What every command gets, and how it ends: an exit code. A command opens what it needs from
// the session; the runner closes it, prints a failure with its cause and picks the exit code.
import type { ExitCode } from './exit';
import type { Output } from './output';
import type { Session } from './session';

export interface GlobalFlags {
  bench: 'simulated' | 'hardware';
  simBoards?: string[];
  env?: string;
  dataDir: string;
  station?: string;
}

export interface CommandContext {
  session: Session;
  out: Output;
  /** Aborted by the first Ctrl-C: stop safely, report what finished, exit 130. */
  interrupt: AbortSignal;
}

export type CommandRun = (ctx: CommandContext) => Promise<ExitCode>;
