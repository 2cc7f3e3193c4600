// Dry runs as the app offers them: the saved set or the editor's draft, on one board of the
// station's central (simulated bench or hardware), one run per board at a time. The run itself
// is the dry-run use case (dry-run.ts); the service adds the events a front end shows (every
// timeline event as it happens, each record as it starts and ends), the busy boards, and
// refusals naming the request's fields.
import { EventEmitter } from 'node:events';
import { busyBoardDetail } from './dry-run-busy';
import type { ScenarioRunLog } from '../../audit/scenario-runs';
import { findTrialProduct } from '../provisioning-setup';
import { draftSet, loadSavedSet } from './scenario-sets';
import type { ThingsClient } from '../../platform/things/client';
import type { ScenarioSetInput, TrialProduct } from '../../platform/things/schema';
import type { BleCentral } from '../../ble/port';
import type { LinkUser } from '../../ble/link-record';
import { DEFAULT_ADAPTER_PROFILE } from '../../ble/sim/adapter-profile';
import type { RunnableSet, ScenarioRunSummary, TimelineEvent } from '../../scenario/schema';
import {
  DryRunPlan,
  InfeasibleRun,
  type DeliverResult,
  type DryRunStart,
  type ScenarioDryRun,
} from './dry-run';
import { SetupError } from '../errors';

/** What a dry run is asked to do, except where the results go (the contract's `scenarios:start`). */
export interface StartRunInput {
  productId: string;
  deviceId: string;
  /** How the board advertises itself; kept with the run. */
  boardName?: string;
  set: { source: 'saved' } | { source: 'draft'; draft: ScenarioSetInput };
  cycles?: number;
  durationMs?: number;
  pairAsPhone?: boolean;
}

/** The station's radio as dry runs use it: the BLE process's supervisor in the app. */
export interface DryRunBench {
  central(user: LinkUser): Promise<BleCentral>;
  /** The station's adapters as spec text, e.g. `sim`. */
  adapterList(): string[];
}

export interface RunEvent {
  runId: number;
  event: TimelineEvent;
}

interface Active {
  run: ScenarioDryRun;
  deviceId: string;
}

export class DryRunService extends EventEmitter<{
  event: [RunEvent];
  run: [ScenarioRunSummary];
}> {
  private readonly active = new Map<number, Active>();

  constructor(
    readonly log: () => Promise<ScenarioRunLog>,
    private readonly supervisor: DryRunBench,
    private readonly things: () => Promise<ThingsClient>,
    /** The product's and the board's names for the board's characteristics, for its errors. */
    private readonly names: (productId: string, deviceId: string) => Promise<DryRunStart['names']>,
  ) {
    super();
  }

  async start(
    input: StartRunInput,
    delivery: (product: TrialProduct) => Promise<DeliverResult | undefined>,
  ): Promise<{ run: ScenarioRunSummary; set: RunnableSet }> {
    const busy = [...this.active.entries()].find(([, a]) => a.deviceId === input.deviceId);
    if (busy) throw new SetupError('deviceId', busyBoardDetail(busy[0]));
    const things = await this.things();
    const drafted =
      input.set.source === 'draft' ? this.plan(input, draftSet(input.set.draft)) : undefined;
    const product = await findTrialProduct(things, input.productId, 'the active environment');
    const plan = drafted ?? this.plan(input, await loadSavedSet(things, product.id));
    const central = await this.supervisor.central('dry-run');
    const deliver = await delivery(product);

    const run = await plan.start({
      central,
      deviceId: input.deviceId,
      log: await this.log(),
      record: {
        productId: product.id,
        productName: product.name,
        boardName: input.boardName ?? input.deviceId,
        bench: this.supervisor.adapterList().join(','),
        setSource: input.set.source,
      },
      deliver,
      names: await this.names(product.id, input.deviceId).catch(() => undefined),
      pairAsPhone: input.pairAsPhone,
      report: { event: (event, runId) => this.emit('event', { runId, event }) },
    });
    const id = run.summary.id;
    this.active.set(id, { run, deviceId: input.deviceId });
    // The board is free again once the run ended, whether or not its finish reached the log.
    run.finished.then(
      ({ run: final }) => {
        this.active.delete(id);
        this.emit('run', final);
      },
      () => this.active.delete(id),
    );
    this.emit('run', run.summary);
    return { run: run.summary, set: plan.set };
  }

  /** A run that can never end as asked is refused before it touches the radio. */
  private plan(input: StartRunInput, set: RunnableSet): DryRunPlan {
    try {
      return DryRunPlan.check({
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
    } catch (err) {
      if (err instanceof InfeasibleRun) throw new SetupError(err.field, err.message);
      throw err;
    }
  }

  async stop(runId: number): Promise<ScenarioRunSummary> {
    const entry = this.active.get(runId);
    if (!entry) return await this.summary(runId);
    return (await entry.run.stop()).run;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.active.keys()].map((id) => this.stop(id)));
  }

  async summary(runId: number): Promise<ScenarioRunSummary> {
    const run = await (await this.log()).get(runId);
    if (!run) throw new SetupError('runId', `no dry run ${runId}`);
    return run;
  }

  async read(runId: number) {
    const active = this.active.get(runId);
    // A running run's answer includes the events not yet written.
    const read = await (active ? active.run.read() : (await this.log()).read(runId));
    if (!read) throw new SetupError('runId', `no dry run ${runId}`);
    return read;
  }
}
