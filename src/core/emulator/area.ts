// The shape every platform area's emulator module has: its tables, its platform routes (channel
// Bearer auth already applied unless a route opts out) and its admin routes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { describeFieldErrors, fieldErrors } from '../platform/field-errors';
import type { ActivityLog } from './activity-log';
import type { Channel, Directory } from './channels';
import type { Clock } from './clock';
import type { Db } from './store';
import type { UserTokens } from './user-tokens';
import type { Webhooks } from './webhooks';

declare module 'fastify' {
  interface FastifyRequest {
    platformRequestId: string;
    channel?: Channel;
    faultApplied?: string;
  }
  interface FastifyContextConfig {
    /** `none` for routes that authenticate their own way (client secrets, Basic auth). */
    auth?: 'channel' | 'none';
  }
}

export interface EmulatorContext {
  db: Db;
  clock: Clock;
  directory: Directory;
  activity: ActivityLog;
  /** Signed delivery to channels' webhook URLs, with every delivery kept. */
  webhooks: Webhooks;
  /** User access tokens (docs/platform-api.md#login), for every route that takes one. */
  userTokens: UserTokens;
}

export interface EmulatorArea {
  name: string;
  /** Creates the area's tables; called once per start, so it must be idempotent. */
  migrate(ctx: EmulatorContext): void;
  routes(app: FastifyInstance, ctx: EmulatorContext): void;
  /** Mounted under `/__admin/<name>`. */
  admin?(app: FastifyInstance, ctx: EmulatorContext): void;
}

/** The caller's channel; routes behind channel auth always have one. */
export function callerChannel(request: FastifyRequest): Channel {
  if (!request.channel) throw new Error(`route ${request.url} reached without channel auth`);
  return request.channel;
}

/**
 * Parses a body, query or params object, or answers 400 with a message naming each bad field
 * (`details[].property` as the messaging API does) and returns undefined.
 */
export function parseOr400<S extends z.ZodType>(
  schema: S,
  value: unknown,
  reply: FastifyReply,
): z.output<S> | undefined {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const errors = fieldErrors(result.error);
  void reply.code(400).send({
    message: `Invalid value: ${describeFieldErrors(errors)}`,
    details: errors.map((e) => ({ property: e.field, message: e.message })),
  });
  return undefined;
}

export function notFound(reply: FastifyReply, message = 'Not found'): void {
  void reply.code(404).send({ message });
}
