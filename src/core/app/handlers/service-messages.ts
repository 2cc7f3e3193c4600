// Service messages console: issue and send on the active environment (or with a channel token
// the console issued), and read the emulator's templates and sent messages.
import {
  ServiceMessagesAdminClient,
  ServiceMessagesClient,
} from '../../platform/service-messages/client';
import type { serviceMessagesOperations } from '../contracts/service-messages';
import type { AppContext, AreaHandlers } from './context';
import { emulatorChannel } from '../../usecases/consoles/console-setup';
import { consoleSetup } from './console-context';

export function serviceMessagesHandlers(
  ctx: AppContext,
): AreaHandlers<typeof serviceMessagesOperations> {
  const client = async (channelAccessToken?: string) => {
    const target = await ctx.envs.activeTarget();
    return new ServiceMessagesClient(
      { ...target, channelAccessToken: channelAccessToken ?? target.channelAccessToken },
      ctx.options.http,
    );
  };
  const admin = async () => {
    const { channelId, adminUrl } = await emulatorChannel(
      consoleSetup(ctx),
      'Service message templates',
    );
    return { channelId, client: new ServiceMessagesAdminClient(adminUrl) };
  };
  return {
    'serviceMessages:issueToken': async ({ embedAccessToken, channelAccessToken }) =>
      (await client(channelAccessToken)).issueToken(embedAccessToken),
    'serviceMessages:send': async ({ channelAccessToken, ...message }) =>
      (await client(channelAccessToken)).send(message),
    'serviceMessages:listTemplates': async () => (await admin()).client.templates(),
    'serviceMessages:listSent': async () => {
      const { channelId, client } = await admin();
      return client.sent(channelId);
    },
  };
}
