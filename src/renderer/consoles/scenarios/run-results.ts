// A finished dry run's results as the results table and the JSON export show them: each result
// beside the bytes its actions wrote and read.
import type { ActionType } from '../../../core/platform/things/actions/registry';
import type { TimelineEvent } from '../../../core/scenario/schema';
import type { ScenarioResult } from '../../../core/platform/things/scenario-result';

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
