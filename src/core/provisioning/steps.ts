// What every provisioning step shares: the product and board it works on, its timeout and retry
// policy, the progress events a UI follows, and the typed error that says which step failed, on
// which board, and why.
import type { ProvisioningRecord, ProvisioningStep } from '../audit/records';
import { withTimeout } from '../async/timeout';
import { errorMessage } from '../errors/message';
import { PairingStepError } from './step-failures';
import { withCharacteristicNames, type UuidNames } from '../ble/names/resolver';

interface StepPolicy {
  /** One try of the step gives up after this long. */
  timeoutMs: number;
  /** Further tries after the first. */
  retries: number;
}

/**
 * Per-step policies. `write` retries redo the whole session (reconnect, rewrite every value):
 * after a dropped link nothing written before it can be trusted. `commit` retries happen only
 * when the board is seen uncommitted after a commit whose answer was lost. `select` bounds the
 * scans that look for a board by address.
 */
export interface ProvisionTiming {
  select: StepPolicy;
  connect: StepPolicy;
  discover: StepPolicy;
  read: StepPolicy;
  write: StepPolicy;
  commit: StepPolicy;
  verify: StepPolicy;
  /** Pause before a retry, times the attempt number; a busy radio often needs a moment. */
  retryDelayMs: number;
}

export const defaultTiming: ProvisionTiming = {
  select: { timeoutMs: 15_000, retries: 0 },
  connect: { timeoutMs: 10_000, retries: 2 },
  discover: { timeoutMs: 10_000, retries: 0 },
  read: { timeoutMs: 5_000, retries: 0 },
  write: { timeoutMs: 5_000, retries: 2 },
  commit: { timeoutMs: 5_000, retries: 1 },
  // A reboot into product mode plus a fresh advertisement, a connection and one read.
  verify: { timeoutMs: 20_000, retries: 2 },
  retryDelayMs: 250,
};

export type TimingInput = Partial<Omit<ProvisionTiming, 'retryDelayMs'>> & {
  retryDelayMs?: number;
};

export function resolveTiming(input: TimingInput = {}): ProvisionTiming {
  const timing = { ...defaultTiming, ...input };
  for (const [name, value] of Object.entries(timing)) {
    if (typeof value === 'number') {
      if (!(value >= 0)) throw new RangeError(`timing.${name} must be a number ≥ 0`);
      continue;
    }
    if (!(value.timeoutMs > 0)) throw new RangeError(`timing.${name}.timeoutMs must be > 0`);
    if (!Number.isInteger(value.retries) || value.retries < 0)
      throw new RangeError(`timing.${name}.retries must be a whole number ≥ 0`);
  }
  return timing;
}

/** The trial product fields the board receives (docs/platform-api.md#things-endpoints). */
export interface ProductTarget {
  id: string;
  name: string;
  serviceUuid: string;
  psdiServiceUuid: string;
  psdiCharacteristicUuid: string;
}

export interface BoardRef {
  /** noble's peripheral id (what connect takes). */
  id: string;
  address: string;
  /** The name the board advertises, when it gives one: what people know it by. */
  name?: string;
  /** The adapter that heard it (spec text), where the central names one. */
  adapter?: string;
  /** Its identity address, where a bond resolves its private address (`Advertisement`'s). */
  identityAddress?: string;
}

/** One event per step boundary and per audit change; enough for a live per-board view. */
export type ProvisionEvent =
  | {
      type: 'step-started';
      board: BoardRef;
      step: ProvisioningStep;
      attempt: number;
      at: number;
    }
  | {
      type: 'step-finished';
      board: BoardRef;
      step: ProvisioningStep;
      attempt: number;
      at: number;
      durationMs: number;
    }
  | {
      type: 'step-failed';
      board: BoardRef;
      step: ProvisioningStep;
      attempt: number;
      at: number;
      durationMs: number;
      error: string;
      /** Another attempt of this step (or of the session it belongs to) follows. */
      willRetry: boolean;
      /** The pairing the run needed failed or fell short (a front end may say so its own way). */
      pairing?: true;
    }
  | { type: 'record'; board: BoardRef; record: ProvisioningRecord; at: number };

export type ProgressListener = (event: ProvisionEvent) => void;

/** Why a board was not provisioned: the step, the board, the cause, and the record it left. */
export class ProvisionError extends Error {
  override name = 'ProvisionError';
  constructor(
    readonly step: ProvisioningStep,
    message: string,
    readonly board: BoardRef,
    options: { cause?: unknown; record?: ProvisioningRecord; attempts?: number } = {},
  ) {
    super(`${board.address}: ${step}: ${message}`, { cause: options.cause });
    this.detail = message;
    this.record = options.record;
    this.attempts = options.attempts ?? 1;
  }
  /** The audit record as the failure left it; absent when it failed before one was made. */
  readonly record: ProvisioningRecord | undefined;
  readonly attempts: number;
  /** The cause in words, without the board and step the message starts with. */
  readonly detail: string;
}

/**
 * The board's GATT does not fit the profile: found before anything was reserved or written, so
 * the board is skipped, not failed. `matching` names the known profiles that do fit it.
 */
export class ProvisionMismatchError extends ProvisionError {
  override name = 'ProvisionMismatchError';
  constructor(
    readonly reason: string,
    board: BoardRef,
    readonly matching: readonly { id: string; name: string }[],
  ) {
    super('discover', reason, board);
  }
}

/** The operator stopped the run at a safe point; the record (if any) is released. */
export class ProvisionCancelledError extends ProvisionError {
  override name = 'ProvisionCancelledError';
}

export class StepTimeoutError extends Error {
  override name = 'StepTimeoutError';
  constructor(
    readonly step: ProvisioningStep,
    readonly timeoutMs: number,
  ) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * Resolves or rejects with the operation, or rejects with a StepTimeoutError first. The
 * operation keeps running after a timeout; the caller drops the link to end it.
 */
export function withStepTimeout<T>(
  operation: Promise<T>,
  step: ProvisioningStep,
  timeoutMs: number,
): Promise<T> {
  return withTimeout(operation, timeoutMs, () => new StepTimeoutError(step, timeoutMs));
}

export function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/**
 * Emits started/finished/failed around each step and times it; the failure event carries
 * whether the caller will try again, which only the caller knows.
 */
export class StepReporter {
  /** The error of the latest failed step, for a listener that needs more than its text. */
  lastError: unknown;

  constructor(
    private readonly board: () => BoardRef,
    private readonly listener: ProgressListener | undefined,
    /**
     * The profile's and the product's characteristics by name: a failed step's words call them
     * so ("writing PSDI (8f1d0004-…)"), in its line, its record and the run's result.
     */
    private readonly names: UuidNames = {},
  ) {}

  async run<T>(
    step: ProvisioningStep,
    attempt: number,
    work: () => Promise<T>,
    willRetry: (err: unknown) => boolean = () => false,
  ): Promise<T> {
    const started = performance.now();
    this.emit({ type: 'step-started', board: this.board(), step, attempt, at: Date.now() });
    try {
      const value = await work();
      this.emit({
        type: 'step-finished',
        board: this.board(),
        step,
        attempt,
        at: Date.now(),
        durationMs: performance.now() - started,
      });
      return value;
    } catch (err) {
      if (err instanceof Error) err.message = withCharacteristicNames(err.message, this.names);
      this.lastError = err;
      this.emit({
        type: 'step-failed',
        board: this.board(),
        step,
        attempt,
        at: Date.now(),
        durationMs: performance.now() - started,
        error: errorMessage(err),
        willRetry: willRetry(err),
        ...(err instanceof PairingStepError && { pairing: true as const }),
      });
      throw err;
    }
  }

  record(record: ProvisioningRecord): ProvisioningRecord {
    this.emit({ type: 'record', board: this.board(), record, at: Date.now() });
    return record;
  }

  private emit(event: ProvisionEvent): void {
    // A listener's bug must not break provisioning or leave a record half-done.
    try {
      this.listener?.(event);
    } catch {
      /* the UI's problem, not the board's */
    }
  }
}
