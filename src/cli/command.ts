// What every command gets, and how it ends: an exit code. A command opens what it needs from
// the session; the runner closes it, prints a failure with its cause and picks the exit code.
import type { AdapterSpec } from '../core/ble/adapter-spec';
import type { ExitCode } from './exit';
import type { Output } from './output';
import type { Session } from './session';
import type { PairingFlags } from './pairing-flags';

export interface GlobalFlags {
  /** The station's adapters, in order (`--adapter`, repeatable, or DEVICEBENCH_ADAPTER). */
  adapters: AdapterSpec[];
  simBoards?: string[];
  env?: string;
  dataDir: string;
  station?: string;
  pairing: PairingFlags;
}

export interface CommandContext {
  session: Session;
  out: Output;
  /** Aborted by the first Ctrl-C: stop safely, report what finished, exit 130. */
  interrupt: AbortSignal;
}

type CommandRun = (ctx: CommandContext) => Promise<ExitCode>;

/** Runs one command: opens the session lazily, closes it, and records the exit code. */
export type Runner = (flags: GlobalFlags & { json?: boolean }, run: CommandRun) => Promise<void>;
