// The Emulator page. It reads the in-process emulator through its admin API over HTTP, so the
// same code would serve an emulator in another process.
import type { emulatorEvents, emulatorOperations } from '../contracts/emulator';
import {
  emulatorAdmin,
  runningEmulator,
  type AppContext,
  type AreaEvents,
  type AreaHandlers,
} from './context';

export function emulatorHandlers(ctx: AppContext): AreaHandlers<typeof emulatorOperations> {
  const admin = () => emulatorAdmin(ctx);
  return {
    'emulator:getState': async () => {
      const client = admin();
      const [state, devices, activity] = await Promise.all([
        client.state(),
        client.devices(),
        client.log(200),
      ]);
      const { url, adminUrl } = runningEmulator(ctx);
      return {
        url,
        adminUrl,
        clock: state.clock,
        channels: state.channels.map(({ channelId, name }) => ({ channelId, name })),
        users: state.users,
        faults: state.faults,
        devices,
        activity,
      };
    },
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
