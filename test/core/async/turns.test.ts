import { describe, expect, it } from 'vitest';
import { createTurns } from '../../../src/core/async/turns';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** Work that notes in `log` when it starts and ends, a tick apart, and returns its name. */
function noted(log: string[], name: string) {
  return async () => {
    log.push(`${name} start`);
    await tick();
    log.push(`${name} end`);
    return name;
  };
}

describe('createTurns', () => {
  it('runs work under one key one at a time, in call order', async () => {
    const inTurn = createTurns();
    const log: string[] = [];
    const done = await Promise.all([inTurn('p', noted(log, 'a')), inTurn('p', noted(log, 'b'))]);
    expect(done).toEqual(['a', 'b']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('lets different keys overlap', async () => {
    const inTurn = createTurns();
    const log: string[] = [];
    await Promise.all([inTurn('p', noted(log, 'a')), inTurn('q', noted(log, 'b'))]);
    expect(log.slice(0, 2)).toEqual(['a start', 'b start']);
  });

  it('goes on after a failed turn and hands the failure to its caller only', async () => {
    const inTurn = createTurns();
    const failed = inTurn('p', () => Promise.reject(new Error('taken')));
    const next = inTurn('p', () => Promise.resolve('next'));
    await expect(failed).rejects.toThrow('taken');
    expect(await next).toBe('next');
  });
});
