import { describe, expect, it } from 'vitest';
import { withTimeout, type Schedule } from '../../../src/core/async/timeout';

/** A schedule the test fires by hand, and that tells whether it was cancelled. */
function manualSchedule() {
  const state = { fire: () => {}, cancelled: false };
  const schedule: Schedule = (callback) => {
    state.fire = callback;
    return () => {
      state.cancelled = true;
    };
  };
  return { schedule, state };
}

describe('withTimeout', () => {
  it('settles as the operation does and cancels the timer', async () => {
    const { schedule, state } = manualSchedule();
    await expect(
      withTimeout(Promise.resolve(7), 10, () => new Error('late'), schedule),
    ).resolves.toBe(7);
    expect(state.cancelled).toBe(true);
    await expect(
      withTimeout(Promise.reject(new Error('refused')), 10, () => new Error('late'), schedule),
    ).rejects.toThrow('refused');
  });

  it('rejects with the timeout error, and a late rejection is not unhandled', async () => {
    const { schedule, state } = manualSchedule();
    let failLate: (err: Error) => void = () => {};
    const operation = new Promise<never>((_, reject) => (failLate = reject));
    const bounded = withTimeout(operation, 10, () => new Error('no answer within 10 ms'), schedule);
    state.fire();
    await expect(bounded).rejects.toThrow('no answer within 10 ms');
    failLate(new Error('after the timeout'));
    await new Promise((resolve) => setTimeout(resolve, 0));
  });

  it('uses a real timer by default', async () => {
    const never = new Promise<never>(() => {});
    await expect(withTimeout(never, 5, () => new Error('timed out'))).rejects.toThrow('timed out');
  });
});
