// Entry of the worker thread that holds a SQLite audit log (docs/decisions.md, "Audit log off
// the window's thread, exports as streams"). better-sqlite3 is synchronous: here its waits
// (fsync, a long query, another process's write lock) block this thread, never the one that
// serves the window. Requests run one at a time, in arrival order, so the store's one-writer
// rules hold as they do in one thread; only an open reservation's allocator questions
// (`context`) are answered in between, inside its transaction. Reservations waiting next to
// each other share one transaction and one commit (docs/decisions.md, "Reservations fast
// again").
import { parentPort, workerData } from 'node:worker_threads';
import { csvPage } from './csv-export';
import { SqliteAuditStore } from './sqlite-store';
import type {
  AllocationContext,
  AllocatorRecipe,
  PsdiAllocator,
  ReserveInput,
  StoreCall,
  StoreCallArgs,
} from './store';
import { checkPsdi, createPsdiAllocator } from './psdi';
import type { ScenarioRunLog } from './scenario-runs';
import {
  parseRequest,
  serializeError,
  workerConfigSchema,
  type FromWorker,
  type MethodHandlers,
  type MethodInput,
  type Request,
  type Target,
  type ToWorker,
} from './sqlite-worker-protocol';

const port = parentPort;
if (!port) throw new Error('sqlite-worker.ts runs as a worker thread');
const config = workerConfigSchema.parse(workerData);
const send = (message: FromWorker) => port.postMessage(message);

/** The current request's time when the caller's clock is the store's (tests, benchmarks). */
let requestAt: number | undefined;
const now = config.callerClock ? () => requestAt ?? Date.now() : Date.now;

let store: SqliteAuditStore;
try {
  store = new SqliteAuditStore({
    file: config.file,
    station: config.station,
    now,
    turns: config.turns,
  });
} catch (err) {
  send({ type: 'failed', error: serializeError(err) });
  process.exit(1);
}
let runs: ScenarioRunLog | undefined;

/** Open reservations' allocation contexts, and the allocator answers they wait for. */
const contexts = new Map<number, AllocationContext>();
const waiting = new Map<number, (psdi: string | undefined) => void>();

/** Asks the caller's allocator, which asks back through `context` requests. */
function callerAllocator(reservation: number): PsdiAllocator {
  return {
    allocate: (context) =>
      new Promise<string>((resolve, reject) => {
        contexts.set(reservation, context);
        waiting.set(reservation, (psdi) => {
          contexts.delete(reservation);
          // The caller keeps the allocator's own error and throws that one.
          if (psdi === undefined) reject(new Error('the allocator failed'));
          else resolve(psdi);
        });
        send({ type: 'allocate', reservation });
      }),
  };
}

/** The request running now: a preview's allocator asks back under its id. */
let current = 0;

/** Allocators made again from their recipes, by the caller's key, the most recent few kept. */
const madeAgain = new Map<number, PsdiAllocator>();
const MADE_AGAIN_KEPT = 16;

/**
 * The caller's allocator made again here, so its questions are answered inside the open
 * transaction with no message back; its value meets the recipe's byte limit, as the caller's
 * own would check it (src/core/provisioning/record-ledger.ts).
 */
function fromRecipe(key: number, recipe: AllocatorRecipe): PsdiAllocator {
  let allocator = madeAgain.get(key);
  if (!allocator) {
    allocator = createPsdiAllocator(recipe.strategy, recipe.maxBytes);
    madeAgain.set(key, allocator);
    if (madeAgain.size > MADE_AGAIN_KEPT) madeAgain.delete(madeAgain.keys().next().value as number);
  }
  const made = allocator;
  return {
    allocate: async (context) => {
      const psdi = await made.allocate(context);
      checkPsdi(psdi, recipe.maxBytes);
      return psdi;
    },
  };
}

/** A reservation's PSDI as the store takes it, from what the request carried. */
function psdiOf(
  request: Request,
  psdi: MethodInput<'worker', 'reserve'>['psdi'],
): ReserveInput['psdi'] {
  if (typeof psdi === 'string') return psdi;
  return 'recipe' in psdi ? fromRecipe(psdi.key, psdi.recipe) : callerAllocator(request.id);
}

/**
 * Reservations waiting together, committed together (SqliteAuditStore.reserveTogether); each
 * caller hears its own outcome once the one commit is on disk.
 */
async function reserveTogether(requests: Request[]): Promise<void> {
  const batch: { request: Request; input: ReserveInput; at?: number }[] = [];
  for (const request of requests) {
    try {
      const { input, psdi } = parseRequest(request).input as MethodInput<'worker', 'reserve'>;
      batch.push({ request, input: { ...input, psdi: psdiOf(request, psdi) }, at: request.at });
    } catch (err) {
      send({ type: 'response', id: request.id, ok: false, error: serializeError(err) });
    }
  }
  if (!batch.length) return;
  try {
    const outcomes = await store.reserveTogether(batch);
    outcomes.forEach((outcome, i) => {
      const id = (batch[i] as (typeof batch)[number]).request.id;
      send(
        outcome.status === 'fulfilled'
          ? { type: 'response', id, ok: true, value: outcome.value }
          : { type: 'response', id, ok: false, error: serializeError(outcome.reason) },
      );
    });
  } catch (err) {
    for (const { request } of batch)
      send({ type: 'response', id: request.id, ok: false, error: serializeError(err) });
  }
}

/** Each of STORE_CALLS: the store's method, given the arguments it was sent. */
function callStore<M extends StoreCall>(name: M, args: StoreCallArgs<M>): Promise<unknown> {
  // The table types each method by its arguments (store.ts), and the request was parsed with it.
  const method = store[name] as (...args: StoreCallArgs<M>) => Promise<unknown>;
  return method.apply(store, args);
}

/** The worker's own methods but `reserve`, which the queue hands to reserveTogether. */
const workerHandlers: Omit<MethodHandlers<'worker'>, 'reserve'> = {
  peekPsdi: ({ productId }) => store.peekPsdi(productId, callerAllocator(current)),
  exportChunk: async ({ query, after }) => csvPage(await store.exportRecords(query, after)),
  // The caller ends the thread once this answers.
  close: () => store.close(),
};

const runLog = async () => (runs ??= await store.scenarioRuns());
const runHandlers: MethodHandlers<'runs'> = {
  start: async ({ run }) => (await runLog()).start(run),
  append: async ({ id, events }) => (await runLog()).append(id, events),
  finish: async ({ id, reason }) => (await runLog()).finish(id, reason),
  get: async ({ id }) => (await runLog()).get(id),
  read: async ({ id }) => (await runLog()).read(id),
  list: async ({ query }) => (await runLog()).list(query),
  close: async () => (await runLog()).close(),
};

function contextHandlers(reservation: number | undefined): MethodHandlers<'context'> {
  const context = reservation === undefined ? undefined : contexts.get(reservation);
  const open = () => {
    if (!context) throw new Error(`reservation ${reservation} is not allocating`);
    return context;
  };
  return {
    wasRecorded: ({ psdi }) => open().wasRecorded(psdi),
    takeNumber: ({ key, start }) => open().takeNumber(key, start),
    firstFree: ({ values }) => open().firstFree(values),
    returned: () => open().returned(),
  };
}

async function run(request: Request): Promise<void> {
  try {
    const parsed = parseRequest(request);
    const handlers: Record<
      Exclude<Target, 'store'>,
      Record<string, (input: unknown) => Promise<unknown>>
    > = {
      worker: workerHandlers as never,
      runs: runHandlers as never,
      context: contextHandlers(request.reservation) as never,
    };
    const value =
      request.target === 'store'
        ? await callStore(parsed.method as StoreCall, parsed.input as StoreCallArgs<StoreCall>)
        : await handlers[request.target][parsed.method]!(parsed.input);
    send({ type: 'response', id: request.id, ok: true, value });
  } catch (err) {
    send({ type: 'response', id: request.id, ok: false, error: serializeError(err) });
  }
}

/**
 * The one queue: requests run one at a time in arrival order, except that reservations waiting
 * next to each other run as one batch with one commit.
 */
const queue: Request[] = [];
let draining = false;
const isReserve = (request: Request | undefined) =>
  request?.target === 'worker' && request.method === 'reserve';

/** Lets messages that arrived while this thread was busy (a commit's fsync) join the queue. */
const received = () => new Promise((resolve) => setImmediate(resolve));

async function drain(): Promise<void> {
  draining = true;
  for (let request = queue.shift(); request; await received(), request = queue.shift()) {
    if (isReserve(request)) {
      const together = [request];
      while (isReserve(queue[0])) together.push(queue.shift() as Request);
      await reserveTogether(together);
      continue;
    }
    current = request.id;
    requestAt = request.at;
    await run(request);
  }
  draining = false;
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'allocated') {
    waiting.get(message.reservation)?.(message.psdi);
    waiting.delete(message.reservation);
    return;
  }
  if (message.target === 'context') {
    void run(message);
    return;
  }
  queue.push(message);
  if (!draining) void drain();
});
send({ type: 'ready' });
