// The app's own webhook receiver: a loopback endpoint that takes any POST, verifies the
// signature against the secrets of the channels it knows, and keeps what arrived so the UI can
// show it. Point the emulator (or a tunnel to a real platform) at it to watch events land.
import Fastify from 'fastify';
import { SIGNATURE_HEADER, verifySignature } from './signature';
import type { ReceivedWebhook } from './schema';

export interface ChannelSecret {
  channelId: string;
  channelSecret: string;
}

export interface WebhookReceiverOptions {
  host?: string;
  /** Tried first; when it is taken, any free port. 0 means any free port. */
  port?: number;
  /** The secrets a signature may be made with, asked for on every request. */
  secrets: () => Promise<ChannelSecret[]> | ChannelSecret[];
  /** How many received webhooks are kept, newest first. */
  keep?: number;
}

export interface WebhookReceiver {
  /** Base URL; any path below it is accepted, e.g. `${url}/webhook`. */
  url: string;
  list(): ReceivedWebhook[];
  clear(): void;
  onReceived(listener: (webhook: ReceivedWebhook) => void): () => void;
  close(): Promise<void>;
}

/** Signature checked against every known channel secret; the first that matches names the channel. */
export async function startWebhookReceiver(
  options: WebhookReceiverOptions,
): Promise<WebhookReceiver> {
  const keep = options.keep ?? 500;
  let received: ReceivedWebhook[] = [];
  let nextId = 1;
  const listeners = new Set<(webhook: ReceivedWebhook) => void>();

  const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 });
  // The signature is over the raw bytes: keep every body as text, whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/*', async (request, reply) => {
    const body = typeof request.body === 'string' ? request.body : '';
    const header = request.headers[SIGNATURE_HEADER];
    const signatureHeader = Array.isArray(header) ? header[0] : header;
    const secrets = await options.secrets();
    const match = signatureHeader
      ? secrets.find((s) => verifySignature(body, s.channelSecret, signatureHeader))
      : undefined;
    const signature = !signatureHeader ? 'missing' : match ? 'valid' : 'invalid';
    // A receiver must drop what it cannot verify; answering 401 lets the sender record it failed.
    const status = signature === 'valid' ? 200 : 401;
    const json = parseJson(body);
    const webhook: ReceivedWebhook = {
      id: nextId++,
      receivedAt: Date.now(),
      path: request.url,
      contentType: request.headers['content-type'],
      signatureHeader,
      signature,
      channelId: match?.channelId,
      body,
      json,
      eventTypes: eventTypes(json),
      status,
    };
    received = [webhook, ...received].slice(0, keep);
    for (const listener of listeners) listener(webhook);
    return reply
      .code(status)
      .send(
        status === 200 ? {} : { message: `Signature ${signature}: the event was not accepted.` },
      );
  });

  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !options.port) throw err;
    await app.listen({ host, port: 0 });
  }
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('receiver has no TCP address');

  return {
    url: `http://${host}:${address.port}`,
    list: () => received,
    clear: () => {
      received = [];
    },
    onReceived: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => app.close(),
  };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function eventTypes(json: unknown): string[] {
  if (!json || typeof json !== 'object' || !('events' in json) || !Array.isArray(json.events))
    return [];
  return json.events.flatMap((e: unknown) =>
    e && typeof e === 'object' && 'type' in e && typeof e.type === 'string' ? [e.type] : [],
  );
}
