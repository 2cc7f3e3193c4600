// Which part of a timeline is in view and where things fall in it: the zoom's window, the items
// that overlap it, their placement in percent, the result badges that fit and the axis's ticks.
import type { Extent, RunOutcome, RunSpan, TimeRange } from './timeline-model';

/** `actions`: from the first action's start to the last one's end, with a margin. */
export type Zoom = 'fit' | 'last10s' | 'actions';
export const LAST_MS = 10_000;
/** The narrowest window shown, so a run of one instant still has an axis. */
const MIN_WINDOW_MS = 100;
/** Room either side of the actions, as a share of their span. */
const ACTIONS_MARGIN = 0.1;

/** From the first action's start to the last action's end, or undefined when none ran. */
export function actionsSpan(
  lanes: readonly { actions: readonly { start: number; end: number }[] }[],
): TimeRange | undefined {
  let span: TimeRange | undefined;
  for (const lane of lanes)
    for (const a of lane.actions)
      span = span
        ? { start: Math.min(span.start, a.start), end: Math.max(span.end, a.end) }
        : { start: a.start, end: a.end };
  return span;
}

export function visibleRange(range: TimeRange, zoom: Zoom, actions?: TimeRange): TimeRange {
  if (zoom === 'actions' && actions) {
    const width = Math.max(actions.end - actions.start, MIN_WINDOW_MS);
    const start = Math.max(range.start, actions.start - width * ACTIONS_MARGIN);
    return { start, end: Math.max(start + MIN_WINDOW_MS, actions.end + width * ACTIONS_MARGIN) };
  }
  const start = zoom === 'last10s' ? Math.max(range.start, range.end - LAST_MS) : range.start;
  return { start, end: Math.max(range.end, start + MIN_WINDOW_MS) };
}

/**
 * The items that overlap the window, at most the last `cap` of them: a long run has thousands
 * and the newest are what the operator is watching. `items` must be in start order.
 */
export function inWindow<T extends Extent>(
  items: readonly T[],
  window: TimeRange,
  cap: number,
): { shown: T[]; total: number } {
  const overlapping = items.filter((i) => i.end >= window.start && i.start <= window.end);
  return { shown: overlapping.slice(-cap), total: overlapping.length };
}

/** Where `[start, end]` falls in the window, in percent, clipped to it. */
export function placement(
  start: number,
  end: number,
  window: TimeRange,
): { left: number; width: number } {
  const span = window.end - window.start;
  const left = Math.max(0, ((start - window.start) / span) * 100);
  const right = Math.min(100, ((end - window.start) / span) * 100);
  return { left, width: Math.max(0, right - left) };
}

/** A result badge's width in px at the timeline's font size, for deciding which ones fit. */
export function badgeWidth(outcome: RunOutcome): number {
  return Math.ceil(outcome.length * 6.5) + 12;
}

/**
 * The runs whose result badge is drawn: a badge sits just left of its run's end, and one that
 * would cover another is left out, a failure winning over a success (its bar is still coloured).
 * `runs` must be in end order; `trackPx` is the track's width.
 */
export function badgesThatFit(
  runs: readonly Pick<RunSpan, 'key' | 'end' | 'outcome'>[],
  window: TimeRange,
  trackPx: number,
): Set<string> {
  const pxPerMs = trackPx / (window.end - window.start);
  const placed: { key: string; x: number; failed: boolean }[] = [];
  for (const run of runs) {
    const x = (run.end - window.start) * pxPerMs;
    const failed = run.outcome !== 'SUCCESS';
    const left = x - badgeWidth(run.outcome) - 2;
    let fits = true;
    for (let last = placed.at(-1); last && last.x > left; last = placed.at(-1)) {
      if (last.failed || !failed) {
        fits = false;
        break;
      }
      placed.pop();
    }
    if (fits) placed.push({ key: run.key, x, failed });
  }
  return new Set(placed.map((p) => p.key));
}

export interface Tick {
  /** ms from the run's start. */
  offset: number;
  /** Percent of the window. */
  at: number;
}

/** Axis ticks at a round step (1, 2 or 5 × 10ⁿ ms), at most about `count` of them. */
export function ticks(window: TimeRange, origin: number, count = 8): Tick[] {
  const span = window.end - window.start;
  if (!(span > 0)) return [];
  const rough = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  const first = Math.ceil((window.start - origin) / step);
  const result: Tick[] = [];
  // Multiplied, not summed, so a fractional step does not drift.
  for (let k = first; origin + k * step <= window.end; k++)
    result.push({ offset: k * step, at: ((origin + k * step - window.start) / span) * 100 });
  return result;
}
