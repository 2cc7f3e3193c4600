// The SQLite audit log as the app, the bench server and the CLI open it: the same AuditStore,
// its database held by a worker thread (sqlite-worker.ts), so no query, fsync or lock wait ever
// blocks the thread that serves the window (docs/decisions.md, "Audit log off the window's
// thread, exports as streams"). Allocators stay on this thread: the worker asks them for a PSDI
// inside its open reservation, and their context questions go back into that transaction.
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { csvChunks, type CsvChunk } from './csv-export';
import { StoreUnavailableError } from './errors';
import type { ScenarioRunLog } from './scenario-runs';
import { freeTurnOf, newTurnsBuffer, type WriteTurns } from './sqlite-write-turns';
import {
  reviveError,
  type FromWorker,
  type MethodInput,
  type MethodName,
  type MethodOutput,
  type Request,
  type Target,
  type WorkerConfig,
} from './sqlite-worker-protocol';
import {
  stationName,
  STORE_CALLS,
  type AllocationContext,
  type AuditStore,
  type ExportQuery,
  type ProvisioningRecord,
  type PsdiAllocator,
  type ReserveInput,
  type StoreCall,
  type StoreCallArgs,
  type StoreCalls,
} from './store';

export interface SqliteWorkerStoreOptions {
  /** The database file. */
  file: string;
  /** Recorded on each record; the host name when not set. */
  station?: string;
  /** ms since the epoch; when given, each request carries this clock's time to the worker. */
  now?: () => number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** A reservation or preview whose allocator runs here. */
  allocation?: { productId: string; allocator: PsdiAllocator; error?: unknown };
}

/**
 * The worker's heap ceiling. Everything it reads is paged (searches, export chunks), so its live
 * set stays a few MiB; left at V8's default (sized from the machine's memory) the heap lets an
 * export's garbage pile up before collecting it, measured at about +95 MiB over a 10⁶-record
 * export against about +55 MiB with this ceiling (docs/decisions.md, "The audit log at a
 * million records").
 */
const WORKER_HEAP_MIB = 512;

/**
 * Each file's turns at writing, shared by every worker of this process on it
 * (sqlite-write-turns.ts); kept while a store has the file open.
 */
const turnsOfFile = new Map<string, { buffer: SharedArrayBuffer; stores: number }>();

/** Each started worker's number in the turns' word. */
let lastOwner = 0;

/**
 * Tests only: a built worker (test/cli/cli-bundle.ts) that stores opened from the TypeScript
 * sources start instead of registering tsx in each new thread, which cost about 0.8 s an open
 * at load 6 against 0.2 s (docs/decisions/tooling.md, "Eighth round"). Unset, as everywhere but
 * the unit tests, nothing changes; built code always starts the worker beside it.
 */
let builtWorkerForSources: string | undefined;

/** Tests only: see builtWorkerForSources; `undefined` goes back to tsx. */
export function startWorkersFromSourcesWith(file: string | undefined): void {
  builtWorkerForSources = file;
}

/** Starts the worker: built beside the main bundle, or from TypeScript sources through tsx. */
function startWorker(config: WorkerConfig): Worker {
  const options = {
    workerData: config,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MIB },
  };
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./sqlite-worker${fromSource ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSource) return new Worker(entry, options);
  if (builtWorkerForSources !== undefined) return new Worker(builtWorkerForSources, options);
  // A worker thread does not inherit tsx's loader: it registers it before loading the entry.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** The store's own methods; open() adds STORE_CALLS. */
export class SqliteWorkerStore implements Omit<AuditStore, StoreCall> {
  readonly engine = 'sqlite' as const;
  readonly file: string;
  readonly station: string;
  private readonly now: (() => number) | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The running worker; after a crash the next call starts another on the same file. */
  private worker: Promise<Worker> | undefined;
  private closed = false;
  private runLog: ScenarioRunLog | undefined;
  private readonly recipeKeys = new WeakMap<PsdiAllocator, number>();
  private nextRecipeKey = 1;

  /** The file's turns at writing; none for a throwaway in-memory log, which nothing shares. */
  private readonly turns: SharedArrayBuffer | undefined;

  private constructor(options: SqliteWorkerStoreOptions) {
    this.file = options.file;
    this.station = stationName(options.station);
    this.now = options.now;
    if (this.file !== ':memory:') {
      const shared = turnsOfFile.get(resolve(this.file)) ?? { buffer: newTurnsBuffer(), stores: 0 };
      shared.stores++;
      turnsOfFile.set(resolve(this.file), shared);
      this.turns = shared.buffer;
    }
  }

  /**
   * Opens (and migrates) the log in its worker; throws what opening the file threw. Each of
   * STORE_CALLS is sent to the worker with its arguments as they are; a call after the worker
   * died starts another, or says why it cannot.
   */
  static async open(options: SqliteWorkerStoreOptions): Promise<SqliteWorkerStore & StoreCalls> {
    const store = new SqliteWorkerStore(options);
    store.worker = store.start();
    await store.worker.catch((err: unknown) => {
      store.leaveTurns();
      throw err;
    });
    const forward =
      <M extends StoreCall>(name: M) =>
      (...args: StoreCallArgs<M>) =>
        store.call('store', name, args);
    return Object.assign(
      store,
      Object.fromEntries(
        Object.keys(STORE_CALLS).map((name) => [name, forward(name as StoreCall)]),
      ) as StoreCalls,
    );
  }

  get location(): string {
    return this.file;
  }

  reserve(input: ReserveInput): Promise<ProvisioningRecord> {
    const { psdi, ...rest } = input;
    if (typeof psdi === 'string') return this.call('worker', 'reserve', { input: rest, psdi });
    // One message: the worker makes the allocator again from its recipe and runs it in the
    // reserving transaction.
    if (psdi.recipe)
      return this.call('worker', 'reserve', {
        input: rest,
        psdi: { recipe: psdi.recipe, key: this.recipeKey(psdi) },
      });
    return this.call(
      'worker',
      'reserve',
      { input: rest, psdi: { allocator: true } },
      { productId: input.product.id, allocator: psdi },
    );
  }

  peekPsdi(productId: string, allocator: PsdiAllocator): Promise<string> {
    return this.call('worker', 'peekPsdi', { productId }, { productId, allocator });
  }

  /** Chunk by chunk: the worker reads and formats one, the next is asked for when this is used. */
  exportCsv(query: ExportQuery = {}): AsyncIterable<CsvChunk> {
    return csvChunks((after) => this.call('worker', 'exportChunk', { query, after }));
  }

  async scenarioRuns(): Promise<ScenarioRunLog> {
    const runs = <M extends MethodName<'runs'>>(method: M, input: MethodInput<'runs', M>) =>
      this.call('runs', method, input);
    this.runLog ??= {
      start: (run) => runs('start', { run }),
      append: (id, events) => runs('append', { id, events }),
      finish: (id, reason) => runs('finish', { id, reason }),
      get: (id) => runs('get', { id }),
      read: (id) => runs('read', { id }),
      list: (query) => runs('list', { query }),
      close: () => runs('close', {}),
    };
    return this.runLog;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.leaveTurns();
    const worker = await this.worker?.catch(() => undefined);
    if (!worker) return;
    await this.send(worker, 'worker', 'close', {}).catch(() => undefined);
    await worker.terminate();
  }

  /** The file's turns are forgotten when its last store in this process closes. */
  private leaveTurns(): void {
    const key = resolve(this.file);
    const shared = turnsOfFile.get(key);
    if (!shared || shared.buffer !== this.turns) return;
    if (--shared.stores === 0) turnsOfFile.delete(key);
  }

  /** The same key for the same allocator, so the worker makes it once. */
  private recipeKey(allocator: PsdiAllocator): number {
    let key = this.recipeKeys.get(allocator);
    if (key === undefined) this.recipeKeys.set(allocator, (key = this.nextRecipeKey++));
    return key;
  }

  private async call<T extends Target, M extends MethodName<T>>(
    target: T,
    method: M,
    input: MethodInput<T, M>,
    allocation?: Pending['allocation'],
  ): Promise<MethodOutput<T, M>> {
    if (this.closed) throw new StoreUnavailableError(this.file, new Error('the store is closed'));
    // Taken now, so the worker runs the request at the time the caller asked for it.
    const at = this.now?.();
    this.worker ??= this.start().catch((err: unknown) => {
      this.worker = undefined;
      throw new StoreUnavailableError(this.file, err);
    });
    return this.send(await this.worker, target, method, input, allocation, at);
  }

  private send<T extends Target, M extends MethodName<T>>(
    worker: Worker,
    target: T,
    method: M,
    input: MethodInput<T, M>,
    allocation?: Pending['allocation'],
    at?: number,
    reservation?: number,
  ): Promise<MethodOutput<T, M>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve: resolve as (value: unknown) => void,
        reject,
        allocation,
      });
      // An idle worker must not keep a finished command alive; a waiting caller must.
      worker.ref();
      const request: Request = { type: 'request', id, target, method, input, at, reservation };
      worker.postMessage(request);
    });
  }

  private start(): Promise<Worker> {
    const turns: WriteTurns | undefined = this.turns && { buffer: this.turns, owner: ++lastOwner };
    const worker = startWorker({
      file: this.file,
      station: this.station,
      callerClock: this.now !== undefined,
      turns,
    });
    return new Promise((resolve, reject) => {
      let ready = false;
      let reason = 'it stopped';
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          ready = true;
          worker.unref();
          resolve(worker);
        } else if (message.type === 'failed') reject(reviveError(message.error));
        else this.receive(worker, message);
      });
      worker.on('error', (err) => {
        reason = err.message;
        if (!ready) reject(err);
      });
      worker.on('exit', (code) => {
        // A worker that ended mid-write leaves the others their turns.
        if (turns) freeTurnOf(turns);
        if (!ready) reject(new Error(`the audit worker ${reason} (exit code ${code})`));
        this.stopped(worker, `the audit worker ${reason} (exit code ${code})`);
      });
    });
  }

  /** Whatever was in flight has an unknown outcome: the caller hears the log is unreachable. */
  private stopped(worker: Worker, reason: string): void {
    void this.worker?.then(
      (current) => {
        if (current === worker) this.worker = undefined;
      },
      () => undefined,
    );
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new StoreUnavailableError(this.file, new Error(reason)));
  }

  private receive(worker: Worker, message: Exclude<FromWorker, { type: 'ready' | 'failed' }>) {
    if (message.type === 'allocate') {
      void this.allocate(worker, message.reservation);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) worker.unref();
    if (message.ok) pending.resolve(message.value);
    else if (pending.allocation?.error !== undefined)
      pending.reject(pending.allocation.error as Error);
    else pending.reject(reviveError(message.error));
  }

  /** Runs the caller's allocator; its context questions go to the worker's open transaction. */
  private async allocate(worker: Worker, reservation: number): Promise<void> {
    const allocation = this.pending.get(reservation)?.allocation;
    const ask = <M extends MethodName<'context'>>(method: M, input: MethodInput<'context', M>) =>
      this.send(worker, 'context', method, input, undefined, undefined, reservation);
    const context: AllocationContext = {
      productId: allocation?.productId ?? '',
      wasRecorded: (psdi) => ask('wasRecorded', { psdi }),
      takeNumber: (key, start) => ask('takeNumber', { key, start }),
      firstFree: (values) => ask('firstFree', { values: [...values] }),
      returned: () => ask('returned', {}),
    };
    let psdi: string | undefined;
    try {
      if (!allocation) throw new Error(`request ${reservation} has no allocator`);
      psdi = await allocation.allocator.allocate(context);
    } catch (err) {
      if (allocation) allocation.error = err;
    }
    worker.postMessage({ type: 'allocated', reservation, psdi });
  }
}
