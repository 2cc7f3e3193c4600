import { describe, expect, it } from 'vitest';
import { wallClock } from '../../../src/core/async/clock';

describe('wallClock', () => {
  it('reads the time of day and fires timers that were not cleared', async () => {
    const clock = wallClock();
    const before = Date.now();
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    const fired: string[] = [];
    const cleared = clock.setTimeout(() => fired.push('cleared'), 5);
    const done = new Promise<void>((resolve) =>
      clock.setTimeout(() => {
        fired.push('kept');
        resolve();
      }, 20),
    );
    clock.clearTimeout(cleared);
    await done;
    expect(fired).toEqual(['kept']);
  });
});
