// The app's webhook receiver: any path, raw body kept, signature checked against every known
// secret, 401 for what it cannot verify, and the port it prefers given up when taken.
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../src/core/webhooks/receiver';
import { signBody, SIGNATURE_HEADER } from '../../../src/core/webhooks/signature';

const open: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function receiver(port = 0) {
  const r = await startWebhookReceiver({
    port,
    secrets: () => [
      { channelId: '1', channelSecret: 'one' },
      { channelId: '2', channelSecret: 'two' },
    ],
  });
  open.push(r);
  return r;
}

function post(url: string, body: string, signature?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature ? { [SIGNATURE_HEADER]: signature } : {}),
    },
    body,
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

  it('keeps but refuses a body with a wrong or missing signature', async () => {
    const r = await receiver();
    const body = '{"events":[]}';
    expect((await post(`${r.url}/webhook`, body, signBody(body, 'three'))).status).toBe(401);
    expect((await post(`${r.url}/webhook`, body)).status).toBe(401);
    expect((await post(`${r.url}/webhook`, 'not json', signBody('not json', 'one'))).status).toBe(
      200,
    );
    expect(r.list().map((w) => w.signature)).toEqual(['valid', 'missing', 'invalid']);
    expect(r.list()[0]!.json).toBeUndefined();
    r.clear();
    expect(r.list()).toEqual([]);
  });

  it('takes another port when the preferred one is in use', async () => {
    const first = await receiver();
    const port = Number(new URL(first.url).port);
    const second = await receiver(port);
    expect(Number(new URL(second.url).port)).not.toBe(port);
  });
});
