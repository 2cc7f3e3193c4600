// The shared webhook dispatcher and user tokens, through the admin API: URLs per channel,
// signed deliveries kept with their outcome, tokens minted and expiring on the virtual clock.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature, SIGNATURE_HEADER } from '../../../src/core/webhooks/signature';
import { useEmulator } from '../../helpers/emulator';

const get = useEmulator();

interface Hit {
  body: string;
  signature: string | undefined;
  headers: Record<string, unknown>;
}
let sink: Server;
let sinkUrl: string;
const hits: Hit[] = [];
let answer = 200;

beforeAll(async () => {
  sink = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hits.push({
        body,
        signature: req.headers[SIGNATURE_HEADER] as string | undefined,
        headers: req.headers,
      });
      res.statusCode = answer;
      res.end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const address = sink.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  sinkUrl = `http://127.0.0.1:${address.port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => sink.close(() => resolve())));

describe('webhook URLs', () => {
  it('are set per channel, and refused for an unknown channel or a bad URL', async () => {
    const { admin, emulator } = get();
    const channelId = emulator.channels()[0]!.channelId;
    expect((await admin('PUT', '/webhooks/urls', { channelId, url: sinkUrl })).status).toBe(200);
    const urls = await admin('GET', '/webhooks/urls');
    expect(urls.body).toContainEqual({ channelId, url: sinkUrl });

    const unknown = await admin('PUT', '/webhooks/urls', { channelId: '1', url: sinkUrl });
    expect(unknown.status).toBe(404);
    const bad = await admin('PUT', '/webhooks/urls', { channelId, url: 'ftp://x' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('url');
    expect((await admin('GET', '/webhooks/urls')).body).toContainEqual({ channelId, url: sinkUrl });
  });
});

describe('deliveries', () => {
  it('are signed with the channel secret and kept with their outcome', async () => {
    const { admin, emulator } = get();
    const channel = emulator.channels()[0]!;
    await admin('PUT', '/webhooks/urls', { channelId: channel.channelId, url: sinkUrl });
    answer = 200;
    const delivery = await emulator.ctx.webhooks.deliver(channel.channelId, 'test.ping', {
      destination: 'Ubot',
      events: [{ type: 'ping' }],
    });
    expect(delivery.status).toBe('SUCCESS');
    expect(delivery.responseStatus).toBe(200);
    const hit = hits.at(-1)!;
    expect(JSON.parse(hit.body)).toEqual({ destination: 'Ubot', events: [{ type: 'ping' }] });
    expect(verifySignature(hit.body, channel.channelSecret, hit.signature)).toBe(true);
    expect(verifySignature(hit.body, 'another secret', hit.signature)).toBe(false);

    answer = 500;
    const failed = await emulator.ctx.webhooks.deliver(channel.channelId, 'test.ping', {});
    expect(failed).toMatchObject({ status: 'FAILED', responseStatus: 500 });

    const list = await admin('GET', `/webhooks?kind=test.ping&channelId=${channel.channelId}`);
    const kept = list.body as { id: number; status: string }[];
    expect(kept.map((d) => d.status).slice(0, 2)).toEqual(['FAILED', 'SUCCESS']);
  });

  it('carry the signature in the header the settings name, x-platform-signature by default', async () => {
    const { admin, emulator } = get();
    const channel = emulator.channels()[0]!;
    await admin('PUT', '/webhooks/urls', { channelId: channel.channelId, url: sinkUrl });
    answer = 200;
    expect((await admin('GET', '/webhooks/settings')).body).toEqual({
      signatureHeader: SIGNATURE_HEADER,
    });
    const renamed = await admin('PUT', '/webhooks/settings', {
      signatureHeader: 'X-Bot-Signature',
    });
    expect(renamed.body).toEqual({ signatureHeader: 'x-bot-signature' });
    const delivery = await emulator.ctx.webhooks.deliver(channel.channelId, 'test.named', {});
    const hit = hits.at(-1)!;
    expect(hit.headers['x-bot-signature']).toBe(delivery.signature);
    expect(hit.signature).toBeUndefined();

    for (const signatureHeader of ['Content-Type', 'not a header', ''])
      expect((await admin('PUT', '/webhooks/settings', { signatureHeader })).body).toMatchObject({
        details: [{ property: 'signatureHeader' }],
      });
    await admin('PUT', '/webhooks/settings', { signatureHeader: SIGNATURE_HEADER });
    await emulator.ctx.webhooks.deliver(channel.channelId, 'test.named', {});
    expect(hits.at(-1)!.signature).toBeDefined();
  });

  it('fail plainly when the channel has no URL or the receiver is down', async () => {
    const { admin, emulator } = get();
    const channel = (await admin('POST', '/channels', { name: 'No hook' })).body as {
      channelId: string;
    };
    const none = await emulator.ctx.webhooks.deliver(channel.channelId, 'test.none', {});
    expect(none).toMatchObject({ status: 'FAILED', url: null });
    expect(none.error).toMatch(/no webhook URL/);

    await admin('PUT', '/webhooks/urls', {
      channelId: channel.channelId,
      url: 'http://127.0.0.1:9/closed',
    });
    const down = await emulator.ctx.webhooks.deliver(channel.channelId, 'test.down', {});
    expect(down.status).toBe('FAILED');
    expect(down.error).toBeTruthy();
  });
});

describe('user tokens', () => {
  it('are minted for a known user and expire after 30 days of virtual time', async () => {
    const { admin } = get();
    const user = (await admin('POST', '/users', { displayName: 'Tok' })).body as {
      userId: string;
    };
    const minted = await admin('POST', '/user-tokens', {
      userId: user.userId,
      scopes: ['profile', 'openid'],
    });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ state: 'valid', scopes: ['profile', 'openid'] });

    await admin('POST', '/clock/advance', { ms: 30 * 24 * 3600 * 1000 });
    const listed = await admin('GET', `/user-tokens?userId=${user.userId}`);
    expect((listed.body as { state: string }[])[0]!.state).toBe('expired');
    await admin('POST', '/clock/reset');
  });

  it('refuse an unknown user and a malformed one, naming the field', async () => {
    const { admin } = get();
    const unknown = await admin('POST', '/user-tokens', { userId: `U${'0'.repeat(32)}` });
    expect(unknown.status).toBe(404);
    const bad = await admin('POST', '/user-tokens', { userId: 'nobody' });
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toContain('userId');
  });
});
