// How a provisioning run's steps fail, between the GATT session that meets the failure, the
// record ledger that logs it and the run that turns it into the ProvisionError its caller sees.
import type { ProvisioningRecord, ProvisioningStep } from '../audit/records';
import { errorMessage } from '../errors/message';

/** A failure that more tries cannot fix (wrong board layout, refused commit, duplicate PSDI). */
export class FatalStepError extends Error {
  constructor(
    readonly step: ProvisioningStep,
    message: string,
    readonly attempts: number,
    options: { cause?: unknown; record?: ProvisioningRecord } = {},
  ) {
    super(message, { cause: options.cause });
    this.record = options.record;
  }
  readonly record: ProvisioningRecord | undefined;
}

/**
 * The pairing the run needed failed or fell short (profile-security.ts): a front end may say it
 * as the pairing's failure, whatever step it happened under.
 */
export class PairingStepError extends FatalStepError {
  override name = 'PairingStepError';
}

/** A step that failed after its own tries; the session around it may still try again. */
export class StepFailure extends Error {
  constructor(
    readonly step: ProvisioningStep,
    readonly attempts: number,
    readonly sessionRetryable: boolean,
    cause: unknown,
  ) {
    super(errorMessage(cause), { cause });
  }
}

export class CancelledError extends Error {
  /** `reason`: why the run was stopped, as the record keeps it; by default the operator did. */
  constructor(reason = 'stopped by the operator before the commit') {
    super(reason);
  }
}

/** What a stopped run's record says: the stop's own words when it gave some (a string reason). */
export function cancelledBy(signal: AbortSignal | undefined): CancelledError {
  return new CancelledError(typeof signal?.reason === 'string' ? signal.reason : undefined);
}

/** The commit went out and no answer says what became of it; the board has to be looked at. */
export class CommitUnknownError extends Error {
  constructor(cause: unknown) {
    super(`no answer to the commit (${errorMessage(cause)})`, { cause });
  }
}
