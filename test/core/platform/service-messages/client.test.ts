// The service-messages clients against the emulator: issue, send until the token ends, and the
// admin client's templates and sent messages.
import { describe, expect, it } from 'vitest';
import {
  ServiceMessagesAdminClient,
  ServiceMessagesClient,
} from '../../../../src/core/platform/service-messages/client';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();

describe('ServiceMessagesClient', () => {
  it('issues a token and sends five messages, the last without renewal', async () => {
    const channel = emu().emulator.channels()[0]!;
    const { body } = await emu().admin('POST', '/users', { displayName: 'Hana' });
    const { userId } = body as { userId: string };
    const minted = await emu().admin('POST', '/user-tokens', {
      userId,
      channelId: channel.channelId,
    });
    const client = new ServiceMessagesClient({
      baseUrl: emu().emulator.url,
      channelAccessToken: channel.channelAccessToken,
    });
    let token = await client.issueToken((minted.body as { accessToken: string }).accessToken);
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      token = await client.send({
        templateName: 'order_complete_en',
        params: { order_number: `A${i}`, total: '¥100' },
        notificationToken: token.notificationToken,
      });
      counts.push(token.remainingCount);
    }
    expect(counts).toEqual([4, 3, 2, 1, 0]);
    expect(token.expiresIn).toBe(0);
    const admin = new ServiceMessagesAdminClient(emu().emulator.adminUrl);
    expect((await admin.templates()).map((t) => t.name)).toContain('order_complete');
    const sent = await admin.sent(channel.channelId);
    expect(sent).toHaveLength(5);
    expect(sent[0]).toMatchObject({
      userId,
      templateName: 'order_complete_en',
      params: { order_number: 'A4' },
      lastOfToken: true,
    });
  });
});
