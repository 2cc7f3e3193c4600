// A provisioning run's record in the audit store: reserve the PSDI, mark the record written,
// verified or failed, give the PSDI back, and keep the history of every failed try, each change
// on disk before the next radio step (docs/provisioning-protocol.md, "The tool's steps").
import { PsdiTakenError } from '../audit/errors';
import type { ProvisioningRecord, ProvisioningStep, RecordEvent } from '../audit/records';
import type { AuditStore, PsdiAllocator, ReserveInput } from '../audit/store';
import type { AnyProvisioningProfile } from '../ble/provisioning-profile';
import { errorMessage } from '../errors/message';
import { failureKind } from './faults';
import { checkPsdi } from '../audit/psdi';
import { FatalStepError } from './step-failures';
import type { BoardRef, ProductTarget, ProvisionEvent, StepReporter } from './steps';
import { recordedAddress } from './board-identity';

/**
 * A retry, as the record tells it: said once the next try has started, and what it did said
 * once it did it, so the history never states a plan as a fact.
 */
interface RetryNote {
  event: RecordEvent;
  /** "attempt 2 after link lost". */
  head: string;
  /** The step whose success completes the retry, and what the record then says it did. */
  until: ProvisioningStep;
  did: string;
}

export class RecordLedger {
  /** The run's record, once reserved (or the record being resumed). */
  record: ProvisioningRecord | undefined;
  /** Every failed try of this run (after the record's earlier history) and what followed. */
  private history: RecordEvent[] = [];
  private retry: RetryNote | undefined;

  constructor(
    private readonly store: AuditStore,
    private readonly profile: AnyProvisioningProfile,
    private readonly product: ProductTarget,
    private readonly board: () => BoardRef,
    private readonly reporter: StepReporter,
    /** The SHA-256 of the image flashed before provisioning, if one was. */
    private readonly imageHash?: string,
  ) {}

  /** Finishes a record from an earlier run: it keeps its PSDI and its history. */
  resume(record: ProvisioningRecord): void {
    if (!record.psdiHeld)
      throw new FatalStepError('reconcile', `record #${record.id} no longer holds its PSDI`, 1);
    this.record = record;
    this.history = [...record.history];
  }

  /** Tool source: reserves a PSDI from `source`, checked to fit before it is taken. */
  async reserveFromTool(source: PsdiAllocator | string | undefined): Promise<void> {
    this.record = await this.reporter.run('reserve', 1, async () => {
      if (source === undefined)
        throw new FatalStepError('reserve', 'no PSDI or PSDI strategy was given', 1);
      const maxBytes = this.profile.psdi.maxBytes;
      // Checked inside the reserving transaction: a PSDI that cannot fit is never reserved.
      const psdi: PsdiAllocator | string =
        typeof source === 'string'
          ? (checkPsdi(source, maxBytes), source)
          : {
              allocate: async (context) => {
                const value = await source.allocate(context);
                checkPsdi(value, maxBytes);
                return value;
              },
              // The same check wherever the allocator is made again: the tighter limit.
              recipe: source.recipe && {
                strategy: source.recipe.strategy,
                maxBytes: Math.min(source.recipe.maxBytes, maxBytes),
              },
            };
      return await this.store.reserve(this.reserveInput(psdi));
    });
    this.reporter.record(this.record);
  }

  /**
   * Device source: the PSDI the board reported. On first sight it is reserved; later it must be
   * the one the record holds. A duplicate is logged, but never holds the PSDI: the holder keeps it.
   */
  async takeDevicePsdi(psdi: string, attempt: number): Promise<void> {
    if (this.record) {
      if (this.record.psdi !== psdi)
        throw new FatalStepError(
          'read-psdi',
          `the board now reports PSDI "${psdi}", record #${this.record.id} holds "${this.record.psdi}"`,
          attempt,
        );
      return;
    }
    try {
      this.record = this.reporter.record(await this.store.reserve(this.reserveInput(psdi)));
    } catch (err) {
      if (!(err instanceof PsdiTakenError))
        throw new FatalStepError('reserve', errorMessage(err), 1);
      const refused = await this.store.recordRefused({
        ...this.reserveInput(psdi),
        psdi,
        step: 'reserve',
        error: err.message,
        attempts: 1,
      });
      throw new FatalStepError('reserve', err.message, 1, {
        record: this.reporter.record(refused),
      });
    }
  }

  requireRecord(): ProvisioningRecord {
    if (!this.record) throw new Error('no record reserved before writing');
    return this.record;
  }

  /** The board acknowledged every value and the commit after `attempts` write sessions. */
  async markWritten(attempts?: number): Promise<void> {
    const record = this.requireRecord();
    this.record = this.reporter.record(await this.store.markWritten(record.id, attempts));
  }

  /** The read-back matched: written (if the ack was lost) and verified, durably. */
  async markVerified(markedWritten: boolean, attempt: number): Promise<void> {
    const record = this.requireRecord();
    try {
      if (!markedWritten)
        this.record = this.reporter.record(await this.store.markWritten(record.id));
      this.record = this.reporter.record(
        await this.store.markVerified(record.id, attempt, this.history),
      );
    } catch (err) {
      // A disk or database failure: the board is fine, the log is not; retrying cannot help.
      throw new FatalStepError(
        'verify',
        `the audit store could not record the verification: ${errorMessage(err)}`,
        attempt,
        { cause: err },
      );
    }
  }

  /** Gives `record`'s PSDI up (back to the pool when `returnPsdi`): the run was stopped. */
  async release(
    record: ProvisioningRecord,
    reason: string,
    returnPsdi: boolean,
  ): Promise<ProvisioningRecord> {
    return this.reporter.record(await this.store.release(record.id, reason, { returnPsdi }));
  }

  /** Marks `record` failed at `step`, with this run's history. */
  async markFailed(
    record: ProvisioningRecord,
    failure: {
      step: ProvisioningStep;
      error: string;
      psdiHeld: boolean;
      attempts: number;
      returnPsdi: boolean;
    },
  ): Promise<ProvisioningRecord> {
    return this.reporter.record(
      await this.store.markFailed(record.id, { ...failure, history: this.history }),
    );
  }

  /**
   * Keeps the record's history: each failed try, and for one that is tried again, what the
   * next try did once it did it (docs/decisions.md, "Provisioning spends a PSDI only on a board
   * that can take it"). `lastError` is the failed step's error.
   */
  noteRetry(event: ProvisionEvent, lastError: unknown): void {
    const retry = this.retry;
    if (retry && event.type === 'step-started' && retry.event.then === undefined)
      retry.event.then = retry.head;
    if (retry && event.type === 'step-finished' && event.step === retry.until) {
      retry.event.then = `${retry.head}: ${retry.did}`;
      this.retry = undefined;
    }
    if (event.type !== 'step-failed') return;
    const entry: RecordEvent = {
      at: event.at,
      step: event.step,
      attempt: event.attempt,
      kind: 'failed',
      message: event.error,
    };
    this.history.push(entry);
    this.retry = undefined;
    if (!event.willRetry) return;
    const head = `attempt ${event.attempt + 1} after ${failureKind(lastError)}`;
    if (event.step === 'connect')
      this.retry = { event: entry, head, until: 'connect', did: 'connected' };
    else if (event.step === 'verify')
      this.retry = { event: entry, head, until: 'verify', did: 'read the PSDI back' };
    else if (event.step === 'commit')
      this.retry = {
        event: entry,
        head: 'looked for the board to see whether the commit took',
        until: 'commit',
        did: 'committed again',
      };
    else if (event.step === 'write')
      this.retry = {
        event: entry,
        head,
        until: 'write',
        did: 'reconnected and rewrote every value',
      };
    else this.retry = { event: entry, head, until: event.step, did: 'reconnected' };
  }

  private reserveInput(psdi: PsdiAllocator | string): ReserveInput {
    return {
      product: this.product,
      board: { ...this.board(), address: recordedAddress(this.board()) },
      profileId: this.profile.id,
      psdiSource: this.profile.psdi.source,
      imageHash: this.imageHash,
      psdi,
    };
  }
}
