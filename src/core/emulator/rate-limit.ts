// Per-channel, per-operation request rate limits (docs/platform-api.md#rate-limits: 2,000 per
// second), counted on the real clock: a rate is about how fast requests arrive, which moving the
// virtual clock forward must not change.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** docs/platform-api.md#rate-limits. */
export const REQUESTS_PER_SECOND = 2000;
const WINDOW_MS = 1000;

interface Window {
  /** Times of the last `limit` accepted requests, a ring: `next` is the oldest once full. */
  stamps: Float64Array;
  next: number;
  count: number;
}

/**
 * A sliding window: a request is refused when `limit` requests were already accepted in the
 * second before it. Unlike a fixed window, no burst straddling a boundary gets twice the limit.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit = REQUESTS_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(key: string): boolean {
    let w = this.windows.get(key);
    if (!w)
      this.windows.set(key, (w = { stamps: new Float64Array(this.limit), next: 0, count: 0 }));
    const t = this.now();
    if (w.count === this.limit) {
      if (t - (w.stamps[w.next] as number) < WINDOW_MS) return false;
    } else w.count++;
    w.stamps[w.next] = t;
    w.next = (w.next + 1) % this.limit;
    return true;
  }
}

/**
 * True when the caller's channel may make this request now; otherwise answers 429 as the
 * messaging API does. `operation` names the limited operation (each has its own budget).
 */
export function withinRate(
  limiter: RateLimiter,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  if (limiter.take(`${request.channel?.channelId ?? ''}:${operation}`)) return true;
  void reply.code(429).send({ message: 'The API rate limit has been exceeded. Try again later.' });
  return false;
}
