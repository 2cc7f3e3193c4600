import { describe, expect, it } from 'vitest';
import { createTurns } from '../../../src/core/async/turns';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('createTurns', () => {
  it('runs work under one key one at a time, in call order', async () => {
    const inTurn = createTurns();
    const log: string[] = [];
    const job = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      return name;
    };
    expect(await Promise.all([inTurn('p', job('a')), inTurn('p', job('b'))])).toEqual(['a', 'b']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('lets different keys overlap', async () => {
    const inTurn = createTurns();
    const log: string[] = [];
    const job = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
    };
    await Promise.all([inTurn('p', job('a')), inTurn('q', job('b'))]);
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
