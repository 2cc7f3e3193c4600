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

export interface Extent {
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

/** base64 as spaced lowercase hex ("0a 1b ff"); undefined when it is not base64. */
export function base64ToHex(data: string): string | undefined {
  const parsed = parseBase64(data);
  return parsed.ok ? bytesToHex(parsed.bytes, ' ') : undefined;
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
