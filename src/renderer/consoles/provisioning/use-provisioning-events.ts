// What provisioning runs report: each board's latest progress per run and each batch's
// summary. Progress events come per step and per board (thousands for a tray), so they are
// queued and folded into state a few times a second rather than one render each.
import { useEffect, useRef, useState } from 'react';
import type { z } from 'zod';
import type {
  batchSummarySchema,
  provisioningProgressSchema,
} from '../../../core/usecases/provisioning/schema';
import { useApi } from '../../lib/api-context';

export type Progress = z.infer<typeof provisioningProgressSchema>;
export type BatchSummary = z.infer<typeof batchSummarySchema>;

const FLUSH_MS = 150;

export interface ProvisioningEvents {
  /** runId → deviceId → that board's latest progress. */
  boards: ReadonlyMap<string, ReadonlyMap<string, Progress>>;
  /** deviceId → its progress events in order, for the board being provisioned singly. */
  steps: ReadonlyMap<string, readonly Progress[]>;
  summaries: ReadonlyMap<string, BatchSummary>;
}

const EMPTY: ProvisioningEvents = {
  boards: new Map(),
  steps: new Map(),
  summaries: new Map(),
};

/** Steps kept per board: a board's whole run, with retries, fits. */
const STEPS_PER_BOARD = 60;

export function useProvisioningEvents() {
  const api = useApi();
  const [state, setState] = useState<ProvisioningEvents>(EMPTY);
  const queue = useRef<Progress[]>([]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const events = queue.current;
      queue.current = [];
      setState((prev) => fold(prev, events));
    };
    const offProgress = api.on('provisioning:progress', (event) => {
      queue.current.push(event);
      timer ??= setTimeout(flush, FLUSH_MS);
    });
    const offBatch = api.on('provisioning:batch', (summary) =>
      setState((prev) => withSummary(prev, summary)),
    );
    // A batch started before this page opened still runs: show it, so it can be stopped.
    api.provisioning.listBatches({}).then(
      (summaries) =>
        setState((prev) =>
          summaries.reduceRight((next, summary) => withSummary(next, summary), prev),
        ),
      () => undefined,
    );
    return () => {
      offProgress();
      offBatch();
      clearTimeout(timer);
    };
  }, [api]);

  return {
    ...state,
    /** A batch's own answer counts like its events (it may arrive after the first ones). */
    noteSummary: (summary: BatchSummary) => setState((prev) => withSummary(prev, summary)),
  };
}

function fold(prev: ProvisioningEvents, events: readonly Progress[]): ProvisioningEvents {
  if (events.length === 0) return prev;
  const boards = new Map(prev.boards);
  const steps = new Map(prev.steps);
  const touched = new Map<string, Map<string, Progress>>();
  for (const event of events) {
    let run = touched.get(event.runId);
    if (!run) {
      run = new Map(boards.get(event.runId));
      touched.set(event.runId, run);
      boards.set(event.runId, run);
    }
    // `done`, `failed` and `skipped` end a board: a step's own "finished" landing after its
    // record's outcome must not make the board look unfinished again.
    const before = run.get(event.deviceId);
    const ended =
      before?.phase === 'done' || before?.phase === 'failed' || before?.phase === 'skipped';
    if (!ended)
      // Later steps may not repeat the PSDI or address an earlier one gave; the row keeps them.
      run.set(event.deviceId, {
        ...event,
        psdi: event.psdi ?? before?.psdi,
        address: event.address ?? before?.address,
        name: event.name ?? before?.name,
      });
    steps.set(
      event.deviceId,
      [...(steps.get(event.deviceId) ?? []), event].slice(-STEPS_PER_BOARD),
    );
  }
  return { ...prev, boards, steps };
}

function withSummary(prev: ProvisioningEvents, summary: BatchSummary): ProvisioningEvents {
  const old = prev.summaries.get(summary.runId);
  // A late answer must not undo a newer event (a finished batch shown running again).
  if (old && isAfter(old, summary)) return prev;
  return { ...prev, summaries: new Map(prev.summaries).set(summary.runId, summary) };
}

const ORDER: Record<BatchSummary['state'], number> = {
  running: 0,
  stopping: 1,
  finished: 2,
  stopped: 2,
};

function isAfter(a: BatchSummary, b: BatchSummary): boolean {
  if (ORDER[a.state] !== ORDER[b.state]) return ORDER[a.state] > ORDER[b.state];
  return a.succeeded + a.failed > b.succeeded + b.failed;
}
