// Mission stickers: the send on the active environment; the rest is the embedded emulator's
// admin API for the state that decides what the send answers.
import { MissionStickersConsole } from '../../usecases/consoles/mission-stickers';
import type { missionStickersOperations } from '../contracts/mission-stickers';
import { consoleSetup } from './console-context';
import type { AppContext, AreaHandlers } from './context';

export function missionStickersHandlers(
  ctx: AppContext,
): AreaHandlers<typeof missionStickersOperations> {
  const stickers = new MissionStickersConsole(consoleSetup(ctx));
  return {
    'missionStickers:send': async ({ to, productId }) => {
      await stickers.send(to, productId);
      return { sent: true as const };
    },
    'missionStickers:emulatorState': () => stickers.emulatorState(),
    'missionStickers:putSet': ({ productId, set }) => stickers.putSet(productId, set),
    'missionStickers:setPermission': ({ channelId, allowed }) =>
      stickers.setPermission(channelId, allowed),
    'missionStickers:setUser': ({ userId, ...profile }) => stickers.setUser(userId, profile),
  };
}
