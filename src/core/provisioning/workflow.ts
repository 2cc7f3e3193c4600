// Provisioning one board: select → reserve → connect → discover → (read-psdi) → write →
// commit → verify, every step bounded and retried by policy, and every audit transition on
// disk before the next radio step (docs/provisioning-protocol.md, "The tool's steps"). A board
// writer does the board's side (the GATT session, or MCUmgr settings, by the profile's kind),
// the record ledger the audit store's; a run composes the two.
import type { Advertisement, BleCentral } from '../ble/port';
import { normalizeUuid } from '../ble/port';
import { BoardBusyError, PsdiTakenError, StoreUnavailableError } from '../audit/errors';
import type { ProvisioningRecord, ProvisioningStep } from '../audit/records';
import type { AuditStore, PsdiAllocator } from '../audit/store';
import {
  PROFILE_CHARACTERISTIC_NAMES,
  type AnyProvisioningProfile,
} from '../ble/provisioning-profile';
import type { UuidNames } from '../ble/names/resolver';
import { errorMessage } from '../errors/message';
import type { BoardWriter, SessionRecord } from './board-writer';
import { GattSession } from './gatt-session';
import { McumgrSettingsSession } from './mcumgr-settings-session';
import { PsdiError } from '../audit/psdi';
import { RecordLedger } from './record-ledger';
import { CancelledError, FatalStepError, StepFailure } from './step-failures';
import {
  ProvisionCancelledError,
  ProvisionError,
  resolveTiming,
  StepReporter,
  type BoardRef,
  type ProductTarget,
  type ProgressListener,
  type ProvisionTiming,
  type TimingInput,
} from './steps';

export interface ProvisionBoardOptions {
  central: BleCentral;
  store: AuditStore;
  profile: AnyProvisioningProfile;
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
  knownProfiles?: readonly AnyProvisioningProfile[];
  /** An image put on the board before anything is reserved for it (`provision --image`). */
  flash?: ImageFlash;
}

/** Flashing a board before provisioning it; the use cases build it (usecases/firmware.ts). */
export interface ImageFlash {
  /** The image's SHA-256 (hex), kept in the board's record. */
  hash: string;
  /** Flashes the board at `address`; resolves once it runs the image, confirmed. */
  onto(address: string): Promise<void>;
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

class ProvisionRun {
  private readonly profile: AnyProvisioningProfile;
  private readonly reporter: StepReporter;
  private readonly session: BoardWriter;
  private readonly ledger: RecordLedger;
  /** Where an unexpected error (not one a step classified) is reported. */
  private lastStep: ProvisioningStep = 'select';
  private readonly started = performance.now();

  constructor(private readonly options: ProvisionBoardOptions) {
    this.profile = options.profile;
    const product = {
      ...options.product,
      serviceUuid: normalizeUuid(options.product.serviceUuid),
      psdiServiceUuid: normalizeUuid(options.product.psdiServiceUuid),
      psdiCharacteristicUuid: normalizeUuid(options.product.psdiCharacteristicUuid),
    };
    this.reporter = new StepReporter(
      () => this.session.board,
      (event) => {
        if (event.type === 'step-started') this.lastStep = event.step;
        this.ledger.noteRetry(event, this.reporter.lastError);
        options.onProgress?.(event);
      },
      characteristicNames(options.profile, product.psdiCharacteristicUuid),
    );
    this.session = boardWriter({
      central: options.central,
      profile: options.profile,
      product,
      timing: resolveTiming(options.timing),
      reporter: this.reporter,
      signal: options.signal,
      knownProfiles: options.knownProfiles,
      board: options.board,
    });
    this.ledger = new RecordLedger(
      options.store,
      options.profile,
      product,
      () => this.session.board,
      this.reporter,
      options.flash?.hash,
    );
  }

  async fresh(): Promise<ProvisionResult> {
    try {
      await this.session.select(this.options.board);
      this.session.checkCancelled();
      // The image first: a board that cannot take it fails here, before a PSDI is reserved.
      const flash = this.options.flash;
      if (flash) {
        await this.reporter.run('flash', 1, () => flash.onto(this.session.board.address));
        this.session.checkCancelled();
      }
      // Connect and check the board against the profile first: a board that cannot take the
      // profile's writes is skipped before a PSDI is reserved for it. The reservation is still
      // on disk before the first byte goes out.
      await this.session.open(async () => {
        if (this.profile.psdi.source === 'tool')
          await this.ledger.reserveFromTool(this.options.psdi);
      });
      return await this.complete(false);
    } catch (err) {
      throw await this.failed(err);
    }
  }

  async resume(record: ProvisioningRecord): Promise<ProvisionResult> {
    try {
      this.ledger.resume(record);
      return await this.complete(true);
    } catch (err) {
      throw await this.failed(err);
    }
  }

  /** Write and commit (with session retries), then verify, each recorded as it happens. */
  private async complete(resumed: boolean): Promise<ProvisionResult> {
    const record: SessionRecord = {
      resumed,
      psdiToWrite: async (fromBoard, attempt) => {
        if (fromBoard !== undefined) await this.ledger.takeDevicePsdi(fromBoard, attempt);
        return this.ledger.requireRecord().psdi;
      },
      written: (attempts) => this.ledger.markWritten(attempts),
    };
    const { acknowledged } = await this.session.writeAndCommit(record);
    await this.session.verify(this.ledger.requireRecord().psdi, (attempt) =>
      this.ledger.markVerified(acknowledged, attempt),
    );
    return { record: this.ledger.requireRecord(), durationMs: performance.now() - this.started };
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
            (err instanceof StoreUnavailableError && !this.ledger.record)
          ? 'reserve'
          : this.lastStep;
    const attempts = err instanceof StepFailure || err instanceof FatalStepError ? err.attempts : 1;
    let message = errorMessage(err);
    let record =
      err instanceof FatalStepError ? (err.record ?? this.ledger.record) : this.ledger.record;
    const session = this.session;
    // A write whose answer was lost may have reached the board: even a stopped run keeps the
    // PSDI and leaves the record to reconcile, which looks (docs/decisions.md, "A noisy serial line").
    const unknown = session.outcomeUnknown();
    try {
      if (err instanceof CancelledError && unknown === undefined) {
        // Stopped before the board took the PSDI: back to the pool, as for a refusal.
        if (record && record.psdiHeld && !session.mayCarry)
          record = await this.ledger.release(
            record,
            message,
            !session.psdiAcked && this.profile.psdi.source === 'tool',
          );
        return new ProvisionCancelledError(step, message, session.board, { record, attempts });
      }
      if (record && record.psdiHeld && record.state !== 'verified') {
        if (unknown !== undefined) message = `${message}. ${unknown}`;
        else if (!session.mayCarry) message = `${message}. ${session.whatReachedTheBoard()}`;
        record = await this.ledger.markFailed(record, {
          step,
          error: message,
          psdiHeld: session.mayCarry || unknown !== undefined,
          attempts,
          // Nothing went out, or the board refused before it ever took the PSDI: back to the
          // pool, not burnt.
          returnPsdi:
            this.profile.psdi.source === 'tool' &&
            !session.mayCarry &&
            unknown === undefined &&
            (!session.sent || (session.refused !== undefined && !session.psdiAcked)),
        });
      }
    } catch (storeErr) {
      if (!(storeErr instanceof StoreUnavailableError)) throw storeErr;
      message = `${message}; ${storeErr.message}: record #${record?.id} is left ${record?.state} for reconcile`;
      err = storeErr;
    }
    return new ProvisionError(step, message, session.board, { cause: err, record, attempts });
  }
}

/** The writer the profile's kind calls for. */
function boardWriter(options: {
  central: BleCentral;
  profile: AnyProvisioningProfile;
  product: ProductTarget;
  timing: ProvisionTiming;
  reporter: StepReporter;
  signal: AbortSignal | undefined;
  knownProfiles: readonly AnyProvisioningProfile[] | undefined;
  board: Advertisement | BoardRef;
}): BoardWriter {
  const { central, profile, product, timing, reporter, signal } = options;
  if (profile.kind === 'mcumgr-settings')
    return new McumgrSettingsSession(
      central,
      profile,
      product,
      timing,
      reporter,
      signal,
      options.board,
    );
  return new GattSession(
    central,
    profile,
    product,
    timing,
    reporter,
    signal,
    options.knownProfiles,
    options.board,
  );
}

/**
 * The names a step's error calls characteristics by: the GATT profile's own, and the product's
 * PSDI characteristic, which the board carries once provisioned.
 */
function characteristicNames(
  profile: AnyProvisioningProfile,
  psdiCharacteristicUuid: string,
): UuidNames {
  const names: Record<string, string> = {
    [psdiCharacteristicUuid]: PROFILE_CHARACTERISTIC_NAMES.psdi,
  };
  if ('characteristics' in profile)
    for (const [value, uuid] of Object.entries(profile.characteristics))
      names[uuid] = PROFILE_CHARACTERISTIC_NAMES[value as keyof typeof profile.characteristics];
  return names;
}
