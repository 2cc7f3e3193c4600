// One dry run, live or from the audit log: its record, the timeline, the result events it
// produced, what the emulator did with them, and the whole run as a JSON file.
import { useEffect, useMemo, useState } from 'react';
import type { ScenarioRunSummary, TimelineEvent } from '../../../core/scenario/schema';
import {
  SCENARIO_RESULT_KIND,
  scenarioResultEnvelopeSchema,
} from '../../../core/platform/things/event-schema';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TraceButton } from '../../components/TraceButton';
import { downloadText } from '../../lib/files';
import { formatTime } from '../../lib/format';
import { useNavigate } from '../../lib/navigation';
import { useLoad } from '../../lib/use-load';
import { ResultEvents } from './ResultEvents';
import { Timeline } from './Timeline';
import { countResults, type ResultCounts } from '../../../core/scenario/result-counts';
import { formatMs } from './timeline-model';
import { resultRows, runExport } from './run-results';
import type { ShownRun } from './use-dry-run';

const DELIVERY_TONE = { SUCCESS: 'good', FAILED: 'bad', PENDING: 'warn' } as const;

/** While a run goes, its open blocks and waits grow with the clock, four times a second. */
function useNow(live: boolean): number | undefined {
  const [now, setNow] = useState<number>();
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [live]);
  return live ? now : undefined;
}

/** Downloads the whole run: its record, its set and the results as the timeline shows them. */
export function saveRunJson({ run, set, events }: ShownRun): void {
  downloadText(
    `scenario-run-${run.id}.json`,
    `${JSON.stringify(runExport({ run, set }, events), null, 2)}\n`,
  );
}

export function RunView({ shown }: { shown: ShownRun }) {
  const { run, set, events } = shown;
  const live = run.status === 'running';
  const now = useNow(live);
  const scenarios = useMemo(
    () =>
      set.scenarios.map((s) => ({
        id: s.id,
        trigger: s.trigger.type,
      })),
    [set],
  );
  const rows = useMemo(() => resultRows(events), [events]);
  // The record counts the rows the table below draws, live, not the log's summary of them.
  const counts = useMemo(() => countResults(rows.map((r) => r.result)), [rows]);
  const board = useMemo(
    () => ({ name: run.boardName, deviceId: run.deviceId }),
    [run.boardName, run.deviceId],
  );

  return (
    <Panel
      title={
        <>
          Dry run #{run.id} · {run.boardName}
        </>
      }
      testId="run-view"
      id="run-view"
      actions={
        <>
          <TraceButton
            span={() => ({ from: run.startedAt, to: run.endedAt ?? Date.now() })}
            label={`scenario-run-${run.id}`}
            testId="run-trace"
          />
          <button type="button" className="link" onClick={() => saveRunJson(shown)}>
            Export JSON
          </button>
        </>
      }
    >
      <RunFacts
        run={run}
        counts={counts}
        stopped={events.findLast(isStopped)}
        progress={live ? progressOf(events, run.startedAt, now) : undefined}
      />
      <Timeline events={events} scenarios={scenarios} now={now} following={live} board={board} />
      <h3>Result events on {run.boardName}</h3>
      <ResultEvents rows={rows} />
      <Delivered run={run} count={rows.length} />
    </Panel>
  );
}

type Stopped = Extract<TimelineEvent, { kind: 'stopped' }>;
const isStopped = (e: TimelineEvent): e is Stopped => e.kind === 'stopped';

/** How far a live run is: how long it has run and which connection it is on. */
function progressOf(
  events: readonly TimelineEvent[],
  startedAt: number,
  now: number | undefined,
): string {
  const elapsed = Math.max(0, (now ?? Date.now()) - startedAt);
  const connection = events.filter((e) => e.kind === 'connecting').length;
  return `${(elapsed / 1000).toFixed(1)} s${connection ? ` · connection ${connection}` : ' · finding the board'}`;
}

function RunFacts({
  run,
  counts,
  stopped,
  progress,
}: {
  run: ScenarioRunSummary;
  counts: ResultCounts;
  stopped: Stopped | undefined;
  /** While it runs: how long so far and which connection. */
  progress: string | undefined;
}) {
  return (
    <dl className="facts" data-testid="run-facts">
      <dt>Status</dt>
      <dd data-testid="run-state">
        {run.status}
        {run.stopReason && ` (${stopText(run.stopReason, stopped)})`}
        {progress && (
          <>
            {' '}
            <progress aria-label="Dry run running" className="run-progress" />{' '}
            <span data-testid="run-progress">{progress}</span>
          </>
        )}
      </dd>
      <dt>Set</dt>
      <dd>
        {run.setSource === 'draft' ? 'editor draft' : `saved revision ${run.revision}`} ·{' '}
        {run.productName}
      </dd>
      <dt>Board</dt>
      <dd>
        {run.boardName} <code className="mono">{run.deviceId}</code> ({run.bench})
      </dd>
      <dt>Results</dt>
      <dd data-testid="run-results">
        {counts.results} · {counts.failures} failed
      </dd>
      <dt>Started</dt>
      <dd>{formatTime(run.startedAt)}</dd>
    </dl>
  );
}

const STOP_TEXT = {
  operator: 'stopped',
  cycles: 'connections done',
  duration: 'time up',
  error: 'failed',
} as const;

function stopText(reason: keyof typeof STOP_TEXT, stopped: Stopped | undefined): string {
  if (reason === 'duration' && stopped?.durationMs !== undefined)
    return `stopped after ${formatMs(stopped.durationMs)} as asked`;
  return STOP_TEXT[reason];
}

/** The emulator's deliveries of this run's results, read from its webhook log. */
function Delivered({ run, count }: { run: ScenarioRunSummary; count: number }) {
  const navigate = useNavigate();
  const deliveries = useLoad(
    (api) => api.webhooks.listDeliveries({ kind: SCENARIO_RESULT_KIND, limit: 200 }),
    [],
  );
  const { reload } = deliveries;
  useEffect(() => reload(), [count, run.status, reload]);
  const mine = useMemo(
    () =>
      (deliveries.value ?? []).flatMap((d) => {
        const parsed = scenarioResultEnvelopeSchema.safeParse(safeJson(d.body));
        const result = parsed.success ? parsed.data.events[0]?.things.result : undefined;
        const inRun =
          result &&
          result.startTime >= run.startedAt &&
          (run.endedAt === null || result.startTime <= run.endedAt);
        return inRun ? [{ delivery: d, result }] : [];
      }),
    [deliveries.value, run.startedAt, run.endedAt],
  );
  if (!mine.length) return null;
  return (
    <>
      <h3>
        In the emulator&apos;s webhook log{' '}
        <button type="button" className="link" onClick={() => navigate('webhooks')}>
          open Webhooks
        </button>
      </h3>
      <div className="scroll table-scroll">
        <table className="grid" aria-label="Delivered result events" data-testid="run-deliveries">
          <TableHead columns={['Delivery', 'Scenario', 'Result', 'Sent to', 'Status']} />
          <tbody>
            {mine.map(({ delivery, result }) => (
              <tr key={delivery.id} data-testid="run-delivery">
                <td className="mono">{delivery.id}</td>
                <td className="mono">{result.scenarioId}</td>
                <td>{result.resultCode}</td>
                <td className="mono">{delivery.url ?? '(no webhook URL set)'}</td>
                <td>
                  <span className={`badge ${DELIVERY_TONE[delivery.status]}`}>
                    {delivery.status}
                  </span>{' '}
                  {delivery.error && <span className="muted">{delivery.error}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
