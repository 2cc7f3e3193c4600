// What every area's handlers get from the app: the options it was started with, the
// environments, the embedded emulator (if it started), and a place to register clean-up.
import type { z } from 'zod';
import type { RunningEmulator } from '../../emulator/server';
import type { HttpOptions } from '../../platform/http';
import type { CredentialStore, KeychainStatus } from '../../secrets/credential-store';
import type { HostLauncher } from '../../usecases/bench/host-supervisor';
import type { OperationSpec } from '../contracts/op';
import type { Environments } from '../../usecases/environments';
import { AppFailure } from '../errors';

export interface AppOptions {
  dataDir: string;
  credentials: CredentialStore;
  keychain: KeychainStatus;
  version: string;
  /** Port for the embedded emulator; 0 (the default) picks a free one. */
  emulatorPort?: number;
  /** The app's webhook receiver; taken when free, else any free port. 0: any free port. */
  webhookPort?: number;
  /** How the BLE process is started: a Node child by default, a utility process in Electron. */
  bleHost?: HostLauncher;
  /** For tests: how the platform clients retry. */
  http?: HttpOptions;
  /**
   * Asks the user where to save a file (Electron's save dialog in the main process), with a
   * suggested name; undefined when cancelled. Absent where the shell cannot ask (the bench
   * server: exports are downloads there).
   */
  chooseExportFile?: (fileName: string) => Promise<string | undefined>;
}

export interface AppContext {
  options: AppOptions;
  envs: Environments;
  /** The embedded emulator, or undefined with the reason it did not start. */
  emulator: RunningEmulator | undefined;
  emulatorError: string | undefined;
  /** Called on close, last registered first. */
  onClose(close: () => Promise<void> | void): void;
}

/** The embedded emulator, or a `not_configured` failure saying why it is not there. */
export function runningEmulator(ctx: AppContext): RunningEmulator {
  if (ctx.emulator) return ctx.emulator;
  throw new AppFailure({
    code: 'not_configured',
    message: `The local emulator is not running: ${ctx.emulatorError ?? 'it was not started'}.`,
  });
}

/** One area's implementation of its slice of the contract. */
export type AreaHandlers<Ops extends Record<string, OperationSpec>> = {
  [N in keyof Ops]: (input: z.output<Ops[N]['input']>) => Promise<z.output<Ops[N]['output']>>;
};

/** One area's event sources: subscribe a handler, get an unsubscribe function. */
export type AreaEvents<Events extends Record<string, z.ZodType>> = {
  [E in keyof Events]: (handler: (payload: z.output<Events[E]>) => void) => () => void;
};
