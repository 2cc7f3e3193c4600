// The state changes a provisioning record makes after its reservation: the states each may start
// from and what else it asks of the record, as one table for both engines. SQLite checks a rule
// under its write lock before it writes; PostgreSQL puts the same rule into the UPDATE's
// condition and reads the record only to say why nothing changed (docs/decisions.md, "What the
// two audit engines share"; the states: "Provisioning and audit").
import { InvalidTransitionError } from './errors';
import type { ProvisioningRecord, ProvisioningState, RecordEvent } from './records';
import type { FailureInput, ReleaseInput } from './store';

export interface Transition {
  readonly to: ProvisioningState;
  readonly from: readonly ProvisioningState[];
  /** Why a record in any other state may not make the change, where its state does not say it. */
  readonly wrongState?: string;
  /** Set when the change needs a record that holds its PSDI: why one that does not may not. */
  readonly needsPsdi?: string;
}

/** Verified and released are final: the board carries the PSDI, or the PSDI was given back. */
const NOT_FINAL = ['reserved', 'written', 'failed'] as const;

/** One rule per AuditStore method that changes a record. */
export const TRANSITIONS = {
  /** Also the way back in for a reconciled record, as long as it still holds its PSDI. */
  markWritten: { to: 'written', from: NOT_FINAL, needsPsdi: 'it no longer holds its PSDI' },
  markVerified: { to: 'verified', from: ['written'] },
  markFailed: { to: 'failed', from: NOT_FINAL },
  release: { to: 'released', from: NOT_FINAL },
  /** An operator gives back what a failed record holds (releaseEvent records who). */
  releaseHeld: {
    to: 'released',
    from: ['failed'],
    wrongState: `only a failed record's PSDI can be released here`,
    needsPsdi: 'it holds no PSDI',
  },
} as const satisfies Record<string, Transition>;

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
