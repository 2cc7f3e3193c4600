// Emulator of the old mark-as-read call (docs/platform-api.md#messaging): 200 `{}` for a known
// user, 400 for an invalid one, 2,000 requests per second. The admin API lists what was marked,
// since the "Read" label itself lives in a client the emulator does not have.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { callerChannel, parseOr400, type EmulatorArea, type EmulatorContext } from '../area';
import { sql } from '../store';
import { RateLimiter, withinRate } from '../rate-limit';
import { USER_ID_PATTERN } from '../../platform/user-id';
import { markAsReadBodySchema, type ReadMark } from '../../platform/messaging/schema';

function routes(
  app: FastifyInstance,
  { db, clock, directory }: EmulatorContext,
  limiter: RateLimiter,
): void {
  app.post('/v2/bot/message/markAsRead', async (req, reply) => {
    if (!withinRate(limiter, 'markAsRead', req, reply)) return;
    const body = parseOr400(markAsReadBodySchema, req.body, reply);
    if (!body) return;
    const { userId } = body.chat;
    if (!USER_ID_PATTERN.test(userId) || !directory.user(userId))
      return reply.code(400).send({
        message: `Invalid user ID: ${JSON.stringify(userId)} is not a user of this channel.`,
        details: [{ property: 'chat.userId', message: 'is not a valid user ID' }],
      });
    sql(
      db,
      `INSERT INTO messaging_read_marks (channel_id, user_id, marked_at) VALUES (?, ?, ?)
       ON CONFLICT(channel_id, user_id) DO UPDATE SET marked_at = excluded.marked_at`,
    ).run(callerChannel(req).channelId, userId, clock.now());
    return {};
  });
}

function admin(app: FastifyInstance, { db }: EmulatorContext): void {
  app.get('/read-marks', async (req, reply) => {
    const query = parseOr400(z.object({ channelId: z.string().optional() }), req.query, reply);
    if (!query) return;
    const rows = sql(
      db,
      `SELECT * FROM messaging_read_marks WHERE (@channelId IS NULL OR channel_id = @channelId)
       ORDER BY marked_at DESC`,
    ).all({ channelId: query.channelId ?? null }) as {
      channel_id: string;
      user_id: string;
      marked_at: number;
    }[];
    return rows.map((r): ReadMark => ({
      channelId: r.channel_id,
      userId: r.user_id,
      markedAt: r.marked_at,
    }));
  });
}

/** `requestsPerSecond` is for tests that cannot make 2,000 requests in a second on their machine. */
export function createMessagingArea(options: { requestsPerSecond?: number } = {}): EmulatorArea {
  return {
    name: 'messaging',
    migrate: ({ db }) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS messaging_read_marks (
          channel_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          marked_at INTEGER NOT NULL,
          PRIMARY KEY (channel_id, user_id)
        );
      `),
    routes: (app, ctx) => routes(app, ctx, new RateLimiter(options.requestsPerSecond)),
    admin,
  };
}

export const messagingArea = createMessagingArea();
