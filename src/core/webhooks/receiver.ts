// The app's own webhook receiver: a loopback endpoint that takes any POST, verifies the
// signature against the secrets of the channels it knows, and keeps what verified so the UI can
// show it. Point the emulator (or a tunnel to a real platform) at it to watch events land.
// Unsigned, badly signed, stale and replayed deliveries are refused and not kept, so no page
// or sender without a secret can push real entries out (docs/decisions.md, "Hardening").
import Fastify from 'fastify';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../net/json-body';
import { guardLoopback } from '../net/loopback-guard';
import { MAX_REQUEST_BYTES } from '../bounds';
import { SIGNATURE_HEADER, verifySignature } from './signature';
import type { ReceivedWebhook } from './schema';

/** How far an event's `timestamp` may be from the sender's clock, either way. */
export const REPLAY_WINDOW_MS = 5 * 60_000;
/** Replay keys (event IDs, signatures) remembered; the oldest are forgotten first. */
const REPLAY_MEMORY = 10_000;

export interface ChannelSecret {
  channelId: string;
  channelSecret: string;
  /**
   * The sender's clock for this channel (the emulator's virtual clock for its channels), against
   * which event timestamps are checked as well as real time.
   */
  now?: () => number;
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

  // Replay keys in arrival order, so the oldest can be forgotten first.
  const seen = new Set<string>();

  const app = Fastify({ logger: false, bodyLimit: MAX_REQUEST_BYTES });
  guardLoopback(app);
  // The signature is over the raw bytes: keep every body as text, whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/*', async (request, reply) => {
    const body = typeof request.body === 'string' ? request.body : '';
    const header = request.headers[SIGNATURE_HEADER];
    const signatureHeader = Array.isArray(header) ? undefined : header;
    if (!signatureHeader)
      return reply.code(401).send({ message: `No single ${SIGNATURE_HEADER} header: refused.` });
    const secrets = await options.secrets();
    const match = secrets.find((s) => verifySignature(body, s.channelSecret, signatureHeader));
    if (!match)
      return reply
        .code(401)
        .send({ message: 'The signature matches no known channel secret: refused.' });

    const json = parseJson(body);
    const events = envelopeEvents(json);
    const stale = events.find(
      (e) => e.timestamp !== undefined && !inWindow(e.timestamp, [Date.now(), match.now?.()]),
    );
    if (stale)
      return reply.code(400).send({
        message: `Event timestamp ${stale.timestamp} is more than ${REPLAY_WINDOW_MS / 60_000} minutes from now: refused as a possible replay.`,
      });
    // An event is known by its ID; other bodies by their signature, i.e. their bytes. An envelope
    // with no events (the URL check) carries nothing to act on and is the same every time.
    const ids = events.flatMap((e) => (e.webhookEventId ? [`event:${e.webhookEventId}`] : []));
    const keys = ids.length
      ? ids
      : isEmptyEnvelope(json)
        ? []
        : [`signature:${match.channelId}:${signatureHeader}`];
    if (keys.some((key) => seen.has(key)))
      return reply.code(409).send({ message: 'Already received: a replay is refused.' });
    for (const key of keys) remember(key);

    const webhook: ReceivedWebhook = {
      id: nextId++,
      receivedAt: Date.now(),
      path: request.url,
      contentType: request.headers['content-type'],
      signatureHeader,
      signature: 'valid',
      channelId: match.channelId,
      body,
      json,
      eventTypes: events.flatMap((e) => (e.type ? [e.type] : [])),
      status: 200,
    };
    received = [webhook, ...received].slice(0, keep);
    for (const listener of listeners) listener(webhook);
    return reply.code(200).send({});
  });

  function remember(key: string): void {
    seen.add(key);
    if (seen.size > REPLAY_MEMORY) seen.delete(seen.values().next().value as string);
  }

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

/** The body as JSON for the UI; kept as text only when it is not JSON or nests too deep to show. */
function parseJson(body: string): unknown {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function isEmptyEnvelope(json: unknown): boolean {
  return (
    !!json &&
    typeof json === 'object' &&
    'events' in json &&
    Array.isArray(json.events) &&
    json.events.length === 0
  );
}

function inWindow(timestamp: number, clocks: (number | undefined)[]): boolean {
  return clocks.some((now) => now !== undefined && Math.abs(timestamp - now) <= REPLAY_WINDOW_MS);
}

interface EnvelopeEvent {
  type?: string;
  webhookEventId?: string;
  timestamp?: number;
}

/** `events[]` of a platform envelope, each with what the receiver reads, when well-typed. */
function envelopeEvents(json: unknown): EnvelopeEvent[] {
  if (!json || typeof json !== 'object' || !('events' in json) || !Array.isArray(json.events))
    return [];
  return json.events.map((e: unknown) => {
    if (!e || typeof e !== 'object') return {};
    const event = e as Record<string, unknown>;
    return {
      type: typeof event['type'] === 'string' ? event['type'] : undefined,
      webhookEventId:
        typeof event['webhookEventId'] === 'string' ? event['webhookEventId'] : undefined,
      timestamp: typeof event['timestamp'] === 'number' ? event['timestamp'] : undefined,
    };
  });
}
