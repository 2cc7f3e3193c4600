// Follows one dry run: its record (from `scenarios:run`) and its timeline (from
// `scenarios:event`), gathered live and drawn at most ten times a second, or read back whole
// from the audit log for a past run.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunnableSet, ScenarioRunSummary, TimelineEvent } from '../../../core/scenario/schema';
import { useApi } from '../../lib/api-context';

const DRAW_MS = 100;

export interface ShownRun {
  run: ScenarioRunSummary;
  set: RunnableSet;
  events: TimelineEvent[];
}

export function useDryRun() {
  const api = useApi();
  const [shown, setShown] = useState<ShownRun>();
  const runId = useRef<number | undefined>(undefined);
  const pending = useRef<TimelineEvent[]>([]);
  // Events of runs not (yet) shown: a run's first events arrive before `start` answers.
  const early = useRef(new Map<number, TimelineEvent[]>());

  useEffect(() => {
    const offEvents = api.on('scenarios:event', ({ runId: id, event }) => {
      if (id === runId.current) pending.current.push(event);
      else {
        // Only the newest run can be the one `start` is about to answer.
        if (!early.current.has(id)) early.current.clear();
        early.current.set(id, [...(early.current.get(id) ?? []), event].slice(-10_000));
      }
    });
    const offRuns = api.on('scenarios:run', (run) => {
      if (run.id === runId.current) setShown((prev) => prev && { ...prev, run });
    });
    const timer = setInterval(() => {
      if (!pending.current.length) return;
      const batch = pending.current.splice(0);
      setShown((prev) => prev && { ...prev, events: [...prev.events, ...batch] });
    }, DRAW_MS);
    return () => {
      offEvents();
      offRuns();
      clearInterval(timer);
    };
  }, [api]);

  /** Shows a run that just started; its events so far are taken from what already arrived. */
  const follow = useCallback((run: ScenarioRunSummary, set: RunnableSet) => {
    runId.current = run.id;
    pending.current = early.current.get(run.id) ?? [];
    early.current.clear();
    setShown({ run, set, events: [] });
  }, []);

  /** Shows a run from the audit log, whole. */
  const open = useCallback(
    async (id: number) => {
      const read = await api.scenarios.getRun({ runId: id });
      runId.current = read.run.status === 'running' ? id : undefined;
      pending.current = [];
      setShown(read);
    },
    [api],
  );

  return { shown, follow, open };
}
