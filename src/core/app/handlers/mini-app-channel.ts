// What the mini-app consoles share: the active channel, and the emulator admin routes that
// only exist on the local emulator.
import { AppFailure } from '../errors';
import { runningEmulator, type AppContext } from './context';

/** The active environment's channel ID and the embedded emulator's admin URL. */
export async function emulatorChannel(
  ctx: AppContext,
  what: string,
): Promise<{ channelId: string; adminUrl: string }> {
  const channel = await ctx.envs.activeChannel();
  if (channel.kind !== 'emulator')
    throw new AppFailure({
      code: 'not_configured',
      message: `${what} is set in the local emulator only; switch to the Local emulator environment.`,
    });
  return { channelId: channel.channelId, adminUrl: runningEmulator(ctx).adminUrl };
}
