// The timeline of a scenario dry run, computed from its events: one lane per scenario holding
// its runs and their actions at their real times, and a link lane for the connection's life.
// Pure, so the view only places what this returns and the tests can check it to the millisecond.
import { bytesToHex, parseBase64 } from '../../../core/bytes';
import type { TriggerType } from '../../../core/platform/things/schema';
import type { ActionColour } from '../../../core/platform/things/actions/descriptor';
import {
  actionDescriptor,
  actionDescriptors,
  type ActionType,
} from '../../../core/platform/things/actions/registry';
import type { STOP_REASONS, TimelineEvent } from '../../../core/scenario/schema';
import type { ResultCode, ScenarioResult } from '../../../core/platform/things/scenario-result';
import type { LinkSecurity } from '../../../core/ble/link-parameters';
import { keyLabel, methodLabel } from '../../lib/link-security-words';

export interface TimelineScenario {
  id: string;
  trigger: TriggerType;
  label?: string;
}

/** ms since the epoch. */
export interface TimeRange {
  start: number;
  end: number;
}

interface Extent {
  /** Unique in the model; the view's selection holds it. */
  key: string;
  start: number;
  end: number;
  /** Still going: `end` is the `now` the model was built at. */
  open: boolean;
}

interface ActionBlock extends Extent {
  kind: 'action';
  run: number;
  scenario: number;
  action: number;
  type: ActionType;
  /** What its type is called and drawn in. */
  label: string;
  colour: ActionColour;
  serviceUuid?: string;
  characteristicUuid?: string;
  sleepMillis?: number;
  /** base64: what was written, or what was read. */
  data?: string;
  /** `data` as spaced hex; undefined when `data` is not base64. */
  hex?: string;
  error?: string;
  /** A write that resolved: false on an adapter that cannot see a refusal (`native`). */
  writeConfirmed?: boolean;
}

export type RunOutcome = ResultCode | 'CANCELLED' | 'RUNNING';

export interface RunSpan extends Extent {
  kind: 'run';
  run: number;
  scenario: number;
  scenarioId: string;
  trigger: TriggerType;
  outcome: RunOutcome;
  /** The scenario result the run ended with; a cancelled or running one has none. */
  result?: ScenarioResult;
  /** The triggering notification's payload as spaced hex. */
  payloadHex?: string;
}

export type LinkItem = Extent &
  (
    | { kind: 'connecting'; cycle: number }
    | {
        kind: 'connection';
        mtu: number;
        endedBy?: DisconnectedBy;
        reason?: string;
      }
    | { kind: 'connect-failed'; error: string }
    | { kind: 'disconnected'; by: DisconnectedBy; reason: string }
    | { kind: 'waiting'; why: 'suppressionInterval' | 'reconnect'; until: number }
    | {
        kind: 'notification';
        serviceUuid: string;
        characteristicUuid: string;
        data: string;
        hex?: string;
      }
    | { kind: 'error'; message: string }
    /** A pairing as a phone does, from its start to the key; `encrypted` its Encryption Change. */
    | { kind: 'paired'; security: LinkSecurity }
    | { kind: 'encrypted'; security: LinkSecurity }
    | { kind: 'pairing-failed'; error: string }
    | { kind: 'stopped'; reason: (typeof STOP_REASONS)[number] }
    | { kind: 'dropped'; scenario: number; scenarioId?: string }
  );

type DisconnectedBy = 'autoClose' | 'link' | 'stop';

export type TimelineItem = ActionBlock | RunSpan | LinkItem;

/** Link items drawn as spans; the others are instants. */
const LINK_SPAN_KINDS: ReadonlySet<LinkItem['kind']> = new Set([
  'connecting',
  'connection',
  'waiting',
  'paired',
]);

interface ScenarioLane {
  scenario: number;
  id: string;
  trigger: TriggerType;
  label: string;
  /** Both in start order. */
  runs: RunSpan[];
  actions: ActionBlock[];
}

interface TimelineModel {
  range: TimeRange;
  /** One per scenario of the set, by index, plus any other index the events name. */
  lanes: ScenarioLane[];
  /** In start order. */
  link: LinkItem[];
  items: ReadonlyMap<string, TimelineItem>;
}

/** The colours of the action types, in the order they were registered: the timeline's legend. */
export function actionLegend(): { type: ActionType; label: string; colour: ActionColour }[] {
  return actionDescriptors().map(({ type, label, colour }) => ({ type, label, colour }));
}

/** A type no one registered (a run recorded by another build) is shown by its name, in grey. */
function actionLook(type: ActionType): { label: string; colour: ActionColour } {
  const descriptor = actionDescriptor(type);
  return descriptor
    ? { label: descriptor.label, colour: descriptor.colour }
    : { label: type, colour: 'slate' };
}

/** The time an event happened; an action's is when it ended. */
export function eventTime(event: TimelineEvent): number {
  return event.kind === 'action' ? event.endedAt : event.at;
}

export function buildTimeline(
  events: readonly TimelineEvent[],
  scenarios: readonly TimelineScenario[],
  now: number,
): TimelineModel {
  const lanes = new Map<number, ScenarioLane>();
  scenarios.forEach((s, i) => lanes.set(i, newLane(i, s)));
  const laneOf = (index: number, id = '', trigger: TriggerType = 'IMMEDIATE') => {
    let lane = lanes.get(index);
    if (!lane) {
      lane = newLane(index, { id, trigger });
      lanes.set(index, lane);
    }
    return lane;
  };

  const link: LinkItem[] = [];
  const items = new Map<string, TimelineItem>();
  const open = new Set<TimelineItem>();
  const runs = new Map<number, RunSpan>();
  const actions = new Map<string, ActionBlock>();
  let connecting: LinkItem | undefined;
  let connection: Extract<LinkItem, { kind: 'connection' }> | undefined;
  let waiting: Extract<LinkItem, { kind: 'waiting' }> | undefined;

  const add = <L extends TimelineItem, T extends L>(item: T, list: L[]): T => {
    list.push(item);
    items.set(item.key, item);
    if (item.open) open.add(item);
    return item;
  };
  const close = (item: TimelineItem | undefined, at: number) => {
    if (!item?.open) return;
    item.end = Math.max(item.start, at);
    item.open = false;
    open.delete(item);
  };
  const mark = (at: number, i: number) => ({ key: `link-${i}`, start: at, end: at, open: false });

  const startAction = (
    run: number,
    scenario: number,
    action: number,
    type: ActionType,
    at: number,
  ): ActionBlock => {
    const key = `action-${run}-${action}`;
    const block: ActionBlock = {
      key,
      start: at,
      end: at,
      open: true,
      kind: 'action',
      run,
      scenario,
      action,
      type,
      ...actionLook(type),
    };
    actions.set(key, block);
    return add(block, laneOf(scenario).actions);
  };

  events.forEach((e, i) => {
    switch (e.kind) {
      case 'connecting':
        connecting = add(
          { ...mark(e.at, i), open: true, kind: 'connecting', cycle: e.cycle },
          link,
        );
        break;
      case 'connected':
        close(connecting, e.at);
        connection = add({ ...mark(e.at, i), open: true, kind: 'connection', mtu: e.mtu }, link);
        break;
      case 'connect-failed':
        close(connecting, e.at);
        add({ ...mark(e.at, i), kind: 'connect-failed', error: e.error }, link);
        break;
      case 'disconnected':
        if (connection?.open) {
          close(connection, e.at);
          connection.endedBy = e.by;
          connection.reason = e.reason;
        }
        add({ ...mark(e.at, i), kind: 'disconnected', by: e.by, reason: e.reason }, link);
        break;
      case 'waiting':
        waiting = add(
          {
            ...mark(e.at, i),
            end: Math.max(e.at, e.until),
            kind: 'waiting',
            why: e.why,
            until: e.until,
          },
          link,
        );
        break;
      case 'notification':
        add(
          {
            ...mark(e.at, i),
            kind: 'notification',
            serviceUuid: e.serviceUuid,
            characteristicUuid: e.characteristicUuid,
            data: e.data,
            hex: base64ToHex(e.data),
          },
          link,
        );
        break;
      case 'error':
        add({ ...mark(e.at, i), kind: 'error', message: e.message }, link);
        break;
      case 'paired':
        add({ ...mark(e.startedAt, i), end: e.at, kind: 'paired', security: e.security }, link);
        break;
      case 'encrypted':
        add({ ...mark(e.at, i), kind: 'encrypted', security: e.security }, link);
        break;
      case 'pairing-failed':
        add({ ...mark(e.at, i), kind: 'pairing-failed', error: e.error }, link);
        break;
      case 'stopped':
        // The engine closes what it opened before it stops, except an attempt to connect; and a
        // wait the stop cut short ends here, not when it was due.
        for (const item of [...open]) close(item, e.at);
        if (waiting && waiting.end > e.at) waiting.end = Math.max(waiting.start, e.at);
        add({ ...mark(e.at, i), kind: 'stopped', reason: e.reason }, link);
        break;
      case 'scenario-dropped':
        add(
          {
            ...mark(e.at, i),
            kind: 'dropped',
            scenario: e.scenario,
            scenarioId: lanes.get(e.scenario)?.id,
          },
          link,
        );
        break;
      case 'scenario-start': {
        const lane = laneOf(e.scenario, e.scenarioId, e.trigger);
        const span: RunSpan = {
          key: `run-${e.run}`,
          start: e.at,
          end: e.at,
          open: true,
          kind: 'run',
          run: e.run,
          scenario: e.scenario,
          scenarioId: e.scenarioId,
          trigger: e.trigger,
          outcome: 'RUNNING',
        };
        runs.set(e.run, add(span, lane.runs));
        break;
      }
      case 'scenario-end': {
        const span = runs.get(e.run);
        if (!span) break;
        close(span, e.at);
        span.outcome = e.result.resultCode;
        span.result = e.result;
        if (e.result.bleNotificationPayload !== undefined)
          span.payloadHex = base64ToHex(e.result.bleNotificationPayload);
        break;
      }
      case 'scenario-cancelled': {
        const span = runs.get(e.run);
        close(span, e.at);
        if (span) span.outcome = 'CANCELLED';
        break;
      }
      case 'action-start':
        startAction(e.run, e.scenario, e.action, e.type, e.at);
        break;
      case 'action': {
        // An action whose start was not seen (a buffer that dropped it) still gets its block.
        const block =
          actions.get(`action-${e.run}-${e.action}`) ??
          startAction(e.run, e.scenario, e.action, e.type, e.startedAt);
        block.start = e.startedAt;
        close(block, e.endedAt);
        block.serviceUuid = e.serviceUuid;
        block.characteristicUuid = e.characteristicUuid;
        block.sleepMillis = e.sleepMillis;
        block.data = e.data;
        block.hex = e.data === undefined ? undefined : base64ToHex(e.data);
        block.error = e.error;
        block.writeConfirmed = e.writeConfirmed;
        break;
      }
    }
  });

  for (const item of open) item.end = Math.max(item.start, now);

  let start = Infinity;
  let end = -Infinity;
  for (const item of items.values()) {
    start = Math.min(start, item.start);
    end = Math.max(end, item.end);
  }
  const range = Number.isFinite(start) ? { start, end } : { start: now, end: now };

  return {
    range,
    lanes: [...lanes.values()].sort((a, b) => a.scenario - b.scenario),
    link,
    items,
  };
}

/**
 * A scenario as the timeline names it, numbered from 1 as the editor's form numbers its
 * scenarios and actions ("Scenario 1", "action 1"); the events count from 0.
 */
function scenarioOrdinal(index: number): string {
  return `#${index + 1}`;
}

function newLane(index: number, s: TimelineScenario): ScenarioLane {
  return {
    scenario: index,
    id: s.id,
    trigger: s.trigger,
    // Whole: the lane wraps it and keeps it in its title, rather than cutting it short.
    label: s.label ?? `${scenarioOrdinal(index)} ${s.id || '(no id)'}`,
    runs: [],
    actions: [],
  };
}

/** One action of a finished scenario run as its timeline event has it: the bytes it wrote or read. */
export interface RowAction {
  type: ActionType;
  /** base64: written by a GATT_WRITE (refused or not), read by a GATT_READ. */
  data?: string;
  error?: string;
}

/** A scenario result beside its actions, so the results table shows the bytes written and read. */
export interface ResultRow {
  result: ScenarioResult;
  actions: RowAction[];
}

export function resultRows(events: readonly TimelineEvent[]): ResultRow[] {
  const actionsByRun = new Map<number, RowAction[]>();
  const rows: ResultRow[] = [];
  for (const e of events) {
    if (e.kind === 'action') {
      const actions = actionsByRun.get(e.run) ?? [];
      actions[e.action] = {
        type: e.type,
        ...(e.data !== undefined && { data: e.data }),
        ...(e.error !== undefined && { error: e.error }),
      };
      actionsByRun.set(e.run, actions);
    } else if (e.kind === 'scenario-end') {
      rows.push({ result: e.result, actions: [...(actionsByRun.get(e.run) ?? [])] });
      actionsByRun.delete(e.run);
    }
  }
  return rows;
}

/** base64 as spaced lowercase hex ("0a 1b ff"); undefined when it is not base64. */
export function base64ToHex(data: string): string | undefined {
  const parsed = parseBase64(data);
  return parsed.ok ? bytesToHex(parsed.bytes, ' ') : undefined;
}

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

/** A length of time as people read it: "340 ms", "1.25 s", "2 min 3.5 s". */
export function formatMs(ms: number): string {
  const rounded = Math.round(ms);
  if (Math.abs(rounded) < 1000) return `${rounded} ms`;
  if (Math.abs(rounded) < 60_000) return `${Number((rounded / 1000).toFixed(2))} s`;
  const minutes = Math.trunc(rounded / 60_000);
  const seconds = Number(((Math.abs(rounded) % 60_000) / 1000).toFixed(1));
  return `${minutes} min ${seconds} s`;
}

/** An instant to the millisecond, in UTC as the results carry it: "2025-01-02 03:04:05.678Z". */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ');
}

export function formatOffset(at: number, origin: number): string {
  return `+${formatMs(at - origin)}`;
}

const DISCONNECTED_BY: Record<DisconnectedBy, string> = {
  autoClose: 'by autoClose',
  link: 'link lost',
  stop: 'by the stop',
};

/** What an item is, in a few words: the heading of its detail. */
export function itemTitle(item: TimelineItem): string {
  switch (item.kind) {
    case 'action':
      return item.label;
    case 'run':
      return `Run ${item.run} of ${item.scenarioId || scenarioOrdinal(item.scenario)}: ${item.outcome}`;
    case 'connecting':
      return `Connecting (cycle ${item.cycle})`;
    case 'connection':
      return `Connected, MTU ${item.mtu}`;
    case 'connect-failed':
      return 'Connection failed';
    case 'disconnected':
      return `Disconnected ${DISCONNECTED_BY[item.by]}`;
    case 'waiting':
      return item.why === 'suppressionInterval' ? 'Suppression interval' : 'Waiting to reconnect';
    case 'notification':
      return 'Notification';
    case 'error':
      return 'Error';
    case 'paired':
      return `Paired, ${methodLabel(item.security)}`;
    case 'encrypted':
      return `Encrypted${item.security.fromBond ? ' with the bond' : ''}, ${keyLabel(item.security)}`;
    case 'pairing-failed':
      return 'Pairing failed';
    case 'stopped':
      return `Stopped (${item.reason})`;
    case 'dropped':
      return `Dropped scenario ${scenarioOrdinal(item.scenario)}${item.scenarioId ? ` ${item.scenarioId}` : ''}`;
  }
}

/** Whether the item lasts (a block or span) rather than marks an instant. */
export function hasLength(item: TimelineItem): boolean {
  return item.kind === 'action' || item.kind === 'run' || LINK_SPAN_KINDS.has(item.kind);
}

/** The accessible name of an item's button, e.g. "GATT_WRITE 12 ms at +340 ms". */
export function itemLabel(item: TimelineItem, origin: number): string {
  const length = !hasLength(item)
    ? ''
    : ` ${formatMs(item.end - item.start)}${item.open ? ' so far' : ''}`;
  const error = item.kind === 'action' && item.error ? `, failed: ${item.error}` : '';
  return `${itemTitle(item)}${length} at ${formatOffset(item.start, origin)}${error}`;
}

/** A run's JSON export: the caller's metadata, every event, and the results in order. */
export function runExport<M extends object>(
  meta: M,
  events: readonly TimelineEvent[],
): M & { events: TimelineEvent[]; results: ScenarioResult[] } {
  return {
    ...meta,
    events: [...events],
    results: events.flatMap((e) => (e.kind === 'scenario-end' ? [e.result] : [])),
  };
}
