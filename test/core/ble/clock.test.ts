// The manual clock and seeded randomness that make simulated runs repeatable.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';
import { rig, board, type Rig } from './fixture';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

describe('ManualSimClock', () => {
  it('fires due timers in time order, including ones set while advancing, and nothing early', async () => {
    const clock = new ManualSimClock(1000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    const cancelled = clock.setTimeout(() => fired.push('cancelled'), 15);
    clock.setTimeout(() => {
      fired.push(`a@${clock.now()}`);
      clock.setTimeout(() => fired.push(`a2@${clock.now()}`), 5);
    }, 10);
    clock.clearTimeout(cancelled);
    await clock.advance(14);
    expect(fired).toEqual(['a@1010']);
    expect(clock.now()).toBe(1014);
    await clock.advance(100);
    expect(fired).toEqual(['a@1010', 'a2@1015', 'b@1020']);
    expect(clock.timerCount).toBe(0);
    await expect(clock.advance(-1)).rejects.toThrow('ms must be >= 0');
  });

  it('lets promise chains run between timers', async () => {
    const clock = new ManualSimClock();
    const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
    const steps: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(10);
        steps.push(clock.now());
      }
    })();
    await clock.advance(30);
    expect(steps).toEqual([10, 20, 30]);
  });
});

describe('seeded simulation', () => {
  const rssis = async (seed: number) => {
    r = rig(
      [board({ name: 'Noisy', advertising: { intervalMs: 20, rssi: { mean: -70, noise: 6 } } })],
      { seed },
    );
    const ads = await r.collect({}, 400);
    await r.close();
    r = undefined;
    return ads.map((a) => a.rssi);
  };

  it('gives the same RSSI noise under the same seed, different noise under another', async () => {
    const first = await rssis(42);
    expect(first.length).toBe(20);
    expect(new Set(first).size).toBeGreaterThan(3);
    expect(await rssis(42)).toEqual(first);
    expect(await rssis(43)).not.toEqual(first);
    const mean = first.reduce((a, b) => a + b, 0) / first.length;
    expect(mean).toBeGreaterThan(-76);
    expect(mean).toBeLessThan(-64);
  });
});
