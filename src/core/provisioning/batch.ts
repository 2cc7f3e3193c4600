// Provisioning every blank board in range: scan for the profile's service, queue each new
// board once, run at most `concurrency` at a time, and end when no new board has shown up for
// `idleMs`. stop() starts no new board and lets the running ones end with correct records.
// When the audit log cannot be reached the batch holds: no new board starts (nothing may be
// written without a committed reservation), boards turned away go back in the queue, and it
// carries on once the log answers again.
import type { Advertisement, BleCentral } from '../ble/port';
import { BoardBusyError, StoreUnavailableError } from '../audit/errors';
import type { ProvisioningStep } from '../audit/records';
import type { AuditStore, PsdiAllocator } from '../audit/store';
import type { AnyProvisioningProfile } from '../ble/provisioning-profile';
import {
  ProvisionCancelledError,
  ProvisionError,
  ProvisionMismatchError,
  type BoardRef,
  type ProductTarget,
  type ProvisionEvent,
  type TimingInput,
} from './steps';
import { errorMessage } from '../errors/message';
import { meetsMinRssi, rssiText } from '../ble/rssi';
import { provisionBoard, type ImageFlash } from './workflow';

export interface BatchOptions {
  central: BleCentral;
  store: AuditStore;
  profile: AnyProvisioningProfile;
  product: ProductTarget;
  /** Required when the profile's PSDI source is `tool`; shared by every board of the batch. */
  psdi?: PsdiAllocator;
  timing?: TimingInput;
  /** Boards provisioned at once, 1–16; default 4. */
  concurrency?: number;
  /** Case-insensitive substring of the advertised local name. */
  nameFilter?: string;
  /** Boards heard weaker than this (dBm) are skipped until heard stronger. */
  minRssi?: number;
  /** The batch ends once no new board has appeared for this long and none is running; default 5 s. */
  idleMs?: number;
  /** Start at most this many boards. */
  maxBoards?: number;
  /**
   * Only boards that fit the profile count: a board found not to match it is left out of
   * `maxBoards` and of the summary's `skipped`, so the batch goes on to find the boards it can
   * provision. Without it such a board counts as one of the batch, skipped with its reason.
   */
  onlyMatching?: boolean;
  /** What a board that does not fit the profile is matched against; default the built-in ones. */
  knownProfiles?: readonly AnyProvisioningProfile[];
  /** An image put on every board before it is provisioned. */
  flash?: ImageFlash;
  /** How often a held batch asks whether the audit log is back; default 1 s. */
  storeRetryMs?: number;
  onEvent?: (event: BatchEvent) => void;
}

type BatchBoardState = 'queued' | 'running' | 'verified' | 'failed' | 'skipped';

export interface BatchBoardStatus {
  board: BoardRef;
  localName?: string;
  rssi: number;
  state: BatchBoardState;
  /** The step running now, or the failing step. */
  step?: ProvisioningStep;
  attempt?: number;
  recordId?: number;
  psdi?: string;
  error?: string;
  /** Why a board was not started: filtered out, stopped, unfinished record, another profile. */
  skipReason?: string;
  /** Skipped because its GATT does not fit the profile: the known profiles that do fit it. */
  matchingProfiles?: { id: string; name: string }[];
  /** Tool wall time for this board, once it ended. */
  durationMs?: number;
}

export interface BatchSummary {
  ok: number;
  failed: number;
  skipped: number;
  /** Boards left out because they do not fit the profile (`onlyMatching`); not in `skipped`. */
  notMatching: number;
  /** stop() was called (or the scan failed) before the batch ended on its own. */
  stopped: boolean;
  /** Why the scan for boards could not start, when it could not. */
  scanError?: string;
  /** From the first board started to the last one ended (0 when none ran). */
  activeMs: number;
  /** Verified boards per minute of `activeMs`. */
  boardsPerMinute: number;
  /** Mean tool wall time of the verified boards. */
  meanBoardMs: number;
  boards: BatchBoardStatus[];
}

export type BatchEvent =
  | { type: 'board'; status: BatchBoardStatus }
  | { type: 'progress'; event: ProvisionEvent }
  /** The audit log went away (`error`) or came back (no `error`). */
  | { type: 'store'; available: boolean; error?: string }
  | { type: 'finished'; summary: BatchSummary };

export interface BatchRun {
  /** Resolves when the batch has ended, on its own or after stop(). */
  readonly done: Promise<BatchSummary>;
  /**
   * No new board starts; queued ones are skipped. Running boards finish, or with `cut` stop at
   * their next safe point (before the commit; a commit already sent is always verified).
   */
  stop(options?: { cut?: boolean; reason?: string }): Promise<BatchSummary>;
  boards(): BatchBoardStatus[];
  /** Why the batch is holding, while the audit log cannot be reached. */
  storeError(): string | undefined;
}

export function startBatch(options: BatchOptions): BatchRun {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16)
    throw new RangeError('concurrency must be a whole number from 1 to 16');
  if (options.profile.psdi.source === 'tool' && !options.psdi)
    throw new Error(
      `profile ${options.profile.id} needs a PSDI strategy (the tool writes the PSDI)`,
    );
  return new Batch(options, concurrency);
}

class Batch implements BatchRun {
  readonly done: Promise<BatchSummary>;
  private readonly statuses = new Map<string, BatchBoardStatus>();
  private readonly queue: Advertisement[] = [];
  private readonly cut = new AbortController();
  private readonly idleMs: number;
  private readonly name: string | undefined;
  private running = 0;
  private started = 0;
  private firstStart: number | undefined;
  private lastEnd: number | undefined;
  private lastNewBoard = performance.now();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private ended = false;
  private scanError: string | undefined;
  private storeDown: string | undefined;
  private storeTimer: ReturnType<typeof setTimeout> | undefined;
  private scan: Promise<{ stop(): Promise<void> } | undefined>;
  private resolve!: (summary: BatchSummary) => void;

  constructor(
    private readonly options: BatchOptions,
    private readonly concurrency: number,
  ) {
    this.idleMs = options.idleMs ?? 5_000;
    this.name = options.nameFilter?.trim().toLowerCase() || undefined;
    this.done = new Promise((resolve) => (this.resolve = resolve));
    this.scan = options.central
      .startScan({ serviceUuids: [options.profile.service] }, (ad) => this.seen(ad))
      .catch((err: unknown) => {
        // Without a scan there is nothing to provision; end at once with what we have.
        this.scanError = errorMessage(err);
        this.stopped = true;
        queueMicrotask(() => this.maybeEnd());
        return undefined;
      });
    this.armIdle();
  }

  boards(): BatchBoardStatus[] {
    return [...this.statuses.values()].map((s) => ({ ...s }));
  }

  storeError(): string | undefined {
    return this.storeDown;
  }

  async stop(options: { cut?: boolean; reason?: string } = {}): Promise<BatchSummary> {
    if (!this.ended) {
      if (!this.stopped) {
        this.stopped = true;
        for (const ad of this.queue.splice(0))
          this.update(ad.address, { state: 'skipped', skipReason: 'stopped' });
      }
      if (options.cut) this.cut.abort(options.reason);
      this.maybeEnd();
    }
    return this.done;
  }

  private seen(ad: Advertisement): void {
    if (this.stopped || this.ended) return;
    const known = this.statuses.get(ad.address);
    if (known && known.state !== 'skipped') return;
    if (known?.skipReason && !known.skipReason.startsWith('filter:')) return;
    const reason = this.filterReason(ad);
    if (reason) {
      if (!known) this.set(ad, { state: 'skipped', skipReason: `filter: ${reason}` });
      return;
    }
    if (
      this.options.maxBoards !== undefined &&
      this.started + this.queue.length >= this.options.maxBoards
    )
      return;
    this.set(ad, { state: 'queued', skipReason: undefined });
    this.queue.push(ad);
    this.lastNewBoard = performance.now();
    this.armIdle();
    this.pump();
  }

  private filterReason(ad: Advertisement): string | undefined {
    if (!ad.connectable) return 'not connectable';
    if (this.name && !(ad.localName ?? '').toLowerCase().includes(this.name))
      return `name does not contain "${this.options.nameFilter}"`;
    if (!meetsMinRssi(ad.rssi, this.options.minRssi))
      return `RSSI ${rssiText(ad.rssi)} below ${this.options.minRssi} dBm`;
    return undefined;
  }

  private pump(): void {
    while (
      !this.stopped &&
      this.storeDown === undefined &&
      this.running < this.concurrency &&
      this.queue.length
    ) {
      const ad = this.queue.shift() as Advertisement;
      void this.provision(ad);
    }
  }

  private async provision(ad: Advertisement): Promise<void> {
    this.running++;
    this.started++;
    this.firstStart ??= performance.now();
    const started = performance.now();
    this.update(ad.address, { state: 'running', error: undefined });
    try {
      const { record } = await provisionBoard({
        central: this.options.central,
        store: this.options.store,
        profile: this.options.profile,
        product: this.options.product,
        board: ad,
        psdi: this.options.psdi,
        timing: this.options.timing,
        signal: this.cut.signal,
        knownProfiles: this.options.knownProfiles,
        flash: this.options.flash,
        onProgress: (event) => this.progress(ad.address, event),
      });
      this.update(ad.address, {
        state: 'verified',
        recordId: record.id,
        psdi: record.psdi,
        durationMs: performance.now() - started,
      });
    } catch (err) {
      const durationMs = performance.now() - started;
      if (
        err instanceof ProvisionError &&
        err.cause instanceof StoreUnavailableError &&
        !err.record &&
        !this.stopped
      ) {
        // Turned away before anything was reserved, so nothing reached the board: queue it again.
        this.update(ad.address, { state: 'queued', error: err.cause.message, durationMs });
        this.queue.unshift(ad);
        this.started--;
        this.holdForStore(err.cause);
      } else if (err instanceof ProvisionError && err.cause instanceof StoreUnavailableError) {
        this.holdForStore(err.cause);
        this.update(ad.address, {
          state: 'failed',
          error: errorMessage(err),
          step: err.step,
          recordId: err.record?.id,
          psdi: err.record?.psdi,
          durationMs,
        });
      } else if (err instanceof ProvisionMismatchError) {
        // Nothing was reserved or written; with onlyMatching it does not take a place of the batch.
        if (this.options.onlyMatching) this.started--;
        this.update(ad.address, {
          state: 'skipped',
          skipReason: err.reason,
          matchingProfiles: [...err.matching],
          step: err.step,
          durationMs,
        });
      } else if (err instanceof ProvisionCancelledError)
        this.update(ad.address, {
          state: 'skipped',
          skipReason: 'stopped',
          durationMs,
          recordId: err.record?.id,
        });
      else if (err instanceof ProvisionError && err.cause instanceof BoardBusyError)
        this.update(ad.address, { state: 'skipped', skipReason: err.cause.message, durationMs });
      else
        this.update(ad.address, {
          state: 'failed',
          error: errorMessage(err),
          step: err instanceof ProvisionError ? err.step : undefined,
          recordId: err instanceof ProvisionError ? err.record?.id : undefined,
          psdi: err instanceof ProvisionError ? err.record?.psdi : undefined,
          durationMs,
        });
    } finally {
      this.running--;
      this.lastEnd = performance.now();
      this.pump();
      this.maybeEnd();
    }
  }

  /** Holds the batch and asks the log every `storeRetryMs` until it answers. */
  private holdForStore(err: StoreUnavailableError): void {
    if (this.storeDown !== undefined) return;
    this.storeDown = err.message;
    this.emit({ type: 'store', available: false, error: err.message });
    const check = () => {
      this.storeTimer = undefined;
      if (this.ended) return;
      this.options.store.ping().then(
        () => {
          this.storeDown = undefined;
          this.emit({ type: 'store', available: true });
          this.pump();
          this.maybeEnd();
        },
        () => {
          if (!this.ended) this.storeTimer = setTimeout(check, this.options.storeRetryMs ?? 1_000);
        },
      );
    };
    this.storeTimer = setTimeout(check, this.options.storeRetryMs ?? 1_000);
  }

  private progress(address: string, event: ProvisionEvent): void {
    if (event.type === 'record')
      this.update(address, { recordId: event.record.id, psdi: event.record.psdi });
    else if (event.type === 'step-started')
      this.update(address, { step: event.step, attempt: event.attempt });
    this.emit({ type: 'progress', event });
  }

  private armIdle(ms = this.idleMs): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.maybeEnd(), Math.max(0, ms));
  }

  private maybeEnd(): void {
    if (this.ended || this.running > 0) return;
    const quietFor = performance.now() - this.lastNewBoard;
    const full = this.options.maxBoards !== undefined && this.started >= this.options.maxBoards;
    if (!this.stopped && !full && !(quietFor >= this.idleMs && this.queue.length === 0)) {
      // Idle time ran out while boards were running: wait out only the rest of it.
      if (this.queue.length === 0) this.armIdle(this.idleMs - quietFor);
      return;
    }
    this.ended = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.storeTimer) clearTimeout(this.storeTimer);
    void this.scan
      .then((handle) => handle?.stop())
      .catch(() => undefined)
      .then(() => {
        const summary = this.summary();
        this.emit({ type: 'finished', summary });
        this.resolve(summary);
      });
  }

  private summary(): BatchSummary {
    const boards = this.boards();
    const verified = boards.filter((b) => b.state === 'verified');
    const activeMs =
      this.firstStart !== undefined && this.lastEnd !== undefined
        ? this.lastEnd - this.firstStart
        : 0;
    const notMatching = (b: BatchBoardStatus) =>
      this.options.onlyMatching === true && b.matchingProfiles !== undefined;
    return {
      ok: verified.length,
      failed: boards.filter((b) => b.state === 'failed').length,
      skipped: boards.filter((b) => b.state === 'skipped' && !notMatching(b)).length,
      notMatching: boards.filter(notMatching).length,
      stopped: this.stopped,
      scanError: this.scanError,
      activeMs,
      boardsPerMinute: activeMs > 0 ? (verified.length * 60_000) / activeMs : 0,
      meanBoardMs: verified.length
        ? verified.reduce((sum, b) => sum + (b.durationMs ?? 0), 0) / verified.length
        : 0,
      boards,
    };
  }

  private set(ad: Advertisement, patch: Partial<BatchBoardStatus>): void {
    const status: BatchBoardStatus = {
      board: { id: ad.id, address: ad.address, name: ad.localName },
      localName: ad.localName,
      rssi: ad.rssi,
      state: 'queued',
      ...this.statuses.get(ad.address),
      ...patch,
    };
    status.rssi = ad.rssi;
    this.statuses.set(ad.address, status);
    this.emit({ type: 'board', status: { ...status } });
  }

  private update(address: string, patch: Partial<BatchBoardStatus>): void {
    const current = this.statuses.get(address);
    if (!current) return;
    const status = { ...current, ...patch };
    this.statuses.set(address, status);
    this.emit({ type: 'board', status: { ...status } });
  }

  private emit(event: BatchEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      /* a listener's bug must not stop the batch */
    }
  }
}
