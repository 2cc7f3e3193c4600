// The Emulator page: the embedded emulator's state and its admin API's operations.
import type { emulatorEvents, emulatorOperations } from '../contracts/emulator';
import type { AppContext, AreaEvents, AreaHandlers } from './context';
import { consoleSetup } from './console-context';
import { emulatorAdmin } from '../../usecases/consoles/console-setup';
import { emulatorState } from '../../usecases/consoles/emulator-state';

export function emulatorHandlers(ctx: AppContext): AreaHandlers<typeof emulatorOperations> {
  const setup = consoleSetup(ctx);
  const admin = () => emulatorAdmin(setup);
  return {
    'emulator:getState': () => emulatorState(setup),
    'emulator:addUser': ({ displayName }) => admin().addUser(displayName),
    'emulator:registerDevice': (input) => admin().registerDevice(input),
    'emulator:linkDevice': ({ deviceId, userId }) => admin().linkDevice(deviceId, userId),
    'emulator:advanceClock': ({ ms }) => admin().advanceClock(ms),
    'emulator:resetClock': () => admin().resetClock(),
    'emulator:injectFault': (fault) => admin().injectFault(fault),
    'emulator:clearFaults': async () => {
      await admin().clearFaults();
      return { cleared: true as const };
    },
    'emulator:mintUserToken': (input) => admin().mintUserToken(input),
    'emulator:listUserTokens': (filter) => admin().userTokens(filter),
  };
}

export function emulatorEventSources(ctx: AppContext): AreaEvents<typeof emulatorEvents> {
  return {
    'emulator:activity': (handler) => ctx.emulator?.ctx.activity.onActivity(handler) ?? (() => {}),
  };
}
