// Module channels: platform calls as a module channel and the emulator's admin API for
// accounts, friends and approvals.
import { ModulesConsole } from '../../usecases/consoles/modules';
import type { modulesOperations } from '../contracts/modules';
import { consoleSetup } from './console-context';
import type { AppContext, AreaHandlers } from './context';

export function modulesHandlers(ctx: AppContext): AreaHandlers<typeof modulesOperations> {
  const modules = new ModulesConsole(consoleSetup(ctx));
  const ok = { ok: true as const };
  return {
    'modules:emulatorState': () => modules.emulatorState(),
    'modules:createModuleChannel': ({ name }) => modules.createModuleChannel(name),
    'modules:createAccount': (input) => modules.createAccount(input),
    'modules:addChat': ({ botId, chatId }) => modules.addChat(botId, chatId),
    'modules:accountAction': ({ botId, action }) => modules.accountAction(botId, action),
    'modules:authorize': (input) => modules.authorize(input),
    'modules:setBotUserIdHeader': ({ botUserIdHeader }) =>
      modules.setBotUserIdHeader(botUserIdHeader),
    'modules:attach': ({ moduleChannelId, managerBaseUrl, confirmManagerOrigin, via, ...input }) =>
      modules.attach({ moduleChannelId, managerBaseUrl, confirmManagerOrigin, via }, input),
    'modules:detach': async ({ moduleChannelId, botId }) => {
      await modules.detach(moduleChannelId, botId);
      return ok;
    },
    'modules:acquire': async ({ moduleChannelId, ...input }) => {
      await modules.acquire(moduleChannelId, input);
      return ok;
    },
    'modules:release': async ({ moduleChannelId, ...input }) => {
      await modules.release(moduleChannelId, input);
      return ok;
    },
    'modules:listBots': ({ moduleChannelId, limit, start }) =>
      modules.listBots(moduleChannelId, { limit, start }),
  };
}
