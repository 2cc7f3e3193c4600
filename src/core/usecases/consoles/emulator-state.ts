// The Emulator page's view of the embedded emulator, read through its admin API over HTTP, so
// the same code would serve an emulator in another process.
import { emulatorAdmin, type ConsoleSetup } from './console-setup';

/** Where it listens, its clock, channels, users, faults, devices and the latest activity. */
export async function emulatorState(setup: Pick<ConsoleSetup, 'emulator'>) {
  const client = emulatorAdmin(setup);
  const [state, devices, activity] = await Promise.all([
    client.state(),
    client.devices(),
    client.log(200),
  ]);
  const { url, adminUrl } = setup.emulator();
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
}
