// Typed refusals of the audit store, so the workflow and the UI can tell "taken" from "bug".
import { errorMessage } from '../errors/message';

/** The PSDI is already held by another record of the same product. */
export class PsdiTakenError extends Error {
  override name = 'PsdiTakenError';
  constructor(
    readonly productId: string,
    readonly psdi: string,
    /** The record holding it, when known. */
    readonly heldBy?: number,
  ) {
    super(
      `PSDI "${psdi}" is already ${heldBy === undefined ? 'held' : `held by record #${heldBy}`} for product ${productId}`,
    );
  }
}

/** The board already has an unfinished record for this product: reconcile that one first. */
export class BoardBusyError extends Error {
  override name = 'BoardBusyError';
  constructor(
    readonly productId: string,
    readonly boardAddress: string,
    readonly recordId: number,
    readonly psdi: string,
  ) {
    super(
      `board ${boardAddress} has unfinished record #${recordId} (PSDI "${psdi}") for product ${productId}; reconcile it first`,
    );
  }
}

export class RecordNotFoundError extends Error {
  override name = 'RecordNotFoundError';
  constructor(readonly recordId: number) {
    super(`no provisioning record #${recordId}`);
  }
}

/** A state change the record's current state does not allow (e.g. releasing a verified PSDI). */
export class InvalidTransitionError extends Error {
  override name = 'InvalidTransitionError';
  constructor(
    readonly recordId: number,
    readonly from: string,
    readonly to: string,
    reason?: string,
  ) {
    super(`record #${recordId} cannot go from ${from} to ${to}${reason ? `: ${reason}` : ''}`);
  }
}

/**
 * The database could not be reached or dropped the connection. Whatever the statement was, its
 * outcome is unknown to the caller: a batch stops taking boards until the store answers again.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(
    readonly location: string,
    cause: unknown,
  ) {
    super(`the audit log at ${location} is unreachable (${errorMessage(cause)})`, { cause });
  }
}
