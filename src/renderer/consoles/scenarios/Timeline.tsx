// The timeline of a scenario dry run: a time axis, the link lane on top and one lane per
// scenario, each action a block at its real time and length. Blocks and markers are buttons
// (arrow keys move within a lane); the chosen one's bytes, UUIDs and result show below. A long
// run draws only the newest blocks of each lane that are in view, so it stays smooth.
import {
  useDeferredValue,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import type { TimelineEvent } from '../../../core/scenario/schema';
import { TimelineDetail } from './TimelineDetail';
import { OutcomeBadge } from './ResultEvents';
import {
  actionLegend,
  buildTimeline,
  eventTime,
  formatMs,
  formatOffset,
  hasLength,
  itemLabel,
  type RunSpan,
  type TimelineItem,
  type TimelineScenario,
  type TimeRange,
} from './timeline-model';
import {
  badgesThatFit,
  inWindow,
  LAST_MS,
  placement,
  ticks,
  visibleRange,
  actionsSpan,
  type Tick,
  type Zoom,
} from './timeline-window';

/**
 * A block narrower than this share of the view is drawn above its neighbours: its minimum width
 * overlaps the next block (a 5 ms read before a long SLEEP), which must not hide it.
 */
const SHORT_PERCENT = 1;

/** Items drawn per lane at most: the newest in view. */
const MAX_PER_LANE = 2000;

interface TimelineProps {
  /** The dry run's events in the order they happened. */
  events: readonly TimelineEvent[];
  /** The set's scenarios by index, a lane each; keep it stable, a new array rebuilds the model. */
  scenarios: readonly TimelineScenario[];
  /** ms since the epoch; what is still going runs to it. Defaults to the last event's time. */
  now?: number;
  /** The run is live: show the last 10 s, which move with `now`, until the user zooms. */
  following?: boolean;
  /** The board the link lane is to, by its name; its address goes in the lane's title. */
  board?: { name: string; deviceId: string };
}

export function Timeline({ events, scenarios, now, following = false, board }: TimelineProps) {
  // Rebuilding the model for thousands of events waits behind typing and clicks.
  const shownEvents = useDeferredValue(events);
  const last = shownEvents.at(-1);
  const at = now ?? (last ? eventTime(last) : 0);
  const model = useMemo(
    () => buildTimeline(shownEvents, scenarios, at),
    [shownEvents, scenarios, at],
  );
  // A run's span comes before its actions, so arrow keys meet them in the order they began.
  const laneItems = useMemo(
    () => model.lanes.map((l) => [...l.runs, ...l.actions].sort((a, b) => a.start - b.start)),
    [model],
  );
  const [zoomChoice, setZoom] = useState<Zoom>();
  const [axisRef, trackPx] = useWidth<HTMLDivElement>();
  const [selectedKey, setSelectedKey] = useState<string>();

  const actions = useMemo(() => actionsSpan(model.lanes), [model]);
  // A finished run opens on its actions: a few ms of reads are lost on a seconds-long axis.
  const zoom = zoomChoice ?? (following ? 'last10s' : actions ? 'actions' : 'fit');
  const view = visibleRange(model.range, zoom, actions);
  const origin = model.range.start;
  const axis = ticks(view, origin);
  const selected = selectedKey === undefined ? undefined : model.items.get(selectedKey);
  const lane = {
    view,
    origin,
    axis,
    selectedKey,
    trackPx,
    onSelect: (key: string) => setSelectedKey((k) => (k === key ? undefined : key)),
  };

  return (
    <div className="timeline" data-testid="timeline">
      <div className="tl-toolbar">
        <div className="tabs" role="group" aria-label="Zoom">
          <button type="button" aria-pressed={zoom === 'fit'} onClick={() => setZoom('fit')}>
            Fit
          </button>
          <button
            type="button"
            aria-pressed={zoom === 'last10s'}
            onClick={() => setZoom('last10s')}
          >
            Last {formatMs(LAST_MS)}
          </button>
          {actions && (
            <button
              type="button"
              aria-pressed={zoom === 'actions'}
              onClick={() => setZoom('actions')}
            >
              Actions
            </button>
          )}
        </div>
        <span className="muted">
          {formatOffset(view.start, origin)} to {formatOffset(view.end, origin)}
        </span>
        <ul className="tl-legend" aria-label="Colours">
          {actionLegend().map(({ type, label, colour }) => (
            <li key={type}>
              <span className="tl-swatch" data-colour={colour} /> {label}
            </li>
          ))}
          <li>
            <span className="tl-swatch" data-error="true" /> failed
          </li>
        </ul>
      </div>
      {events.length === 0 && <p className="note">No events yet.</p>}
      <div className="tl-grid">
        <div className="tl-lane tl-axis" aria-hidden="true">
          <div className="tl-label muted">from start</div>
          <div className="tl-track" ref={axisRef}>
            {axis.map((t) => (
              <span key={t.offset} className="tl-tick" style={{ left: `${t.at}%` }}>
                {t.offset === 0 ? '0' : formatMs(t.offset)}
              </span>
            ))}
          </div>
        </div>
        <Lane
          {...lane}
          testId="timeline-lane-link"
          label={board?.name ?? 'Link'}
          detail={board ? 'link' : undefined}
          title={board ? `Link to ${board.name} (${board.deviceId})` : undefined}
          items={model.link}
        />
        {model.lanes.map((l, i) => (
          <Lane
            {...lane}
            key={l.scenario}
            testId={`timeline-lane-${l.scenario}`}
            label={l.label}
            detail={l.trigger}
            title={`${l.label} (${l.trigger})`}
            items={laneItems[i] ?? []}
          />
        ))}
      </div>
      {selected && (
        <TimelineDetail item={selected} origin={origin} onClose={() => setSelectedKey(undefined)} />
      )}
    </div>
  );
}

interface LaneProps {
  testId: string;
  label: string;
  /** A second, quieter line under the label. */
  detail?: string;
  /** The whole label, shown on hover however the lane wraps it. */
  title?: string;
  items: readonly TimelineItem[];
  view: TimeRange;
  origin: number;
  axis: readonly Tick[];
  selectedKey: string | undefined;
  /** The tracks' width, to leave out result badges that would cover each other. */
  trackPx: number;
  onSelect: (key: string) => void;
}

function Lane({
  testId,
  label,
  detail,
  title,
  items,
  view,
  origin,
  axis,
  selectedKey,
  trackPx,
  onSelect,
}: LaneProps) {
  const { shown, total } = inWindow(items, view, MAX_PER_LANE);
  const ended = shown.filter((i): i is RunSpan => i.kind === 'run' && !i.open && i.end <= view.end);
  const badged = badgesThatFit(ended, view, trackPx);
  const tabStop = shown.some((i) => i.key === selectedKey) ? selectedKey : shown.at(-1)?.key;
  return (
    <div
      className={`tl-lane ${testId === 'timeline-lane-link' ? 'tl-link' : 'tl-scenario'}`}
      role="group"
      aria-label={`${label} lane`}
      data-testid={testId}
    >
      <div className="tl-label" title={title ?? label} data-testid="timeline-lane-label">
        <span className="mono tl-label-name">{label}</span>
        {detail && <span className="muted tl-label-detail">{detail}</span>}
        {total > shown.length && (
          <span className="hint">
            newest {shown.length.toLocaleString()} of {total.toLocaleString()}
          </span>
        )}
      </div>
      <div className="tl-track" onKeyDown={moveFocus}>
        {axis.map((t) => (
          <span key={t.offset} className="tl-gridline" style={{ left: `${t.at}%` }} />
        ))}
        {shown.map((item) => (
          <ItemButton
            key={item.key}
            item={item}
            view={view}
            origin={origin}
            selected={item.key === selectedKey}
            tabStop={item.key === tabStop}
            onSelect={onSelect}
          />
        ))}
        {ended.map((run) => {
          if (!badged.has(run.key)) return null;
          const left = placement(run.end, run.end, view).left;
          // A badge ends at its run's end, but never starts before the track does: a run that
          // ends near the window's start keeps its whole label in view.
          const shift =
            trackPx > 0 ? `max(-100%, ${-Math.floor((left / 100) * trackPx)}px)` : '-100%';
          return (
            <span
              key={`badge-${run.key}`}
              className="tl-badge"
              data-testid="timeline-badge"
              style={{ left: `${left}%`, transform: `translateX(${shift})` }}
              aria-hidden="true"
            >
              <OutcomeBadge outcome={run.outcome} />
            </span>
          );
        })}
      </div>
    </div>
  );
}

/** An element's width in px, kept up to date as the window or the panel resizes. */
function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/** Arrow keys, Home and End move between the lane's buttons; Tab leaves the lane. */
function moveFocus(e: KeyboardEvent<HTMLDivElement>) {
  const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[e.key];
  if (step === undefined) return;
  const buttons = [...e.currentTarget.querySelectorAll('button')];
  const from = buttons.findIndex((b) => b === document.activeElement);
  if (from < 0) return;
  e.preventDefault();
  buttons[Math.min(buttons.length - 1, Math.max(0, from + step))]?.focus();
}

function dataType(item: TimelineItem): string {
  switch (item.kind) {
    case 'action':
      return item.type;
    case 'run':
      return item.outcome;
    case 'waiting':
      return item.why;
    case 'disconnected':
      return item.by;
    case 'stopped':
      return item.reason;
    default:
      return item.kind;
  }
}

function ItemButton({
  item,
  view,
  origin,
  selected,
  tabStop,
  onSelect,
}: {
  item: TimelineItem;
  view: TimeRange;
  origin: number;
  selected: boolean;
  tabStop: boolean;
  onSelect: (key: string) => void;
}) {
  const { left, width } = placement(item.start, item.end, view);
  const span = hasLength(item);
  const shape =
    item.kind === 'action'
      ? 'tl-block'
      : item.kind === 'run'
        ? 'tl-run'
        : span
          ? 'tl-span'
          : 'tl-marker';
  const label = itemLabel(item, origin);
  const failed =
    (item.kind === 'action' && item.error !== undefined) ||
    item.kind === 'error' ||
    item.kind === 'connect-failed' ||
    item.kind === 'pairing-failed';
  return (
    <button
      type="button"
      className={`tl-item ${shape}`}
      style={span ? { left: `${left}%`, width: `${width}%` } : { left: `${left}%` }}
      data-testid="timeline-block"
      data-kind={item.kind}
      data-type={dataType(item)}
      data-colour={item.kind === 'action' ? item.colour : undefined}
      data-error={failed || undefined}
      data-open={item.open || undefined}
      data-short={(shape === 'tl-block' && width < SHORT_PERCENT) || undefined}
      aria-label={label}
      aria-pressed={selected}
      title={label}
      tabIndex={tabStop ? 0 : -1}
      onClick={() => onSelect(item.key)}
    />
  );
}
