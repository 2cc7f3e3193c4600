// How both engines apply the state changes a provisioning record makes after its reservation,
// each declared beside its method in STORE_CALLS (store.ts): SQLite checks a rule under its
// write lock before it writes; PostgreSQL puts the same rule into the UPDATE's condition and
// reads the record only to say why nothing changed (docs/decisions/audit-log.md, "What the two
// audit engines share"; the states: "Provisioning and audit").
import { InvalidTransitionError } from './errors';
import type { ProvisioningRecord, RecordEvent } from './records';
import type { FailureInput, ReleaseInput, Transition } from './store';

/** The refusal of `rule` for `record` as it is now; undefined when the change may be made. */
export function transitionRefusal(
  record: ProvisioningRecord,
  rule: Transition,
): InvalidTransitionError | undefined {
  if (!rule.from.includes(record.state))
    return new InvalidTransitionError(record.id, record.state, rule.to, rule.wrongState);
  if (rule.needsPsdi !== undefined && !record.psdiHeld)
    return new InvalidTransitionError(record.id, record.state, rule.to, rule.needsPsdi);
  return undefined;
}

/** `rule` as a SQL condition on the record's row: an UPDATE under it changes only what may change. */
export function transitionCondition(rule: Transition): string {
  const states = `state IN (${rule.from.map((s) => `'${s}'`).join(', ')})`;
  return rule.needsPsdi === undefined ? states : `${states} AND psdi_held = 1`;
}

/**
 * Whether a failure leaves the PSDI held, as far as the failure says: the board may carry it
 * and nothing was given back. Held can only drop, so the engine also asks the record held it.
 */
export function failureKeepsPsdi(failure: FailureInput): boolean {
  return failure.psdiHeld && !failure.returnPsdi;
}

/** The history entry of an operator's release: who, when, at which station. */
export function releaseEvent(
  record: ProvisioningRecord,
  input: ReleaseInput,
  at: number,
  station: string,
): RecordEvent {
  return {
    at,
    step: record.failedStep ?? 'reconcile',
    attempt: record.attempts,
    kind: 'released',
    message: input.reason,
    then: `PSDI ${record.psdi} back in the pool`,
    by: input.by,
    station,
  };
}
