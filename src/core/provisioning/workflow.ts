// Provisioning one board: select → reserve → connect → discover → (read-psdi) → write →
// commit → verify, every step bounded and retried by policy, and every audit transition on
// disk before the next radio step (docs/provisioning-protocol.md, "The tool's steps").
import type { Advertisement, BleCentral, BleConnection, ServiceInfo } from '../ble/port';
import { formatUuid, normalizeUuid } from '../ble/port';
import { ATT_ERROR, describeLengthRefusal } from '../ble/att/codes';
import { BoardBusyError, PsdiTakenError, StoreUnavailableError } from '../audit/errors';
import type { ProvisioningRecord, ProvisioningStep, RecordEvent } from '../audit/records';
import type { AuditStore, PsdiAllocator, ReserveInput } from '../audit/store';
import { encodeUuid, STATUS, type ProvisioningProfile } from '../ble/provisioning-profile';
import { failureKind, refusalOf, type Refusal } from './faults';
import { builtInProfiles, derivingAlternative } from './profiles';
import { checkPsdi, PsdiError } from './psdi';
import { describeMismatch, layoutMismatch, matchingProfiles } from './preflight';
import {
  delay,
  ProvisionCancelledError,
  ProvisionError,
  ProvisionMismatchError,
  resolveTiming,
  StepReporter,
  StepTimeoutError,
  withStepTimeout,
  type BoardRef,
  type ProgressListener,
  type ProvisionEvent,
  type ProvisionTiming,
  type TimingInput,
} from './steps';
import { errorMessage } from '../errors/message';
import { findBoard, PsdiMismatchError, verifyBoard } from './verify';

/** The trial product fields the board receives (docs/platform-api.md#things-endpoints). */
export interface ProductTarget {
  id: string;
  name: string;
  serviceUuid: string;
  psdiServiceUuid: string;
  psdiCharacteristicUuid: string;
}

export interface ProvisionBoardOptions {
  central: BleCentral;
  store: AuditStore;
  profile: ProvisioningProfile;
  product: ProductTarget;
  /** A board from a scan (it must advertise the profile's service), or its id and address. */
  board: Advertisement | BoardRef;
  /** Where the PSDI comes from when the profile's source is `tool`: an allocator or a value. */
  psdi?: PsdiAllocator | string;
  timing?: TimingInput;
  onProgress?: ProgressListener;
  /** Aborting cuts the run at the next safe point (never between commit and verify). */
  signal?: AbortSignal;
  /** The profiles a board that does not fit `profile` is matched against; default the built-in ones. */
  knownProfiles?: readonly ProvisioningProfile[];
}

export interface ProvisionResult {
  /** The verified record. */
  record: ProvisioningRecord;
  /** Tool wall time from select to the verified record. */
  durationMs: number;
}

/** Provisions and verifies one board; throws ProvisionError (step, board, cause, record). */
export async function provisionBoard(options: ProvisionBoardOptions): Promise<ProvisionResult> {
  return new ProvisionRun(options).fresh();
}

/**
 * Finishes a record a crash left unfinished, on a board seen uncommitted, with the SAME PSDI
 * (reconcile's "finish" choice). The record must hold its PSDI.
 */
export async function resumeProvisioning(
  options: Omit<ProvisionBoardOptions, 'psdi'>,
  record: ProvisioningRecord,
): Promise<ProvisionResult> {
  return new ProvisionRun(options).resume(record);
}

type SessionOutcome = 'acked' | 'already-committed' | { unknown: unknown };

/** A failure that more tries cannot fix (wrong board layout, refused commit, duplicate PSDI). */
class FatalStepError extends Error {
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

/** A step that failed after its own tries; the session around it may still try again. */
class StepFailure extends Error {
  constructor(
    readonly step: ProvisioningStep,
    readonly attempts: number,
    readonly sessionRetryable: boolean,
    cause: unknown,
  ) {
    super(errorMessage(cause), { cause });
  }
}

/** The commit went out and no answer says what became of it; the board has to be looked at. */
class CommitUnknownError extends Error {
  constructor(cause: unknown) {
    super(`no answer to the commit (${errorMessage(cause)})`, { cause });
  }
}

class CancelledError extends Error {
  constructor() {
    super('stopped by the operator before the commit');
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

type ValueName = keyof ProvisioningProfile['characteristics'];

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

class ProvisionRun {
  private readonly central: BleCentral;
  private readonly store: AuditStore;
  private readonly profile: ProvisioningProfile;
  private readonly product: ProductTarget;
  private readonly timing: ProvisionTiming;
  private readonly reporter: StepReporter;
  private readonly signal: AbortSignal | undefined;
  private board: BoardRef;
  private record: ProvisioningRecord | undefined;
  /** Set when a commit went out; cleared when the board is seen uncommitted afterwards. */
  private mayCarry = false;
  /** Finishing a record from an earlier run (reconcile), not a fresh one. */
  private resumed = false;
  /** Where an unexpected error (not one a step classified) is reported. */
  private lastStep: ProvisioningStep = 'select';
  /** The first connection, checked against the profile before anything was reserved. */
  private early: { connection: BleConnection; status: number | undefined } | undefined;
  private readonly started = performance.now();
  /** Every failed try of this run (after the record's earlier history) and what followed. */
  private history: RecordEvent[] = [];
  /** The board acknowledged a write of the PSDI itself in this run, in any session. */
  private psdiAcked = false;
  /** The board refused an operation by rule: no retry, and the cause in the message. */
  private refused: Refusal | undefined;
  /** A write (of a value or the commit) went out to the board in this run. */
  private sent = false;
  /** The values the board acknowledged in the latest session (earlier ones are not trusted). */
  private acked: ValueName[] = [];
  private retry: RetryNote | undefined;

  constructor(private readonly options: ProvisionBoardOptions) {
    this.central = options.central;
    this.store = options.store;
    this.profile = options.profile;
    this.product = {
      ...options.product,
      serviceUuid: normalizeUuid(options.product.serviceUuid),
      psdiServiceUuid: normalizeUuid(options.product.psdiServiceUuid),
      psdiCharacteristicUuid: normalizeUuid(options.product.psdiCharacteristicUuid),
    };
    this.timing = resolveTiming(options.timing);
    this.signal = options.signal;
    const given = options.board;
    this.board = {
      id: given.id,
      address: given.address,
      name: 'serviceUuids' in given ? given.localName : given.name,
      adapter: given.adapter,
    };
    this.reporter = new StepReporter(
      () => this.board,
      (event) => {
        if (event.type === 'step-started') this.lastStep = event.step;
        this.noteRetry(event);
        options.onProgress?.(event);
      },
    );
  }

  async fresh(): Promise<ProvisionResult> {
    try {
      await this.reporter.run('select', 1, async () => this.select());
      this.checkCancelled();
      // Connect and check the board against the profile first: a board that cannot take the
      // profile's writes is skipped before a PSDI is reserved for it. The reservation is still
      // on disk before the first byte goes out.
      const { connection, status } = await this.checkedConnection();
      try {
        this.checkCancelled();
        if (this.profile.psdi.source === 'tool') {
          this.record = await this.reporter.run('reserve', 1, async () => this.reserveFromTool());
          this.reporter.record(this.record);
        }
        this.early = { connection, status };
      } catch (err) {
        await connection.disconnect().catch(() => undefined);
        throw err;
      }
      return await this.complete();
    } catch (err) {
      throw await this.failed(err);
    }
  }

  async resume(record: ProvisioningRecord): Promise<ProvisionResult> {
    try {
      if (!record.psdiHeld)
        throw new FatalStepError('reconcile', `record #${record.id} no longer holds its PSDI`, 1);
      this.record = record;
      this.history = [...record.history];
      this.resumed = true;
      return await this.complete();
    } catch (err) {
      throw await this.failed(err);
    }
  }

  private select(): void {
    const ad = this.options.board;
    if ('serviceUuids' in ad) {
      if (!ad.serviceUuids.includes(this.profile.service))
        throw new FatalStepError(
          'select',
          `the board does not advertise the provisioning service ${this.profile.service} (already provisioned, or another profile)`,
          1,
        );
      if (!ad.connectable) throw new FatalStepError('select', 'the board is not connectable', 1);
    }
  }

  /** A connection to a board checked against the profile, tried as a session is. */
  private async checkedConnection(): Promise<{
    connection: BleConnection;
    status: number | undefined;
  }> {
    const tries = this.timing.write.retries + 1;
    for (let attempt = 1; ; attempt++) {
      const connection = await this.connect();
      try {
        return { connection, status: await this.preflight(connection, attempt) };
      } catch (err) {
        await connection.disconnect().catch(() => undefined);
        if (!(err instanceof StepFailure && err.sessionRetryable && attempt < tries)) throw err;
        this.checkCancelled();
        await delay(this.timing.retryDelayMs * attempt);
      }
    }
  }

  /**
   * Discovers the board's GATT and checks it against the profile; a board that does not fit is
   * a ProvisionMismatchError naming the known profiles that do. Then reads the status byte.
   */
  private async preflight(connection: BleConnection, attempt: number): Promise<number | undefined> {
    const checked = await this.step('discover', attempt, true, async () => {
      const services = await withStepTimeout(
        connection.discover(),
        'discover',
        this.timing.discover.timeoutMs,
      );
      const mismatch = layoutMismatch(this.profile, services);
      if (mismatch) return { services, mismatch };
      return { services, status: await this.readStatus(connection) };
    });
    if (checked.mismatch !== undefined) {
      const matching = matchingProfiles(
        this.profile,
        checked.services,
        this.options.knownProfiles ?? builtInProfiles(),
      );
      throw new ProvisionMismatchError(
        describeMismatch(this.profile, checked.mismatch, matching),
        this.board,
        matching.map((p) => ({ id: p.id, name: p.name })),
      );
    }
    return checked.status;
  }

  private async reserveFromTool(): Promise<ProvisioningRecord> {
    const source = this.options.psdi;
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
          };
    return await this.store.reserve(this.reserveInput(psdi));
  }

  private reserveInput(psdi: PsdiAllocator | string): ReserveInput {
    return {
      product: this.product,
      board: this.board,
      profileId: this.profile.id,
      psdiSource: this.profile.psdi.source,
      psdi,
    };
  }

  /** Write and commit (with session retries), then mark written, verify, mark verified. */
  private async complete(): Promise<ProvisionResult> {
    const writeTries = this.timing.write.retries + 1;
    const commitTries = this.timing.commit.retries + 1;
    let writeAttempt = 0;
    let commitAttempt = 0;
    let written = false;
    while (!written) {
      let outcome: SessionOutcome;
      try {
        outcome = await this.session(++writeAttempt, commitAttempt + 1);
      } catch (err) {
        if (err instanceof StepFailure && err.sessionRetryable && writeAttempt < writeTries) {
          await delay(this.timing.retryDelayMs * writeAttempt);
          continue;
        }
        throw err;
      }
      if (outcome !== 'acked' && outcome !== 'already-committed') {
        commitAttempt++;
        // The commit went out but its answer was lost: look at what the board advertises.
        const seen = await this.lookAfterCommit(commitAttempt);
        if (seen === 'uncommitted' && commitAttempt < commitTries) {
          writeAttempt = 0;
          continue;
        }
        if (seen !== 'committed')
          throw new StepFailure(
            'commit',
            commitAttempt,
            false,
            seen === 'uncommitted'
              ? new Error(`the commit did not take (${errorMessage(outcome.unknown)})`)
              : new Error(
                  `no answer to the commit (${errorMessage(outcome.unknown)}) and the board was not seen again; reconcile this record`,
                ),
          );
        // Committed without an ack: the read-back below is what proves it; written comes after.
        return this.verifyAndRecord(false);
      }
      written = true;
      const record = this.requireRecord();
      this.record = this.reporter.record(await this.store.markWritten(record.id, writeAttempt));
    }
    return this.verifyAndRecord(true);
  }

  private async verifyAndRecord(markedWritten: boolean): Promise<ProvisionResult> {
    const record = this.requireRecord();
    const tries = this.timing.verify.retries + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.reporter.run(
          'verify',
          attempt,
          () =>
            verifyBoard({
              central: this.central,
              address: this.board.address,
              product: this.product,
              psdi: record.psdi,
              timeoutMs: this.timing.verify.timeoutMs,
              connectTimeoutMs: this.timing.connect.timeoutMs,
              onVerified: () => this.recordVerified(record, markedWritten, attempt),
            }),
          (err) =>
            !(err instanceof PsdiMismatchError || err instanceof FatalStepError) &&
            !refusalOf(err) &&
            attempt < tries,
        );
        return { record: this.requireRecord(), durationMs: performance.now() - this.started };
      } catch (err) {
        if (err instanceof FatalStepError) throw err;
        if (err instanceof PsdiMismatchError)
          throw new FatalStepError('verify', err.message, attempt);
        // A read-back the board refuses by rule is refused again on every try.
        const refusal = refusalOf(err);
        if (refusal) throw this.refusal('verify', attempt, refusal, undefined, err);
        if (attempt >= tries) throw new StepFailure('verify', attempt, false, err);
        await delay(this.timing.retryDelayMs * attempt);
      }
    }
  }

  /** The read-back matched: written (if the ack was lost) and verified, durably. */
  private async recordVerified(
    record: ProvisioningRecord,
    markedWritten: boolean,
    attempt: number,
  ): Promise<void> {
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

  /** One connection: discover, check the status, (read the PSDI), write, commit. */
  private async session(attempt: number, commitAttempt: number): Promise<SessionOutcome> {
    const early = this.early;
    this.early = undefined;
    if (this.signal?.aborted) {
      void early?.connection.disconnect().catch(() => undefined);
      throw new CancelledError();
    }
    const connection = early?.connection ?? (await this.connect());
    try {
      const status = early
        ? early.status
        : await this.step('discover', attempt, true, async () => {
            const services = await withStepTimeout(
              connection.discover(),
              'discover',
              this.timing.discover.timeoutMs,
            );
            this.checkLayout(services, attempt);
            return this.readStatus(connection);
          });
      if (status === STATUS.committed) {
        // Ours only if a commit of this run (or of the record being resumed) went out.
        if (!this.mayCarry && !this.resumed)
          throw new FatalStepError(
            'discover',
            'the board reports it is committed already; it belongs to another provisioning',
            attempt,
          );
        return 'already-committed';
      }
      // The board says it is not committed: whatever commit went out before did not take.
      if (status !== undefined) this.mayCarry = false;
      if (this.profile.psdi.source === 'device') await this.takeDevicePsdi(connection, attempt);
      const record = this.requireRecord();
      const values = this.valuesToWrite(record.psdi);
      const room = connection.mtu - 3;
      const tooLong = values.find(([, data]) => data.length > room);
      if (tooLong)
        throw new FatalStepError(
          'write',
          `${tooLong[0]} is ${tooLong[1].length} bytes but the link's MTU ${connection.mtu} carries at most ${room} per write`,
          attempt,
        );
      await this.step('write', attempt, true, async () => {
        this.acked = [];
        for (const [name, data] of values) {
          this.sent = true;
          try {
            await withStepTimeout(
              connection.write(this.profile.service, this.profile.characteristics[name], data),
              'write',
              this.timing.write.timeoutMs,
            );
          } catch (err) {
            const refusal = refusalOf(err);
            if (refusal) throw this.refusal('write', attempt, refusal, name, err, data.length);
            throw err;
          }
          this.acked.push(name);
          if (name === 'psdi') this.psdiAcked = true;
        }
      });
      this.checkCancelled();
      return await this.commit(connection, commitAttempt);
    } finally {
      await connection.disconnect().catch(() => undefined);
    }
  }

  /**
   * Writes the commit value, then reads the status byte: a board whose stack cannot answer a
   * write with an error (NimBLE-Arduino) acknowledges and reports `rejected` there instead.
   * No status because the board is gone: after an acknowledgement that is the reboot of a good
   * commit; after an error or no answer, only a look at the board can tell.
   */
  private async commit(connection: BleConnection, attempt: number): Promise<SessionOutcome> {
    this.mayCarry = true;
    const started = performance.now();
    try {
      return await this.reporter.run(
        'commit',
        attempt,
        async (): Promise<SessionOutcome> => {
          let answer: unknown;
          this.sent = true;
          try {
            await withStepTimeout(
              connection.write(
                this.profile.service,
                this.profile.characteristics.control,
                Buffer.from(this.profile.commit.value, 'hex'),
              ),
              'commit',
              this.timing.commit.timeoutMs,
            );
          } catch (err) {
            if (err instanceof StepTimeoutError) throw new CommitUnknownError(err);
            answer = err;
          }
          const remaining = Math.max(
            1,
            this.timing.commit.timeoutMs - (performance.now() - started),
          );
          const status = await withStepTimeout(
            connection.read(this.profile.service, this.profile.characteristics.status),
            'commit',
            remaining,
          ).then(
            (data) => data[0],
            () => undefined,
          );
          if (status === STATUS.committed) return 'acked';
          if (status === undefined) {
            // An adapter that cannot see a refusal (`native`) resolves every write: only a
            // read-back of the board can say the commit took (docs/decisions.md, "Native bindings").
            if (answer === undefined && connection.writesConfirmed) return 'acked';
            throw new CommitUnknownError(answer ?? 'the write was not confirmed by the board');
          }
          this.mayCarry = false;
          const hex = status.toString(16).padStart(2, '0');
          throw new FatalStepError(
            'commit',
            `the board refused the commit (status 0x${hex})${answer === undefined ? '' : `: ${errorMessage(answer)}`}`,
            attempt,
            { cause: answer },
          );
        },
        (err) => err instanceof CommitUnknownError,
      );
    } catch (err) {
      if (err instanceof CommitUnknownError) return { unknown: err.cause };
      throw err;
    }
  }

  /** After a lost commit answer: is the board in product mode, still provisioning, or gone? */
  private async lookAfterCommit(
    attempt: number,
  ): Promise<'committed' | 'uncommitted' | 'not-seen'> {
    return this.reporter.run('select', attempt, async () => {
      const ad = await findBoard(
        this.central,
        this.board.address,
        [this.product.serviceUuid, this.profile.service],
        this.timing.select.timeoutMs,
      );
      if (!ad) return 'not-seen';
      this.board = { ...this.board, id: ad.id };
      return ad.serviceUuids.includes(this.product.serviceUuid) ? 'committed' : 'uncommitted';
    });
  }

  private async connect(): Promise<BleConnection> {
    const tries = this.timing.connect.retries + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.reporter.run(
          'connect',
          attempt,
          () =>
            withStepTimeout(
              this.central.connect(this.board.id, { timeoutMs: this.timing.connect.timeoutMs }),
              'connect',
              this.timing.connect.timeoutMs,
            ),
          () => attempt < tries,
        );
      } catch (err) {
        if (attempt >= tries) throw new StepFailure('connect', attempt, false, err);
        this.checkCancelled();
        await delay(this.timing.retryDelayMs * attempt);
      }
    }
  }

  /** Runs a step once; its failure becomes a StepFailure the session may retry. */
  private async step<T>(
    step: ProvisioningStep,
    attempt: number,
    sessionRetryable: boolean,
    work: () => Promise<T>,
  ): Promise<T> {
    const retryable = (err: unknown) =>
      sessionRetryable &&
      !(err instanceof FatalStepError) &&
      !refusalOf(err) &&
      attempt < this.timing.write.retries + 1;
    try {
      return await this.reporter.run(step, attempt, work, retryable);
    } catch (err) {
      if (err instanceof FatalStepError || err instanceof StepFailure) throw err;
      const refusal = refusalOf(err);
      if (refusal) throw this.refusal(step, attempt, refusal, undefined, err);
      throw new StepFailure(step, attempt, sessionRetryable, err);
    }
  }

  /**
   * A refusal by rule ends the run at once: the same board answers the same way every time.
   * The message says what was refused, the likely cause, and what to use instead.
   */
  private refusal(
    step: ProvisioningStep,
    attempt: number,
    refusal: Refusal,
    value: ValueName | undefined,
    cause: unknown,
    written?: number,
  ): FatalStepError {
    this.refused = refusal;
    const what = value
      ? `the write of ${value} (${formatUuid(this.profile.characteristics[value])})`
      : step === 'verify'
        ? 'the read-back of the PSDI'
        : `the ${step}`;
    let advice: string;
    if (refusal.code === ATT_ERROR.invalidAttributeValueLength && written !== undefined) {
      const expected =
        value === 'psdi'
          ? `a PSDI of up to ${this.profile.psdi.maxBytes} bytes (psdi.maxBytes)`
          : `UUIDs as ${this.profile.uuidEncoding === 'bytes' ? '16 bytes' : 'their 36-character text'} (uuidEncoding "${this.profile.uuidEncoding}")`;
      advice = `${describeLengthRefusal(written)}; profile ${this.profile.id} writes ${expected}: the firmware expects another length, so check the profile against it`;
    } else if (step === 'write' && this.profile.psdi.source === 'tool') {
      const alternative = derivingAlternative(this.profile, builtInProfiles());
      const instead = alternative
        ? `use the profile "${alternative.name}" (${alternative.id}) instead`
        : 'use a profile whose firmware derives the PSDI instead';
      advice = refusal.security
        ? `likely cause: the board requires a paired, encrypted link and pairing was refused, or its firmware derives the PSDI and takes no value from the tool; allow pairing, or ${instead}`
        : `likely cause: the board's firmware derives the PSDI itself and takes no value from the tool; ${instead}`;
    } else {
      advice = refusal.security
        ? 'likely cause: the board requires a paired, encrypted link and pairing was refused; allow pairing on the board and try again'
        : `likely cause: the board's firmware does not match profile ${this.profile.id}`;
    }
    return new FatalStepError(
      step,
      `the board refused ${what} with ${refusal.what}; ${advice}`,
      attempt,
      { cause },
    );
  }

  /**
   * Keeps the record's history: each failed try, and for one that is tried again, what the
   * next try did once it did it (docs/decisions.md, "Provisioning spends a PSDI only on a board
   * that can take it").
   */
  private noteRetry(event: ProvisionEvent): void {
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
    const head = `attempt ${event.attempt + 1} after ${failureKind(this.reporter.lastError)}`;
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

  /** A later session (or a resumed record) finds the layout changed: nothing more to try. */
  private checkLayout(services: ServiceInfo[], attempt: number): void {
    const mismatch = layoutMismatch(this.profile, services);
    if (mismatch)
      throw new FatalStepError(
        'discover',
        `the board does not match profile ${this.profile.id}: ${mismatch}`,
        attempt,
      );
  }

  /** The status byte, when the profile's status characteristic can be read. */
  private async readStatus(connection: BleConnection): Promise<number | undefined> {
    const data = await withStepTimeout(
      connection.read(this.profile.service, this.profile.characteristics.status),
      'discover',
      this.timing.read.timeoutMs,
    );
    return data[0];
  }

  /** Device source: read the board's PSDI; on first sight reserve it, later check it is the same. */
  private async takeDevicePsdi(connection: BleConnection, attempt: number): Promise<void> {
    const data = await this.step('read-psdi', attempt, true, () =>
      withStepTimeout(
        connection.read(this.profile.service, this.profile.characteristics.psdi),
        'read-psdi',
        this.timing.read.timeoutMs,
      ),
    );
    let psdi: string;
    try {
      psdi = decoder.decode(data);
      checkPsdi(psdi, this.profile.psdi.maxBytes);
    } catch (err) {
      const message = `the board's PSDI is unusable: ${err instanceof PsdiError ? err.message : 'not UTF-8'}`;
      throw new FatalStepError('read-psdi', message, attempt);
    }
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
      // A duplicate from the board is logged, but never holds the PSDI: the holder keeps it.
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

  private valuesToWrite(
    psdi: string,
  ): [keyof ProvisioningProfile['characteristics'], Uint8Array][] {
    const values: [keyof ProvisioningProfile['characteristics'], Uint8Array][] = [
      ['serviceUuid', encodeUuid(this.profile, this.product.serviceUuid)],
      ['psdiServiceUuid', encodeUuid(this.profile, this.product.psdiServiceUuid)],
      ['psdiCharacteristicUuid', encodeUuid(this.profile, this.product.psdiCharacteristicUuid)],
    ];
    if (this.profile.psdi.source === 'tool') values.push(['psdi', new TextEncoder().encode(psdi)]);
    return values;
  }

  /** For a failure before the commit: what the board acknowledged, so the record says no more. */
  private whatReachedTheBoard(): string {
    if (!this.sent) return 'Nothing was written to the board';
    if (!this.acked.length) return 'The board acknowledged no value';
    return `The board acknowledged ${this.acked.join(', ')}, uncommitted`;
  }

  private checkCancelled(): void {
    if (this.signal?.aborted) throw new CancelledError();
  }

  private requireRecord(): ProvisioningRecord {
    if (!this.record) throw new Error('no record reserved before writing');
    return this.record;
  }

  /**
   * Records the failure durably and turns it into the ProvisionError the caller sees. When the
   * log itself cannot be written (the database went away), the record stays unfinished there:
   * reconcile settles it by what the board carries.
   */
  private async failed(err: unknown): Promise<ProvisionError> {
    if (err instanceof ProvisionError) return err;
    const step: ProvisioningStep =
      err instanceof StepFailure || err instanceof FatalStepError
        ? err.step
        : err instanceof BoardBusyError ||
            err instanceof PsdiTakenError ||
            err instanceof PsdiError ||
            (err instanceof StoreUnavailableError && !this.record)
          ? 'reserve'
          : this.lastStep;
    const attempts = err instanceof StepFailure || err instanceof FatalStepError ? err.attempts : 1;
    let message = errorMessage(err);
    let record = err instanceof FatalStepError ? (err.record ?? this.record) : this.record;
    try {
      if (err instanceof CancelledError) {
        // Stopped before the board took the PSDI: back to the pool, as for a refusal.
        if (record && record.psdiHeld && !this.mayCarry)
          record = this.reporter.record(
            await this.store.release(record.id, message, {
              returnPsdi: !this.psdiAcked && this.profile.psdi.source === 'tool',
            }),
          );
        return new ProvisionCancelledError(step, message, this.board, { record, attempts });
      }
      if (record && record.psdiHeld && record.state !== 'verified') {
        if (!this.mayCarry) message = `${message}. ${this.whatReachedTheBoard()}`;
        record = this.reporter.record(
          await this.store.markFailed(record.id, {
            step,
            error: message,
            psdiHeld: this.mayCarry,
            attempts,
            // Nothing went out, or the board refused before it ever took the PSDI: back to the
            // pool, not burnt.
            returnPsdi:
              this.profile.psdi.source === 'tool' &&
              !this.mayCarry &&
              (!this.sent || (this.refused !== undefined && !this.psdiAcked)),
            history: this.history,
          }),
        );
      }
    } catch (storeErr) {
      if (!(storeErr instanceof StoreUnavailableError)) throw storeErr;
      message = `${message}; ${storeErr.message}: record #${record?.id} is left ${record?.state} for reconcile`;
      err = storeErr;
    }
    return new ProvisionError(step, message, this.board, { cause: err, record, attempts });
  }
}
