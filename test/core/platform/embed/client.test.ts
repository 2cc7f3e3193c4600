// The embed clients against the emulator: the app's life through EmbedClient, the 404 list as
// [], a 400 as a PlatformError, and the admin client's settings and tokens.
import { describe, expect, it } from 'vitest';
import { EmbedAdminClient, EmbedClient } from '../../../../src/core/platform/embed/client';
import { PlatformError } from '../../../../src/core/platform/http';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();

describe('EmbedClient', () => {
  it('adds, updates, lists and deletes', async () => {
    const { body } = await emu().admin('POST', '/channels', { name: 'Clients' });
    const channel = body as { channelId: string; channelAccessToken: string };
    const client = new EmbedClient({
      baseUrl: emu().emulator.url,
      channelAccessToken: channel.channelAccessToken,
    });
    expect(await client.listApps()).toEqual([]);
    const embedId = await client.addApp({ view: { type: 'tall', url: 'https://example.com' } });
    await client.updateApp(embedId, { description: 'Shop' });
    expect(await client.listApps()).toMatchObject([
      { embedId, description: 'Shop', view: { type: 'tall' } },
    ]);
    const error = await client
      .addApp({ view: { type: 'tall', url: 'http://x.test' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).status).toBe(400);
    await client.deleteApp(embedId);
    expect(await client.listApps()).toEqual([]);

    const admin = new EmbedAdminClient(emu().emulator.adminUrl);
    expect(await admin.updateChannel(channel.channelId, { miniApp: true })).toMatchObject({
      miniApp: true,
    });
    const token = await admin.issueChannelToken(channel.channelId, 'stateless');
    expect(token.expiresAt! - token.issuedAt).toBe(15 * 60 * 1000);
    const viaIssued = new EmbedClient({
      baseUrl: emu().emulator.url,
      channelAccessToken: token.accessToken,
    });
    expect(await viaIssued.listApps()).toEqual([]);
  });
});
