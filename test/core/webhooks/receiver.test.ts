// The app's webhook receiver: any path, raw body kept, signature checked against every known
// secret, only verified deliveries kept, replays and stale events refused, foreign pages shut
// out, and the port it prefers given up when taken.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  REPLAY_WINDOW_MS,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../src/core/webhooks/receiver';
import { signBody, SIGNATURE_HEADER } from '../../../src/core/webhooks/signature';
import { refusedUpgrades } from '../../helpers/refused-upgrade';

const open: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function receiver(port = 0, senderNow?: () => number) {
  const r = await startWebhookReceiver({
    port,
    secrets: () => [
      { channelId: '1', channelSecret: 'one' },
      { channelId: '2', channelSecret: 'two', now: senderNow },
    ],
  });
  open.push(r);
  return r;
}

function post(url: string, body: string, signature?: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature ? { [SIGNATURE_HEADER]: signature } : {}),
      ...headers,
    },
    body,
  });
}

function envelope(events: { id: string; timestamp?: number }[]): string {
  return JSON.stringify({
    destination: 'U1',
    events: events.map((e) => ({
      type: 'things',
      webhookEventId: e.id,
      timestamp: e.timestamp ?? Date.now(),
      deliveryContext: { isRedelivery: false },
    })),
  });
}

describe('webhook receiver', () => {
  it('accepts a signed envelope and names the channel whose secret verified it', async () => {
    const r = await receiver();
    const seen: number[] = [];
    r.onReceived((w) => seen.push(w.id));
    // Spacing matters: the signature is over the exact bytes, not the parsed JSON.
    const body = '{"destination":"U1",  "events":[{"type":"attached"},{"type":"activated"}]}';
    const res = await post(`${r.url}/webhook/module`, body, signBody(body, 'two'));
    expect(res.status).toBe(200);
    const [got] = r.list();
    expect(got).toMatchObject({
      path: '/webhook/module',
      signature: 'valid',
      channelId: '2',
      body,
      eventTypes: ['attached', 'activated'],
      status: 200,
    });
    expect(seen).toEqual([got!.id]);
  });

  it('keeps only verified deliveries; unsigned and wrongly signed noise never reaches the list', async () => {
    const r = await startWebhookReceiver({
      keep: 3,
      secrets: () => [{ channelId: '1', channelSecret: 'one' }],
    });
    open.push(r);
    const signed = envelope([{ id: 'E1' }]);
    expect((await post(`${r.url}/webhook`, signed, signBody(signed, 'one'))).status).toBe(200);
    // A flood bigger than what is kept: none of it may push the verified entry out.
    for (let i = 0; i < 10; i++) {
      const body = envelope([{ id: `N${i}` }]);
      expect((await post(`${r.url}/webhook`, body)).status).toBe(401);
      expect((await post(`${r.url}/webhook`, body, signBody(body, 'three'))).status).toBe(401);
    }
    expect(r.list().map((w) => w.body)).toEqual([signed]);
    const notJson = 'not json';
    expect((await post(`${r.url}/webhook`, notJson, signBody(notJson, 'one'))).status).toBe(200);
    expect(r.list()[0]).toMatchObject({ body: notJson, json: undefined, signature: 'valid' });
    // Kept, but as text only: the UI never has to serialise 5,000 levels.
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    expect((await post(`${r.url}/webhook`, deep, signBody(deep, 'one'))).status).toBe(200);
    expect(r.list()[0]).toMatchObject({ body: deep, json: undefined });
    r.clear();
    expect(r.list()).toEqual([]);
  });

  it('refuses a replayed event, a replayed body without event IDs, and stale timestamps', async () => {
    const r = await receiver();
    const body = envelope([{ id: 'E-replay' }]);
    const signature = signBody(body, 'one');
    expect((await post(`${r.url}/webhook`, body, signature)).status).toBe(200);
    expect((await post(`${r.url}/webhook`, body, signature)).status).toBe(409);
    // The same event ID in another body (re-serialised, re-signed) is the same event.
    const again = envelope([{ id: 'E-replay', timestamp: Date.now() + 1 }]);
    expect((await post(`${r.url}/other`, again, signBody(again, 'one'))).status).toBe(409);

    const purchase = '{"destination":"1","events":[{"type":"purchaseComplete","orderId":"o1"}]}';
    expect((await post(`${r.url}/webhook`, purchase, signBody(purchase, 'one'))).status).toBe(200);
    expect((await post(`${r.url}/webhook`, purchase, signBody(purchase, 'one'))).status).toBe(409);
    // The URL check's empty envelope is the same bytes every time, and carries nothing.
    const empty = '{"destination":"1","events":[]}';
    expect((await post(`${r.url}/webhook`, empty, signBody(empty, 'one'))).status).toBe(200);
    expect((await post(`${r.url}/webhook`, empty, signBody(empty, 'one'))).status).toBe(200);

    const old = envelope([{ id: 'E-old', timestamp: Date.now() - REPLAY_WINDOW_MS - 60_000 }]);
    expect((await post(`${r.url}/webhook`, old, signBody(old, 'one'))).status).toBe(400);
    const future = envelope([
      { id: 'E-future', timestamp: Date.now() + REPLAY_WINDOW_MS + 60_000 },
    ]);
    expect((await post(`${r.url}/webhook`, future, signBody(future, 'one'))).status).toBe(400);
    expect(r.list()).toHaveLength(4);
  });

  it("checks timestamps against the sender's clock too (the emulator's virtual clock)", async () => {
    const ahead = Date.now() + 30 * 24 * 3_600_000;
    const r = await receiver(0, () => ahead);
    const body = envelope([{ id: 'E-virtual', timestamp: ahead }]);
    expect((await post(`${r.url}/webhook`, body, signBody(body, 'two'))).status).toBe(200);
    // Channel 1 has no clock of its own: the same time is stale for it.
    const other = envelope([{ id: 'E-virtual-1', timestamp: ahead }]);
    expect((await post(`${r.url}/webhook`, other, signBody(other, 'one'))).status).toBe(400);
  });

  it('decodes signatures strictly: no junk, spaces, missing padding or URL-safe alphabet', async () => {
    const r = await receiver();
    let n = 0;
    const attempt = async (mangle: (signature: string) => string) => {
      const body = envelope([{ id: `E-sig-${n++}` }]);
      return (await post(`${r.url}/webhook`, body, mangle(signBody(body, 'one')))).status;
    };
    // Find a signature with a + or / so the URL-safe variant differs from the real one.
    const urlSafe = async () => {
      for (;;) {
        const body = envelope([{ id: `E-sig-${n++}` }]);
        const s = signBody(body, 'one');
        if (/[+/]/.test(s))
          return (await post(`${r.url}/webhook`, body, s.replace(/\+/g, '-').replace(/\//g, '_')))
            .status;
      }
    };
    expect(await attempt((s) => s)).toBe(200);
    expect(await attempt((s) => `${s}junk`)).toBe(401);
    expect(await attempt((s) => `${s.slice(0, 20)} ${s.slice(20)}`)).toBe(401);
    expect(await attempt((s) => s.replace(/=+$/, ''))).toBe(401);
    expect(await attempt((s) => `!!${s}`)).toBe(401);
    expect(await attempt((s) => `${s}AAAA`)).toBe(401);
    expect(await urlSafe()).toBe(401);
    expect(r.list()).toHaveLength(1);
  });

  it('refuses foreign Origin and Host like every other listener', async () => {
    const r = await receiver();
    const body = envelope([{ id: 'E-origin' }]);
    const signature = signBody(body, 'one');
    const fromPage = await post(`${r.url}/webhook`, body, signature, {
      origin: 'http://evil.example',
    });
    expect(fromPage.status).toBe(403);
    const { hostname, port } = new URL(r.url);
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(
        {
          hostname,
          port,
          method: 'POST',
          path: '/webhook',
          headers: { host: `evil.example:${port}`, [SIGNATURE_HEADER]: signature },
        },
        (res) => resolve(res.statusCode),
      );
      req.once('error', reject).end(body);
    });
    expect(rebound).toBe(403);
    expect(await refusedUpgrades(new URL(r.url), '/webhook', 200)).toBe(200);
    expect(r.list()).toEqual([]);
  });

  it('takes another port when the preferred one is in use', async () => {
    const first = await receiver();
    const port = Number(new URL(first.url).port);
    const second = await receiver(port);
    expect(Number(new URL(second.url).port)).not.toBe(port);
  });
});
