// The bench server: the app's contract over HTTP + WebSocket on loopback, and the built
// renderer as static files, so the same UI runs in a browser (`npm run web`, e2e tests).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyError } from 'fastify';
import { Readable } from 'node:stream';
import { events, type AppErrorBody, type EventName } from '../core/app/contract';
import { AUDIT_EXPORT_PATH } from '../core/app/contracts/audit';
import { MAX_OPERATION_BODY_BYTES } from '../core/app/contracts/fields';
import { CONTENT_SECURITY_POLICY } from '../core/content-security-policy';
import { startApp, type AppService } from '../core/app/service';
import { boundJsonDepth } from '../core/net/json-body';
import { guardLoopback } from '../core/net/loopback-guard';
import {
  MemoryCredentialStore,
  type CredentialStore,
  type KeychainStatus,
} from '../core/secrets/credential-store';

export interface BenchServerOptions {
  dataDir: string;
  /** The built renderer (`npm run build:web`). */
  staticDir?: string;
  port?: number;
  credentials?: { store: CredentialStore; status: KeychainStatus };
  version?: string;
}

export interface BenchServer {
  url: string;
  service: AppService;
  close(): Promise<void>;
}

const OPS_PREFIX = '/api/ops/';

/**
 * The whole request, headers and body, must arrive within this: the page and the CLI are on
 * this machine and send the largest body (7 MB) in well under a second; a client that promises a
 * body it does not send, or sends nothing, is answered 408 and closed.
 */
const REQUEST_WITHIN_MS = 5_000;
/** An idle keep-alive connection between requests is closed after this (Node's own default). */
const IDLE_KEEP_ALIVE_MS = 5_000;
/** How often Node looks for a request past REQUEST_WITHIN_MS. */
const TIMEOUT_CHECK_MS = 1_000;

const STATUS_BY_CODE: Record<AppErrorBody['code'], number> = {
  invalid_input: 400,
  unknown_operation: 404,
  not_configured: 409,
  device: 502,
  platform: 502,
  unreachable: 502,
  internal: 500,
};

export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const credentials = options.credentials ?? {
    store: new MemoryCredentialStore(),
    status: {
      kind: 'memory' as const,
      reason: 'The browser bench keeps secrets in memory until it stops.',
    },
  };
  const service = await startApp({
    dataDir: options.dataDir,
    credentials: credentials.store,
    keychain: credentials.status,
    version: options.version ?? '0.0.0',
  });

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_OPERATION_BODY_BYTES,
    // Bounded on every connection (docs/decisions/security-and-hardening.md, "No 500 from any
    // operation"): Node checks these once a second here, not every 30 s.
    http: {
      headersTimeout: REQUEST_WITHIN_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    requestTimeout: REQUEST_WITHIN_MS,
    keepAliveTimeout: IDLE_KEEP_ALIVE_MS,
  });
  // Only this machine's clients and this server's own page may drive the app: blocks other web
  // pages and DNS rebinding, and closes what it refuses (docs/decisions.md, "Hardening").
  guardLoopback(app);
  // The contract's input check names a prototype key's field; the parser only bounds depth.
  boundJsonDepth(app, 'keep');
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    done(null, payload);
  });
  // An operation whose body the server cannot read still gets a Result envelope naming it.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (!request.url.startsWith(OPS_PREFIX))
      return reply.code(status).send({ message: status < 500 ? error.message : 'Internal error' });
    if (status >= 500)
      return reply
        .code(500)
        .send({ ok: false, error: { code: 'internal', message: error.message } });
    const message =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? `is over ${MAX_OPERATION_BODY_BYTES} bytes, more than any operation takes (files up to 2 MB)`
        : error.message;
    return reply.code(status).send({
      ok: false,
      error: {
        code: 'invalid_input',
        message: `(body): ${message}`,
        fields: [{ field: '(body)', message }],
      },
    });
  });

  await app.register(fastifyWebsocket);
  app.get('/api/events', { websocket: true }, (socket) => {
    const unsubscribe = (Object.keys(events) as EventName[]).map((event) =>
      service.subscribe(event, (payload) => socket.send(JSON.stringify({ event, payload }))),
    );
    socket.on('close', () => unsubscribe.forEach((u) => u()));
  });

  app.post<{ Params: { name: string } }>(`${OPS_PREFIX}:name`, async (request, reply) => {
    const result = await service.invoke(request.params.name, request.body);
    return reply.code(result.ok ? 200 : STATUS_BY_CODE[result.error.code]).send(result);
  });

  // The audit export as a download the browser saves where its user says, streamed chunk by
  // chunk (docs/decisions.md, "Audit log off the window's thread, exports as streams"). A link
  // from another site is refused: the loopback guard lets Origin-less navigations through.
  app.get<{ Querystring: { query?: string; exportId?: string } }>(
    AUDIT_EXPORT_PATH,
    async (request, reply) => {
      if (request.headers['sec-fetch-site'] === 'cross-site')
        return reply.code(403).send({ message: 'Refused: the export is for this page only.' });
      let query: unknown;
      try {
        query = JSON.parse(request.query.query ?? '{}');
      } catch {
        query = request.query.query;
      }
      const result = await service.downloadAuditCsv({ query, exportId: request.query.exportId });
      if (!result.ok) return reply.code(STATUS_BY_CODE[result.error.code]).send(result);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${result.value.fileName}"`)
        .send(Readable.from(result.value.body));
    },
  );

  const staticDir = resolve(options.staticDir ?? 'out/web');
  if (existsSync(staticDir)) {
    await app.register(fastifyStatic, { root: staticDir });
  } else {
    app.get('/', async (_request, reply) =>
      reply
        .type('text/plain')
        .send(`The renderer is not built (${staticDir} is missing): run npm run build:web.`),
    );
  }

  try {
    await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  } catch (err) {
    await service.close();
    throw err;
  }
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('bench server has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    service,
    close: async () => {
      await app.close();
      await service.close();
    },
  };
}
