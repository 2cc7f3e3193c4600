// The in-app purchase clients against the emulator: catalogue and users through the admin
// client, reserve with a user token, complete and refund, and the history page.
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../../../src/core/platform/http';
import { IapAdminClient, IapClient } from '../../../../src/core/platform/iap/client';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();

describe('IapClient', () => {
  it('reserves, completes, refunds and reads the history', async () => {
    const channel = emu().emulator.channels()[0]!;
    const { body } = await emu().admin('POST', '/users', { displayName: 'Buyer' });
    const { userId } = body as { userId: string };
    const minted = await emu().admin('POST', '/user-tokens', {
      userId,
      channelId: channel.channelId,
    });
    const userToken = (minted.body as { accessToken: string }).accessToken;
    const admin = new IapAdminClient(emu().emulator.adminUrl);
    await admin.putProduct(channel.channelId, {
      productId: 'p1',
      currency: 'USD',
      price: 1.99,
      productName: 'Coins',
    });
    await admin.setUser(userId, { termsAgreed: true });
    await emu().admin('PUT', '/webhooks/urls', {
      channelId: channel.channelId,
      url: 'http://127.0.0.1:9/none',
    });

    const client = new IapClient({
      baseUrl: emu().emulator.url,
      channelAccessToken: channel.channelAccessToken,
    });
    const input = {
      clientIp: '192.0.2.1',
      clientOs: 'android' as const,
      productId: 'p1',
      shopProductName: 'Coins',
    };
    const orderId = await client.reserve(userToken, input);
    const error = await client
      .reserve(userToken, { ...input, productId: 'p2' })
      .catch((e: unknown) => e);
    expect((error as PlatformError).body).toMatchObject({ errorCode: 'PRODUCT_ID_NOT_FOUND' });

    const completed = await admin.complete(orderId);
    expect(completed.event).toMatchObject({ type: 'purchaseComplete', orderId, userId });
    expect(completed.delivery.status).toBe('FAILED');
    expect((await admin.refund(orderId)).order.state).toBe('REFUNDED');
    expect((await admin.orders(channel.channelId))[0]).toMatchObject({
      orderId,
      state: 'REFUNDED',
    });

    const page = await client.webhookHistory({ pageSize: 10, status: 'FAILED' });
    expect(page.events.map((e) => e.event.orderId)).toEqual([orderId]);
    expect(page.nextCursor).toBeNull();
  });
});
