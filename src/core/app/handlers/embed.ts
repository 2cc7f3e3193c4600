// Embedded apps console: the app calls go to the active environment; the channel's settings
// and issued tokens to the embedded emulator's admin API.
import { EmbedAdminClient, EmbedClient } from '../../platform/embed/client';
import type { embedOperations } from '../contracts/embed';
import type { AppContext, AreaHandlers } from './context';
import { emulatorChannel } from '../../usecases/consoles/console-setup';
import { consoleSetup } from './console-context';

export function embedHandlers(ctx: AppContext): AreaHandlers<typeof embedOperations> {
  const embed = async () => new EmbedClient(await ctx.envs.activeTarget(), ctx.options.http);
  const admin = async () => {
    const { channelId, adminUrl } = await emulatorChannel(
      consoleSetup(ctx),
      'A channel’s mini-app settings',
    );
    return { channelId, client: new EmbedAdminClient(adminUrl) };
  };
  return {
    'embed:listApps': async () => ({ apps: await (await embed()).listApps() }),
    'embed:addApp': async (app) => ({ embedId: await (await embed()).addApp(app) }),
    'embed:updateApp': async ({ embedId, changes }) => {
      await (await embed()).updateApp(embedId, changes);
      return { updated: true as const };
    },
    'embed:deleteApp': async ({ embedId }) => {
      await (await embed()).deleteApp(embedId);
      return { deleted: true as const };
    },
    'embed:getChannel': async () => {
      const { channelId, client } = await admin();
      return client.channel(channelId);
    },
    'embed:updateChannel': async (changes) => {
      const { channelId, client } = await admin();
      return client.updateChannel(channelId, changes);
    },
    'embed:issueChannelToken': async ({ kind, expiresIn }) => {
      const { channelId, client } = await admin();
      return client.issueChannelToken(channelId, kind, expiresIn);
    },
  };
}
