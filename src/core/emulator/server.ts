// The embedded platform emulator: one Fastify server mounting every area's routes, with the
// cross-cutting behaviour of the real platform (request IDs, 2 MB limit, Bearer channel auth,
// JSON error bodies) plus the admin API, fault injection and the activity log. Every input is
// bounded before a route sees it: loopback Host and Origin only, JSON depth, one value per query
// parameter (docs/decisions.md, "Hardening").
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { boundJsonDepth } from '../net/json-body';
import { admitLoopback, closeOnceAnswered, type LoopbackGuardOptions } from '../net/loopback-guard';
import { MAX_REQUEST_BYTES } from '../bounds';
import { REQUEST_ID_HEADER } from '../platform/http';
import { ActivityLog } from './activity-log';
import { adminRoutes } from './admin-routes';
import { bearerTokenOf, refuseChannelToken } from './bearer';
import type { EmulatorArea, EmulatorContext } from './area';
import { PLATFORM_AREAS } from './areas';
import { Directory, type Channel } from './channels';
import { Clock } from './clock';
import { faultBody, Faults } from './faults';
import { openStore } from './store';
import { UserTokens } from './user-tokens';
import { Webhooks } from './webhooks';

const ADMIN_PREFIX = '/__admin';

export interface EmulatorOptions {
  /** SQLite file holding the state; omitted means in memory, gone on close. */
  dataFile?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  areas?: EmulatorArea[];
  /** Host names besides the loopback ones it answers to (e.g. a container's service name). */
  allowedHostnames?: readonly string[];
}

export interface EmulatorRoute {
  method: string;
  url: string;
}

export interface RunningEmulator {
  url: string;
  adminUrl: string;
  ctx: EmulatorContext;
  faults: Faults;
  channels(): Channel[];
  /** Every route it serves, as Fastify registered them (path parameters as `:name`). */
  routes: readonly EmulatorRoute[];
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const db = openStore(options.dataFile);
  const clock = new Clock(db);
  const directory = new Directory(db, () => clock.now());
  const ctx: EmulatorContext = {
    db,
    clock,
    directory,
    activity: new ActivityLog(),
    webhooks: new Webhooks(db, clock, directory),
    userTokens: new UserTokens(db, () => clock.now()),
  };
  ctx.directory.ensureDefaultChannel();
  const faults = new Faults();
  const areas = options.areas ?? PLATFORM_AREAS;
  for (const area of areas) area.migrate(ctx);

  const routes: EmulatorRoute[] = [];
  const app = buildApp(ctx, faults, areas, routes, {
    extraHostnames: options.allowedHostnames,
  });
  try {
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  } catch (err) {
    db.close();
    throw err;
  }
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('emulator has no TCP address');
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    adminUrl: url + ADMIN_PREFIX,
    ctx,
    faults,
    channels: () => ctx.directory.channels(),
    routes,
    close: async () => {
      await app.close();
      db.close();
    },
  };
}

function buildApp(
  ctx: EmulatorContext,
  faults: Faults,
  areas: EmulatorArea[],
  routes: EmulatorRoute[],
  guard: LoopbackGuardOptions,
): FastifyInstance {
  const app = Fastify({ bodyLimit: MAX_REQUEST_BYTES, logger: false, return503OnClosing: false });
  app.addHook('onRoute', ({ method, url }) => {
    for (const m of [method].flat()) routes.push({ method: m, url });
  });
  boundJsonDepth(app);

  // One hook in, one out, callback style: they run on every request, and each hook Fastify
  // iterates (and each promise an async one makes) is a measurable share of a small request.
  app.addHook('onRequest', (request, reply, done) => {
    request.platformRequestId = randomUUID();
    reply.header(REQUEST_ID_HEADER, request.platformRequestId);
    if (!admitLoopback(request, reply, guard)) return;
    // The emulator serves no WebSocket: an upgrade only ever gets an HTTP answer (a 404, say),
    // after which its connection is closed rather than held open.
    if (request.headers.upgrade !== undefined) closeOnceAnswered(request, reply);
    if (request.is404) return done();
    if (request.url.startsWith(ADMIN_PREFIX)) return singleQueryValues(request, reply) && done();

    const fault = faults.take(request.url);
    if (fault?.kind === 'status') {
      request.faultApplied = `status ${fault.status}`;
      return void reply.code(fault.status).send(faultBody(fault.status));
    }
    const proceed = () =>
      authenticate(request, reply) && singleQueryValues(request, reply) ? done() : undefined;
    if (fault?.kind === 'latency') {
      request.faultApplied = `latency ${fault.latencyMs} ms`;
      setTimeout(proceed, fault.latencyMs);
    } else proceed();
  });

  app.addHook('onResponse', (request, reply, done) => {
    done();
    const admin = request.url.startsWith(ADMIN_PREFIX);
    if (admin && request.method === 'GET') return;
    ctx.activity.record(request.url, {
      at: ctx.clock.now(),
      method: request.method,
      status: reply.statusCode,
      requestId: request.platformRequestId,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      channelId: request.channel?.channelId,
      fault: request.faultApplied,
      admin: admin || undefined,
    });
  });

  /** Bearer channel auth unless the route opts out; answers 401 itself and says so. */
  function authenticate(request: FastifyRequest, reply: FastifyReply): boolean {
    if (request.routeOptions.config.auth === 'none') return true;
    const token = bearerTokenOf(request);
    request.channel = token ? ctx.directory.channelByToken(token) : undefined;
    if (request.channel) return true;
    refuseChannelToken(reply, token !== undefined);
    return false;
  }

  /**
   * A repeated query parameter arrives as an array, which no route's schema expects and SQLite
   * must never see: answers 400 naming it.
   */
  function singleQueryValues(request: FastifyRequest, reply: FastifyReply): boolean {
    const query = request.query as Record<string, unknown>;
    const repeated = Object.keys(query).filter((key) => Array.isArray(query[key]));
    if (repeated.length === 0) return true;
    void reply.code(400).send({
      message: `Invalid value: ${repeated.map((key) => `${key}: must be given once`).join('; ')}`,
      details: repeated.map((key) => ({ property: key, message: 'must be given once' })),
    });
    return false;
  }

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.code(413).send({ message: 'Request exceeds 2 MB.' });
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.code(status).send({ message: error.message });
    return reply.code(500).send({ message: 'An error occurred in the emulator.' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ message: `No such endpoint: ${request.method} ${request.url}` }),
  );

  void app.register(
    async (scope) => {
      adminRoutes(scope, ctx, faults);
      for (const { name, admin } of areas) {
        if (admin) void scope.register(async (s) => admin(s, ctx), { prefix: `/${name}` });
      }
    },
    { prefix: ADMIN_PREFIX },
  );

  for (const area of areas) area.routes(app, ctx);

  return app;
}
