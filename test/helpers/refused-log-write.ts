// A run log that refuses one write for real: a trigger in the audit file aborts the insert of
// the batch that ends a run's first scenario run, as a full disk would, and lets every other
// batch and the finish through.
import Database from 'better-sqlite3';

export const REFUSAL = 'disk full (planted by the test)';

/** Plants the trigger in an audit file that has the run log's tables; returns its removal. */
export function refuseFirstScenarioEnd(file: string): () => void {
  const db = new Database(file);
  try {
    db.exec(`CREATE TRIGGER refuse_first_scenario_end BEFORE INSERT ON scenario_run_events
      WHEN json_extract(NEW.event, '$.kind') = 'scenario-end'
        AND json_extract(NEW.event, '$.run') = 1
      BEGIN SELECT RAISE(ABORT, '${REFUSAL}'); END`);
  } finally {
    db.close();
  }
  return () => {
    const again = new Database(file);
    try {
      again.exec('DROP TRIGGER refuse_first_scenario_end');
    } finally {
      again.close();
    }
  };
}
