// The emulator's admin API (`/__admin`): seed channels, users and user tokens, set webhook
// URLs, move the virtual clock, inject faults, and read what the emulator did (requests and
// webhook deliveries). Not part of the platform; loopback only.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { userIdField } from '../platform/user-id';
import { parseOr400, type EmulatorContext } from './area';
import type { Faults } from './faults';
import {
  clockAdvanceInputSchema,
  faultInputSchema,
  MAX_CLOCK_OFFSET_MS,
  mintUserTokenInputSchema,
  webhookSettingsSchema,
  webhookUrlInputSchema,
} from './schema';

const channelInput = z.object({ name: z.string().trim().min(1).max(100).default('Channel') });
const userInput = z.object({
  displayName: z.string().trim().min(1).max(100).default('Bench user'),
  userId: userIdField.optional(),
});
const logQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });
const deliveriesQuery = logQuery.extend({
  channelId: z.string().optional(),
  kind: z.string().optional(),
});
const tokensQuery = z.object({ channelId: z.string().optional(), userId: z.string().optional() });

export function adminRoutes(app: FastifyInstance, ctx: EmulatorContext, faults: Faults): void {
  app.get('/state', async () => ({
    clock: { now: ctx.clock.now(), offsetMs: ctx.clock.offsetMs },
    channels: ctx.directory.channels(),
    users: ctx.directory.users(),
    faults: faults.list(),
  }));

  app.get('/channels', async () => ctx.directory.channels());
  app.post('/channels', async (request, reply) => {
    const input = parseOr400(channelInput, request.body, reply);
    if (input) return reply.code(201).send(ctx.directory.createChannel(input.name));
  });

  app.get('/users', async () => ctx.directory.users());
  app.post('/users', async (request, reply) => {
    const input = parseOr400(userInput, request.body, reply);
    if (input)
      return reply.code(201).send(ctx.directory.createUser(input.displayName, input.userId));
  });

  app.get('/clock', async () => ({ now: ctx.clock.now(), offsetMs: ctx.clock.offsetMs }));
  app.post('/clock/advance', async (request, reply) => {
    const input = parseOr400(clockAdvanceInputSchema, request.body, reply);
    if (!input) return;
    if (!ctx.clock.advance(input.ms))
      return reply.code(400).send({
        message: `Invalid value: ms: the clock would run more than ${MAX_CLOCK_OFFSET_MS} ms (100 years) ahead; reset it first`,
        details: [{ property: 'ms', message: 'would move the clock more than 100 years ahead' }],
      });
    return { now: ctx.clock.now(), offsetMs: ctx.clock.offsetMs };
  });
  app.post('/clock/reset', async () => {
    ctx.clock.reset();
    return { now: ctx.clock.now(), offsetMs: 0 };
  });

  app.get('/faults', async () => faults.list());
  app.post('/faults', async (request, reply) => {
    const input = parseOr400(faultInputSchema, request.body, reply);
    if (input) return reply.code(201).send(faults.add(input));
  });
  app.delete('/faults', async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });

  app.get('/webhooks', async (request, reply) => {
    const query = parseOr400(deliveriesQuery, request.query, reply);
    if (query) return ctx.webhooks.list(query);
  });
  app.get('/webhooks/urls', async () =>
    ctx.directory.channels().map(({ channelId }) => ({
      channelId,
      url: ctx.webhooks.url(channelId) ?? null,
    })),
  );
  app.put('/webhooks/urls', async (request, reply) => {
    const input = parseOr400(webhookUrlInputSchema, request.body, reply);
    if (!input) return;
    if (!ctx.directory.channels().some((c) => c.channelId === input.channelId))
      return reply.code(404).send({ message: `No channel ${input.channelId}.` });
    ctx.webhooks.setUrl(input.channelId, input.url);
    return input;
  });

  app.get('/webhooks/settings', async () => ({ signatureHeader: ctx.webhooks.signatureHeader }));
  app.put('/webhooks/settings', async (request, reply) => {
    const input = parseOr400(webhookSettingsSchema, request.body, reply);
    if (!input) return;
    ctx.webhooks.signatureHeader = input.signatureHeader.toLowerCase();
    return { signatureHeader: ctx.webhooks.signatureHeader };
  });

  // As the platform's "verify webhook URL" does: an envelope with no events, signed as usual.
  app.post('/webhooks/test', async (request, reply) => {
    const input = parseOr400(webhookUrlInputSchema.pick({ channelId: true }), request.body, reply);
    if (!input) return;
    if (!ctx.directory.channels().some((c) => c.channelId === input.channelId))
      return reply.code(404).send({ message: `No channel ${input.channelId}.` });
    return ctx.webhooks.deliver(input.channelId, 'test', {
      destination: input.channelId,
      events: [],
    });
  });

  app.get('/user-tokens', async (request, reply) => {
    const query = parseOr400(tokensQuery, request.query, reply);
    if (query)
      return ctx.userTokens
        .list(query)
        .map((token) => ({ ...token, state: ctx.userTokens.state(token) }));
  });
  app.post('/user-tokens', async (request, reply) => {
    const input = parseOr400(mintUserTokenInputSchema, request.body, reply);
    if (!input) return;
    const channelId = input.channelId ?? ctx.directory.channels()[0]?.channelId;
    if (!channelId || !ctx.directory.channels().some((c) => c.channelId === channelId))
      return reply.code(404).send({ message: `No channel ${input.channelId}.` });
    if (!ctx.directory.user(input.userId))
      return reply.code(404).send({ message: `No user ${input.userId}: add the user first.` });
    const token = ctx.userTokens.mint({ ...input, channelId });
    return reply.code(201).send({ ...token, state: ctx.userTokens.state(token) });
  });

  app.get('/log', async (request, reply) => {
    const query = parseOr400(logQuery, request.query, reply);
    if (query) return ctx.activity.recent(query.limit);
  });
}
