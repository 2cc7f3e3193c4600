// What the consoles' use cases are given from the app: its environments, its platform clients'
// retries and the embedded emulator (or the `not_configured` failure saying why it is not there).
import type { ConsoleSetup } from '../../usecases/consoles/console-setup';
import { runningEmulator, type AppContext } from './context';

export function consoleSetup(ctx: AppContext): ConsoleSetup {
  return {
    envs: ctx.envs,
    http: ctx.options.http,
    emulator: () => runningEmulator(ctx),
    running: () => ctx.emulator,
  };
}
