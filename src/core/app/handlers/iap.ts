// In-app purchase console: reserve and history on the active environment; the catalogue,
// users, orders and their settlement (which sends the webhooks) on the emulator's admin API.
import { IapAdminClient, IapClient } from '../../platform/iap/client';
import type { iapOperations } from '../contracts/iap';
import type { AppContext, AreaHandlers } from './context';
import { emulatorAdmin, emulatorChannel } from '../../usecases/consoles/console-setup';
import { consoleSetup } from './console-context';

export function iapHandlers(ctx: AppContext): AreaHandlers<typeof iapOperations> {
  const iap = async () => new IapClient(await ctx.envs.activeTarget(), ctx.options.http);
  const admin = async () => {
    const { channelId, adminUrl } = await emulatorChannel(
      consoleSetup(ctx),
      'The in-app purchase store',
    );
    return { channelId, client: new IapAdminClient(adminUrl) };
  };
  return {
    'iap:getSetup': async () => {
      const { channelId, client } = await admin();
      const [products, urls] = await Promise.all([
        client.products(channelId),
        emulatorAdmin(consoleSetup(ctx)).webhookUrls(),
      ]);
      const webhookUrl = urls.find((u) => u.channelId === channelId)?.url ?? null;
      return { channelId, webhookUrl, products };
    },
    'iap:putProduct': async (product) => {
      const { channelId, client } = await admin();
      return client.putProduct(channelId, product);
    },
    'iap:deleteProduct': async ({ productId }) => {
      const { channelId, client } = await admin();
      await client.deleteProduct(channelId, productId);
      return { deleted: true as const };
    },
    'iap:getUser': async ({ userId }) => (await admin()).client.user(userId),
    'iap:setUser': async ({ userId, ...changes }) =>
      (await admin()).client.setUser(userId, changes),
    'iap:reserve': async ({ accessToken, ...input }) => ({
      orderId: await (await iap()).reserve(accessToken, input),
    }),
    'iap:listOrders': async () => {
      const { channelId, client } = await admin();
      return client.orders(channelId);
    },
    'iap:completeOrder': async ({ orderId }) => (await admin()).client.complete(orderId),
    'iap:refundOrder': async ({ orderId }) => (await admin()).client.refund(orderId),
    'iap:history': async (query) => (await iap()).webhookHistory(query),
  };
}
