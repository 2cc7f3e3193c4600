// A scenario dry run, done one way for the app and the CLI alike (docs/decisions.md, "One dry
// run under the app and the CLI"): refused before it touches the radio when it can never end as
// asked; kept in the run log from start to finish, its timeline appended in batches; each result
// handed to its delivery; the engine driving the board. A log write or a delivery that fails is
// reported and the run carries on, so later batches and the finish still reach the log. A run
// whose finish never lands stays `running` until its log next opens and marks it interrupted.
import type { NewRun, RunRead, ScenarioRunLog } from '../../audit/scenario-runs';
import type { BleCentral } from '../../ble/port';
import { wallClock, type Clock } from '../../async/clock';
import { errorMessage } from '../../errors/message';
import type { ScenarioResult } from '../../platform/things/scenario-result';
import { startDryRun, type DryRunOptions, type DryRunOutcome } from '../../scenario/engine';
import {
  checkFeasibility,
  describeInfeasibility,
  type Infeasibility,
  type RunPlan,
} from '../../scenario/feasibility';
import type { RunnableSet, ScenarioRunSummary, TimelineEvent } from '../../scenario/schema';

/** Timeline events are written at least this often while a scenario runs. */
const FLUSH_MS = 500;

/** Where each result goes; resolves with a problem to report, if any. */
export type DeliverResult = (result: ScenarioResult) => Promise<string | undefined>;

/** A run that can never end as asked; each front end names its own field for it. */
export class InfeasibleRun extends Error {
  /** The run option to change, for the first reason. */
  readonly field: Infeasibility['field'];

  constructor(readonly found: readonly [Infeasibility, ...Infeasibility[]]) {
    super(describeInfeasibility(found));
    this.name = 'InfeasibleRun';
    this.field = found[0].field;
  }
}

/** What the run is to do; the check's other inputs describe the bench it runs on. */
export type DryRunRequest = Omit<RunPlan, 'set'> & { set: RunnableSet };

/** How the run tells its front end what happens, as it happens. */
interface DryRunReport {
  /**
   * Every timeline event: the engine's, and an `error` event for each problem the run carried
   * on past (a batch the log did not take, a result not delivered).
   */
  event(event: TimelineEvent, runId: number): void;
  /** Each problem the run carried on past, in a sentence. */
  problem?(message: string, runId: number): void;
}

export interface DryRunStart {
  central: BleCentral;
  /** The board, as `BleCentral.connect` takes it. */
  deviceId: string;
  log: ScenarioRunLog;
  /** What the log keeps about the run besides the board and the set. */
  record: Omit<NewRun, 'deviceId' | 'set'>;
  deliver?: DeliverResult;
  report: DryRunReport;
  /** Aborting it stops the run as `stop()` does. */
  signal?: AbortSignal;
  /** The engine's clock; the real one by default. */
  clock?: Clock;
  /** Names for the board's characteristics in errors (the engine's `names`). */
  names?: DryRunOptions['names'];
  /** Pair each link as a phone does (the engine's `pairAsPhone`). */
  pairAsPhone?: boolean;
}

interface DryRunEnd {
  /** The final record in the log. */
  run: ScenarioRunSummary;
  outcome: DryRunOutcome;
}

export interface ScenarioDryRun {
  /** The record as the log started it. */
  readonly summary: ScenarioRunSummary;
  /** Once the engine stopped, every result was handed on and every event written. */
  readonly finished: Promise<DryRunEnd>;
  stop(): Promise<DryRunEnd>;
  /** The run as the log holds it, with the events not yet written. */
  read(): Promise<RunRead | undefined>;
}

/** A dry run that was checked and can end as asked: the only way to start one. */
export class DryRunPlan {
  private constructor(private readonly request: DryRunRequest) {}

  /** Throws `InfeasibleRun` for a run that can never end as asked. */
  static check(request: DryRunRequest): DryRunPlan {
    const [first, ...more] = checkFeasibility(request);
    if (first) throw new InfeasibleRun([first, ...more]);
    return new DryRunPlan(request);
  }

  get set(): RunnableSet {
    return this.request.set;
  }

  /** Starts the run's record in the log, then the engine on the board. */
  async start(options: DryRunStart): Promise<ScenarioDryRun> {
    const { log, report, deliver } = options;
    const { set, cycles, durationMs } = this.request;
    // One clock for the engine's events and the run's own, so the timeline stays in order.
    const clock = options.clock ?? wallClock();
    const summary = await log.start({ ...options.record, deviceId: options.deviceId, set });
    const id = summary.id;
    /** Events not yet in the log. */
    const buffer: TimelineEvent[] = [];
    /** Appends in order: resolves when every event taken from the buffer was written or reported. */
    let writes = Promise.resolve();
    let deliveries = Promise.resolve();

    const carryOn = (message: string, keep: boolean) => {
      const event: TimelineEvent = { kind: 'error', at: clock.now(), message };
      if (keep) buffer.push(event);
      report.event(event, id);
      report.problem?.(message, id);
    };
    const flush = () => {
      if (!buffer.length) return;
      const events = buffer.splice(0);
      writes = writes.then(() =>
        log.append(id, events).catch((err: unknown) =>
          // Not kept: the note would go to the log that just refused it.
          carryOn(
            `${events.length} timeline events could not be written to the audit log: ${errorMessage(err)}`,
            false,
          ),
        ),
      );
    };
    const hand = async (send: DeliverResult, result: ScenarioResult) => {
      const problem = await send(result).catch(errorMessage);
      if (problem !== undefined)
        carryOn(`result of ${result.scenarioId} not delivered: ${problem}`, true);
    };

    const ticker = setInterval(flush, FLUSH_MS);
    const engine = startDryRun({
      central: options.central,
      deviceId: options.deviceId,
      set,
      clock,
      cycles,
      durationMs,
      names: options.names,
      pairAsPhone: options.pairAsPhone,
      onEvent: (event) => {
        buffer.push(event);
        report.event(event, id);
        if (event.kind !== 'scenario-end') return;
        flush();
        if (deliver) deliveries = deliveries.then(() => hand(deliver, event.result));
      },
    });
    const onAbort = () => void engine.stop();
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finished = engine.done.then(async (outcome) => {
      options.signal?.removeEventListener('abort', onAbort);
      clearInterval(ticker);
      await deliveries;
      flush();
      await writes;
      return { run: await log.finish(id, outcome.reason), outcome };
    });
    return {
      summary,
      finished,
      stop: async () => {
        await engine.stop();
        return finished;
      },
      read: async () => {
        await writes;
        const read = await log.read(id);
        return read && { ...read, events: [...read.events, ...buffer] };
      },
    };
  }
}
