// The app's status and its environments.
import type { appOperations } from '../contracts/app';
import type { AppContext, AreaHandlers } from './context';

export function appHandlers(ctx: AppContext): AreaHandlers<typeof appOperations> {
  const { options, envs } = ctx;
  return {
    'app:getStatus': async () => ({
      version: options.version,
      dataDir: options.dataDir,
      keychain: options.keychain,
      emulator: ctx.emulator
        ? { running: true, url: ctx.emulator.url }
        : { running: false, error: ctx.emulatorError },
      environment: envs.describeActive(),
      notices: envs.setAsideAs
        ? [
            `The environments file could not be read; it was kept as ${envs.setAsideAs} and the defaults are in use.`,
          ]
        : [],
    }),

    'settings:listEnvironments': () => envs.list(),
    'settings:saveEnvironment': (input) => envs.save(input),
    'settings:deleteEnvironment': ({ id }) => envs.delete(id),
    'settings:selectEnvironment': ({ id }) => envs.select(id),
  };
}
