// Dry runs as the app offers them: the saved set or the editor's draft, on one board of the
// current BLE central (simulated bench or hardware), one run per board at a time. Every
// timeline event goes to the UI as it happens and to the audit log in batches; each result is
// handed to the chosen delivery, if any (by default results stay in the app). A run that can
// never end as asked is refused with the reason.
import { EventEmitter } from 'node:events';
import type { z } from 'zod';
import { wallClock } from '../../async/clock';
import type { ScenarioRunLog } from '../../audit/scenario-runs';
import type { ThingsClient } from '../../platform/things/client';
import type { ScenarioSet, ScenarioSetInput, TrialProduct } from '../../platform/things/schema';
import { DEFAULT_ADAPTER_PROFILE } from '../../ble/sim/adapter-profile';
import { startDryRun, type DryRun } from '../../scenario/engine';
import { checkFeasibility, describeInfeasibility } from '../../scenario/feasibility';
import { describeFieldErrors, fieldErrors } from '../../platform/field-errors';
import { PlatformError } from '../../platform/http';
import {
  runnableSetSchema,
  type RunnableSet,
  type ScenarioRunSummary,
  type TimelineEvent,
} from '../../scenario/schema';
import { type ScenarioResult } from '../../platform/things/scenario-result';
import type { startRunInputSchema } from '../contracts/scenarios';
import { AppFailure } from '../errors';
import type { HostSupervisor } from '../ble/host-supervisor';
import { errorMessage } from '../../errors/message';

/** Timeline events are written at least this often while a scenario runs. */
const FLUSH_MS = 500;

/** What the contract's `scenarios:start` takes, except where the results go. */
export type StartRunInput = Omit<z.output<typeof startRunInputSchema>, 'delivery'>;

/** Where each result goes; resolves with a problem to show on the timeline, if any. */
export type DeliverResult = (result: ScenarioResult) => Promise<string | undefined>;

export interface RunEvent {
  runId: number;
  event: TimelineEvent;
}

interface Active {
  run: DryRun;
  deviceId: string;
  /** Events not yet in the log. */
  buffer: TimelineEvent[];
  /** Appends in order: resolves when every event taken from the buffer is in the log. */
  written: () => Promise<void>;
  /** The final record, once the run ended, its results were handed on and the log written. */
  finished: Promise<ScenarioRunSummary>;
}

export class ScenarioService extends EventEmitter<{
  event: [RunEvent];
  run: [ScenarioRunSummary];
}> {
  private readonly active = new Map<number, Active>();

  constructor(
    readonly log: () => Promise<ScenarioRunLog>,
    private readonly supervisor: HostSupervisor,
    private readonly things: () => Promise<ThingsClient>,
  ) {
    super();
  }

  async start(
    input: StartRunInput,
    delivery: (product: TrialProduct) => Promise<DeliverResult | undefined>,
  ): Promise<{ run: ScenarioRunSummary; set: RunnableSet }> {
    const busy = [...this.active.values()].find((a) => a.deviceId === input.deviceId);
    if (busy)
      throw AppFailure.field(
        'deviceId',
        'a dry run is already running on this board: stop it first',
      );
    const things = await this.things();
    const drafted = input.set.source === 'draft' ? draftSet(input.set.draft) : undefined;
    if (drafted) this.refuseImpossible(input, drafted);
    const product = (await things.listTrialProducts()).find((p) => p.id === input.productId);
    if (!product)
      throw AppFailure.field(
        'productId',
        `no trial product ${input.productId} on the active environment`,
      );
    const set = drafted ?? savedSet(await things.getScenarioSet(product.id).catch(noSavedSet));
    if (!drafted) this.refuseImpossible(input, set);
    const central = await this.supervisor.central();
    const deliver = await delivery(product);

    const log = await this.log();
    const summary = await log.start({
      productId: product.id,
      productName: product.name,
      deviceId: input.deviceId,
      boardName: input.boardName ?? input.deviceId,
      bench: this.supervisor.adapterList().join(','),
      setSource: input.set.source,
      set,
    });
    const id = summary.id;
    const buffer: TimelineEvent[] = [];
    let deliveries = Promise.resolve();
    let writes = Promise.resolve();
    const flush = () => {
      if (!buffer.length) return;
      const events = buffer.splice(0);
      writes = writes.then(() =>
        log.append(id, events).catch((err: unknown) => {
          // The run goes on; the live timeline says what the log is missing.
          this.emit('event', {
            runId: id,
            event: {
              kind: 'error',
              at: Date.now(),
              message: `${events.length} timeline events could not be written to the audit log: ${errorMessage(err)}`,
            },
          });
        }),
      );
    };
    const ticker = setInterval(flush, FLUSH_MS);
    const run = startDryRun({
      central,
      deviceId: input.deviceId,
      set,
      clock: wallClock(),
      cycles: input.cycles,
      durationMs: input.durationMs,
      onEvent: (event) => {
        buffer.push(event);
        this.emit('event', { runId: id, event });
        if (event.kind !== 'scenario-end') return;
        flush();
        if (deliver) deliveries = deliveries.then(() => this.hand(id, deliver, event.result));
      },
    });
    const finished = run.done.then(async ({ reason }) => {
      clearInterval(ticker);
      await deliveries;
      flush();
      await writes;
      this.active.delete(id);
      const final = await log.finish(id, reason);
      this.emit('run', final);
      return final;
    });
    this.active.set(id, {
      run,
      deviceId: input.deviceId,
      buffer,
      written: () => writes,
      finished,
    });
    this.emit('run', summary);
    return { run: summary, set };
  }

  /** A run that can never end as asked is refused before it touches the radio. */
  private refuseImpossible(input: StartRunInput, set: RunnableSet): void {
    const found = checkFeasibility({
      set,
      cycles: input.cycles,
      durationMs: input.durationMs,
      boardsAtOnce: this.active.size + 1,
      // The BLE process builds each simulated controller with the default profile; a real
      // adapter does not say how many links it holds, so a list with one is not checked
      // (docs/decisions.md).
      maxLinks: this.supervisor.adapterList().every((spec) => spec === 'sim')
        ? DEFAULT_ADAPTER_PROFILE.maxConnections * this.supervisor.adapterList().length
        : undefined,
    });
    const [first] = found;
    if (first) throw AppFailure.field(first.field, describeInfeasibility(found));
  }

  async stop(runId: number): Promise<ScenarioRunSummary> {
    const entry = this.active.get(runId);
    if (!entry) return await this.summary(runId);
    await entry.run.stop();
    return entry.finished;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.active.keys()].map((id) => this.stop(id)));
  }

  async summary(runId: number): Promise<ScenarioRunSummary> {
    const run = await (await this.log()).get(runId);
    if (!run) throw AppFailure.field('runId', `no dry run ${runId}`);
    return run;
  }

  async read(runId: number) {
    const active = this.active.get(runId);
    await active?.written();
    const read = await (await this.log()).read(runId);
    if (!read) throw AppFailure.field('runId', `no dry run ${runId}`);
    // Events not yet flushed belong to the answer too.
    return { ...read, events: [...read.events, ...(active?.buffer ?? [])] };
  }

  private async hand(runId: number, deliver: DeliverResult, result: ScenarioResult): Promise<void> {
    const problem = await deliver(result).catch((err: unknown) => errorMessage(err));
    if (problem === undefined) return;
    const event: TimelineEvent = {
      kind: 'error',
      at: Date.now(),
      message: `result of ${result.scenarioId} not delivered: ${problem}`,
    };
    this.active.get(runId)?.buffer.push(event);
    this.emit('event', { runId, event });
  }
}

export function noSavedSet(err: unknown): never {
  if (err instanceof PlatformError && err.status === 404)
    throw AppFailure.field(
      'set.source',
      'the product has no saved scenario set on the platform: save it first, or run the draft',
    );
  throw err;
}

/** The platform's answer is parsed tolerantly; the engine needs the types it knows. */
export function savedSet(set: ScenarioSet): RunnableSet {
  const parsed = runnableSetSchema.safeParse(set);
  if (!parsed.success)
    throw new AppFailure({
      code: 'platform',
      message: `The saved scenario set cannot be run: ${describeFieldErrors(fieldErrors(parsed.error))}`,
    });
  return parsed.data;
}

/** A draft was never saved: revision 0, and scenarios without an id get `draft-<n>`. */
export function draftSet(draft: ScenarioSetInput): RunnableSet {
  return {
    autoClose: draft.autoClose,
    suppressionInterval: draft.suppressionInterval,
    revision: 0,
    scenarios: draft.scenarios.map((s, i) => ({
      id: s.id ?? `draft-${i + 1}`,
      trigger: s.trigger,
      actions: s.actions,
    })),
  };
}
