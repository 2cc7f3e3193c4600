import { describe, expect, it } from 'vitest';
import {
  actionsSpan,
  badgesThatFit,
  badgeWidth,
  inWindow,
  placement,
  ticks,
  visibleRange,
} from '../../../../src/renderer/consoles/scenarios/timeline-window';

describe('windows and the axis', () => {
  it('zooms to the last 10 s, or fits the run with a floor for an instant', () => {
    expect(visibleRange({ start: 0, end: 25_000 }, 'last10s')).toEqual({
      start: 15_000,
      end: 25_000,
    });
    expect(visibleRange({ start: 0, end: 4_000 }, 'last10s')).toEqual({ start: 0, end: 4_000 });
    expect(visibleRange({ start: 0, end: 25_000 }, 'fit')).toEqual({ start: 0, end: 25_000 });
    expect(visibleRange({ start: 50, end: 50 }, 'fit')).toEqual({ start: 50, end: 150 });
  });
  it('zooms to where the actions are: 166 ms of actions fill the axis, not 2 % of 8 s', () => {
    const lanes = [
      { actions: [{ start: 1_200, end: 1_250 }] },
      { actions: [] },
      { actions: [{ start: 1_300, end: 1_366 }] },
    ];
    const span = actionsSpan(lanes);
    expect(span).toEqual({ start: 1_200, end: 1_366 });
    const view = visibleRange({ start: 0, end: 8_000 }, 'actions', span);
    expect(view.start).toBeCloseTo(1_183.4);
    expect(view.end).toBeCloseTo(1_382.6);
    // No actions: the whole run.
    expect(actionsSpan([{ actions: [] }])).toBeUndefined();
    expect(visibleRange({ start: 0, end: 8_000 }, 'actions', undefined)).toEqual({
      start: 0,
      end: 8_000,
    });
  });
  it('keeps the newest items that overlap the window, up to the cap', () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({
      key: `k${i}`,
      start: i * 10,
      end: i * 10 + 5,
      open: false,
    }));
    const { shown, total } = inWindow(items, { start: 1003, end: 30_000 }, 2000);
    expect(total).toBe(2901);
    expect(shown).toHaveLength(2000);
    expect(shown[0]!.key).toBe('k1001');
    expect(shown.at(-1)!.key).toBe('k3000');
    expect(inWindow(items, { start: 49_996, end: 60_000 }, 2000).total).toBe(0);
  });
  it('places an extent in percent of the window, clipped to it', () => {
    const window = { start: 1000, end: 3000 };
    expect(placement(1500, 2000, window)).toEqual({ left: 25, width: 25 });
    expect(placement(500, 1500, window)).toEqual({ left: 0, width: 25 });
    expect(placement(2500, 4000, window)).toEqual({ left: 75, width: 25 });
    expect(placement(2000, 2000, window)).toEqual({ left: 50, width: 0 });
  });
  it('puts ticks at round steps from the run start', () => {
    expect(ticks({ start: 0, end: 1000 }, 0).map((t) => t.offset)).toEqual([
      0, 200, 400, 600, 800, 1000,
    ]);
    const shifted = ticks({ start: 15_300, end: 25_300 }, 300);
    expect(shifted.map((t) => t.offset)).toEqual([16_000, 18_000, 20_000, 22_000, 24_000]);
    expect(shifted[0]!.at).toBe(10);
    expect(shifted[1]!.at).toBe(30);
    expect(ticks({ start: 5, end: 5 }, 0)).toEqual([]);
  });
  it('draws the result badges that fit, a failure taking the place of a success', () => {
    const window = { start: 0, end: 1000 };
    // 1000 px for 1000 ms: a SUCCESS badge is 58 px wide, a GATT_ERROR one 77 px.
    expect(badgeWidth('SUCCESS')).toBe(58);
    expect(badgeWidth('GATT_ERROR')).toBe(77);
    const runs = [
      { key: 'a', end: 100, outcome: 'SUCCESS' as const },
      { key: 'b', end: 130, outcome: 'SUCCESS' as const },
      { key: 'c', end: 200, outcome: 'SUCCESS' as const },
      { key: 'd', end: 240, outcome: 'GATT_ERROR' as const },
      { key: 'e', end: 400, outcome: 'SUCCESS' as const },
    ];
    expect([...badgesThatFit(runs, window, 1000)]).toEqual(['a', 'd', 'e']);
    // Twice as wide, they all fit: b's badge starts where a's ends.
    expect([...badgesThatFit(runs, window, 2000)]).toEqual(['a', 'b', 'c', 'd', 'e']);
    // A success never pushes out a failure.
    const afterFailure = [
      { key: 'f', end: 100, outcome: 'RUNTIME_ERROR' as const },
      { key: 'g', end: 110, outcome: 'SUCCESS' as const },
    ];
    expect([...badgesThatFit(afterFailure, window, 1000)]).toEqual(['f']);
  });
});
