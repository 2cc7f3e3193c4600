// The one fence every listener the app opens puts up (bench server and its WebSocket, the webhook
// receiver, the emulator): only requests addressed to this machine's loopback names, and from no
// other web page, get in. A Host check stops DNS rebinding (a page whose name now points at
// 127.0.0.1); an Origin check stops any other page the user has open. Refused connections are
// closed, not left open: a refused WebSocket upgrade otherwise keeps its socket forever.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Host names that always mean this machine; any port. */
const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface LoopbackGuardOptions {
  /** Further host names (no port) to accept, e.g. a container's service name. */
  extraHostnames?: readonly string[];
}

/** The host name of a Host header (`name:port`, `[v6]:port`), lowercased; undefined if malformed. */
export function hostnameOf(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host);
  return match?.[1]?.toLowerCase();
}

/**
 * Why a request must be refused, or undefined when it may pass: a Host that is not one of
 * ours, or an Origin that is not the page this very Host serves.
 */
export function refusalReason(
  headers: { host?: string; origin?: string | string[] },
  options: LoopbackGuardOptions = {},
): string | undefined {
  const host = headers.host ?? '';
  const name = hostnameOf(host);
  const allowed = [...LOOPBACK_HOSTNAMES, ...(options.extraHostnames ?? [])];
  if (!name || !allowed.includes(name))
    return `Host "${host}" is not this machine's loopback address`;
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  if (Array.isArray(origin) || origin.toLowerCase() !== `http://${host.toLowerCase()}`)
    return `Origin "${String(origin)}" is another web page`;
  return undefined;
}

/**
 * True when the request may pass. Otherwise answers 403 `{ message }` and closes the connection
 * once the answer is written (`Connection: close` for plain HTTP; an upgrade's socket is closed
 * by hand, since Node no longer manages it). For a listener's own first hook.
 */
export function admitLoopback(
  request: FastifyRequest,
  reply: FastifyReply,
  options: LoopbackGuardOptions = {},
): boolean {
  const reason = refusalReason(request.headers, options);
  if (!reason) return true;
  closeOnceAnswered(request, reply);
  void reply.code(403).send({
    message: `Refused: ${reason}; only local clients and this server's own page may call it.`,
  });
  return false;
}

/**
 * Closes the connection once the answer is written: `Connection: close` for plain HTTP, and by
 * hand for an upgrade request that gets an HTTP answer, whose socket Node no longer manages.
 */
export function closeOnceAnswered(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket;
  reply.raw.once('finish', () => socket.destroySoon());
  void reply.header('connection', 'close');
}

/** `admitLoopback` as an onRequest hook; register it before any other hook or plugin. */
export function guardLoopback(app: FastifyInstance, options: LoopbackGuardOptions = {}): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (admitLoopback(request, reply, options)) done();
  });
}
