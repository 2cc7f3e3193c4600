// Webhooks: starts the app's receiver (it verifies with every channel secret the app knows:
// the emulator's channels and the active environment's) and reads the emulator's deliveries.
import { startAppReceiver } from '../../usecases/consoles/webhook-receiver';
import type { webhooksEvents, webhooksOperations } from '../contracts/webhooks';
import { type AppContext, type AreaEvents, type AreaHandlers } from './context';
import { consoleSetup } from './console-context';
import { emulatorAdmin } from '../../usecases/consoles/console-setup';

export async function startWebhooks(ctx: AppContext): Promise<{
  handlers: AreaHandlers<typeof webhooksOperations>;
  sources: AreaEvents<typeof webhooksEvents>;
}> {
  const { receiver, url } = await startAppReceiver({
    envs: ctx.envs,
    emulator: ctx.emulator,
    port: ctx.options.webhookPort,
  });
  ctx.onClose(() => receiver.close());
  const admin = () => emulatorAdmin(consoleSetup(ctx));

  return {
    handlers: {
      'webhooks:getReceiver': async () => ({
        url,
        received: receiver.list(),
      }),
      'webhooks:clearReceived': async () => {
        receiver.clear();
        return { cleared: true as const };
      },
      'webhooks:listDeliveries': (filter) => admin().webhookDeliveries(filter),
      'webhooks:listUrls': () => admin().webhookUrls(),
      'webhooks:setUrl': ({ channelId, url }) => admin().setWebhookUrl(channelId, url),
      'webhooks:useReceiver': ({ channelId }) => admin().setWebhookUrl(channelId, url),
      'webhooks:sendTest': ({ channelId }) => admin().sendTestWebhook(channelId),
    },
    sources: {
      'webhooks:received': (handler) => receiver.onReceived(handler),
      'webhooks:delivered': (handler) =>
        ctx.emulator?.ctx.webhooks.onDelivery(handler) ?? (() => {}),
    },
  };
}
