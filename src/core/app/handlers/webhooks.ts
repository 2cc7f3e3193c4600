// Webhooks: starts the app's receiver (it verifies with every channel secret the app knows:
// the emulator's channels and the active environment's) and reads the emulator's deliveries.
import { startWebhookReceiver, type ChannelSecret } from '../../webhooks/receiver';
import type { webhooksEvents, webhooksOperations } from '../contracts/webhooks';
import { emulatorAdmin, type AppContext, type AreaEvents, type AreaHandlers } from './context';

/** Tried first, so a tunnel or a bookmarked URL keeps working across restarts. */
const PREFERRED_RECEIVER_PORT = 4781;
/** The path the app suggests; the receiver takes any. */
const RECEIVER_PATH = '/webhook';

export async function startWebhooks(ctx: AppContext): Promise<{
  handlers: AreaHandlers<typeof webhooksOperations>;
  sources: AreaEvents<typeof webhooksEvents>;
}> {
  const receiver = await startWebhookReceiver({
    port: ctx.options.webhookPort ?? PREFERRED_RECEIVER_PORT,
    secrets: async () => {
      const emulator = ctx.emulator;
      // Emulator events carry its virtual clock's time, which may be moved far ahead.
      const secrets: ChannelSecret[] = emulator
        ? emulator.channels().map((c) => ({
            channelId: c.channelId,
            channelSecret: c.channelSecret,
            now: () => emulator.ctx.clock.now(),
          }))
        : [];
      const active = await ctx.envs.activeChannel().catch(() => undefined);
      if (active?.channelSecret)
        secrets.push({ channelId: active.channelId, channelSecret: active.channelSecret });
      return secrets;
    },
  });
  ctx.onClose(() => receiver.close());
  const admin = () => emulatorAdmin(ctx);

  return {
    handlers: {
      'webhooks:getReceiver': async () => ({
        url: receiver.url + RECEIVER_PATH,
        received: receiver.list(),
      }),
      'webhooks:clearReceived': async () => {
        receiver.clear();
        return { cleared: true as const };
      },
      'webhooks:listDeliveries': (filter) => admin().webhookDeliveries(filter),
      'webhooks:listUrls': () => admin().webhookUrls(),
      'webhooks:setUrl': ({ channelId, url }) => admin().setWebhookUrl(channelId, url),
      'webhooks:useReceiver': ({ channelId }) =>
        admin().setWebhookUrl(channelId, receiver.url + RECEIVER_PATH),
      'webhooks:sendTest': ({ channelId }) => admin().sendTestWebhook(channelId),
    },
    sources: {
      'webhooks:received': (handler) => receiver.onReceived(handler),
      'webhooks:delivered': (handler) =>
        ctx.emulator?.ctx.webhooks.onDelivery(handler) ?? (() => {}),
    },
  };
}
