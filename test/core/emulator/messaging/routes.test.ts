// Mark as read (old) through HTTP, and the 2,000-per-second limit it shares with the module and
// notification calls: exact on a controlled clock, and holding under a real loopback burst.
import { describe, expect, it } from 'vitest';
import { createMessagingArea } from '../../../../src/core/emulator/messaging/routes';
import { RateLimiter, REQUESTS_PER_SECOND } from '../../../../src/core/emulator/rate-limit';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();

async function newUser() {
  const { body } = await emu().admin('POST', '/users', { displayName: 'Reader' });
  return (body as { userId: string }).userId;
}

describe('mark as read (old)', () => {
  it('answers 200 with an empty object and remembers the mark', async () => {
    const userId = await newUser();
    const res = await emu().call('POST', '/v2/bot/message/markAsRead', { chat: { userId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const marks = await emu().admin('GET', '/messaging/read-marks');
    expect(marks.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ userId, markedAt: expect.any(Number) })]),
    );
  });

  it.each([
    ['a malformed user ID', { chat: { userId: 'nobody' } }, 'chat.userId'],
    ['an unknown user', { chat: { userId: `U${'0'.repeat(32)}` } }, 'chat.userId'],
    ['no chat', {}, 'chat'],
    ['a number for userId', { chat: { userId: 7 } }, 'chat.userId'],
  ])('answers 400 naming the field for %s, and marks nothing', async (_, body, field) => {
    const before = (await emu().admin('GET', '/messaging/read-marks')).body as unknown[];
    const res = await emu().call('POST', '/v2/bot/message/markAsRead', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: expect.any(String),
      details: [expect.objectContaining({ property: field })],
    });
    expect((await emu().admin('GET', '/messaging/read-marks')).body).toEqual(before);
  });

  it('answers 401 without a channel token', async () => {
    const res = await emu().call(
      'POST',
      '/v2/bot/message/markAsRead',
      { chat: { userId: 'x' } },
      null,
    );
    expect(res.status).toBe(401);
  });
});

describe('rate limiter', () => {
  it('accepts exactly the limit in any one-second window, then frees a slot per second passed', () => {
    let now = 0;
    const limiter = new RateLimiter(2000, () => now);
    let accepted = 0;
    for (let i = 0; i < 2500; i++) if (limiter.take('a')) accepted++;
    expect(accepted).toBe(2000);
    // Another key has its own budget.
    expect(limiter.take('b')).toBe(true);
    // Those 2,000 leave the window together one second later.
    now = 999;
    expect(limiter.take('a')).toBe(false);
    now = 1000;
    for (let i = 0; i < 2000; i++) expect(limiter.take('a')).toBe(true);
    expect(limiter.take('a')).toBe(false);
  });

  it('frees one slot for each request that leaves the window', () => {
    let now = 0;
    const limiter = new RateLimiter(3, () => now);
    for (const t of [0, 100, 200]) {
      now = t;
      expect(limiter.take('a')).toBe(true);
    }
    now = 999;
    expect(limiter.take('a')).toBe(false);
    now = 1000;
    expect(limiter.take('a')).toBe(true);
    expect(limiter.take('a')).toBe(false);
    now = 1100;
    expect(limiter.take('a')).toBe(true);
  });

  it("defaults to the platform's limit of 2,000 per second", () => {
    expect(REQUESTS_PER_SECOND).toBe(2000);
    const limiter = new RateLimiter(undefined, () => 0);
    let accepted = 0;
    for (let i = 0; i < 2001; i++) if (limiter.take('a')) accepted++;
    expect(accepted).toBe(2000);
  });

  it('spreads over the window: a steady 2,000/s is never refused', () => {
    let now = 0;
    const limiter = new RateLimiter(2000, () => now);
    for (let i = 0; i < 6000; i++) {
      now = i * 0.5;
      expect(limiter.take('a')).toBe(true);
    }
  });
});

// This machine cannot be relied on to serve 2,000 requests within a second, so the burst runs
// against the same limiter configured lower; the limit's value is checked above.
describe('rate limit over HTTP', () => {
  const limit = 100;
  const small = useEmulator({ areas: [createMessagingArea({ requestsPerSecond: limit })] });

  it('answers 429 above the limit within a second, per channel', async () => {
    const userId = (
      (await small().admin('POST', '/users', { displayName: 'R' })).body as {
        userId: string;
      }
    ).userId;
    const total = limit + 60;
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: total }, () =>
        small()
          .call('POST', '/v2/bot/message/markAsRead', { chat: { userId } })
          .then((r) => r),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const ok = statuses.filter((r) => r.status === 200).length;
    const limited = statuses.filter((r) => r.status === 429);
    expect(ok + limited.length).toBe(total);
    expect(ok).toBeGreaterThanOrEqual(limit);
    expect(ok).toBeLessThanOrEqual(limit * Math.ceil(seconds));
    if (seconds < 1) expect(limited.length).toBe(total - limit);
    expect(limited[0]?.body).toEqual({ message: expect.stringContaining('rate limit') });
    // Another channel is not limited by the first one's burst.
    const other = (await small().admin('POST', '/channels', { name: 'Other' })).body as {
      channelAccessToken: string;
    };
    const res = await small().call(
      'POST',
      '/v2/bot/message/markAsRead',
      { chat: { userId } },
      other.channelAccessToken,
    );
    expect(res.status).toBe(200);
  });
});
