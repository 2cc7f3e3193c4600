// Messages between a thread that uses the SQLite audit log and the worker thread that holds it
// (sqlite-worker.ts). The caller asks (`request`), the worker answers once (`response`); while
// a reservation or a preview runs, the worker asks the caller's allocator for a PSDI
// (`allocate`) and the allocator asks back through its context (`context`), inside the open
// transaction. Every method is one entry of a method table (src/core/rpc/method-table.ts), as
// in the BLE process's protocol; the store's own (`store`) are its STORE_CALLS, their input the
// method's arguments, so the protocol never lists them again. Values cross by structured clone.
import { z, ZodError } from 'zod';
import {
  method,
  parseRequest as parseTableRequest,
  type MethodSpec,
  type MethodTable,
} from '../rpc/method-table';
import {
  BoardBusyError,
  InvalidTransitionError,
  PsdiTakenError,
  RecordNotFoundError,
  StoreUnavailableError,
} from './errors';
import type { CsvPage, ExportCursor } from './csv-export';
import type { ProvisioningRecord } from './records';
import { STORE_CALLS, type AllocatorRecipe, type ExportQuery, type ReserveInput } from './store';
import { PsdiError } from './psdi';
import type { NewRun, RunList, RunRead } from './scenario-runs';
import type { ScenarioRunSummary, StopReason, TimelineEvent } from '../scenario/schema';
import type { runListQuerySchema } from '../scenario/schema';

const text = z.string();
const nothing = z.void();
/**
 * Built by the store's typed callers and checked by the store itself (its query schemas and
 * constraints): declared here for the types, not checked twice.
 */
const typed = <T>() => z.custom<T>();
/**
 * A reservation's PSDI: the value; an allocator's recipe, made again and run here under the
 * same `key` each time (docs/decisions.md, "Reservations fast again"); or "ask my allocator",
 * which stays on the caller's thread.
 */
const psdiChoice = z.union([
  z.string(),
  z.object({ recipe: typed<AllocatorRecipe>(), key: z.number().int() }),
  z.object({ allocator: z.literal(true) }),
]);

/**
 * The AuditStore methods that carry more than data, as the worker runs them: a reservation or a
 * preview whose allocator may stay on the caller's thread, an export chunk by chunk, and the
 * end of the thread. Every other store method is an entry of STORE_CALLS (store.ts).
 */
const workerMethods = {
  reserve: method(
    z.object({ input: typed<Omit<ReserveInput, 'psdi'>>(), psdi: psdiChoice }),
    typed<ProvisioningRecord>(),
  ),
  peekPsdi: method(z.object({ productId: text }), z.string()),
  /** One chunk of an export, as CSV text: the worker formats it, the caller only writes it. */
  exportChunk: method(
    z.object({ query: typed<ExportQuery>(), after: typed<ExportCursor | undefined>() }),
    typed<CsvPage>(),
  ),
  close: method(z.object({}), nothing),
} satisfies MethodTable;

/** The dry-run log in the same file (ScenarioRunLog). */
const runMethods = {
  start: method(z.object({ run: typed<NewRun>() }), typed<ScenarioRunSummary>()),
  append: method(z.object({ id: z.number(), events: typed<readonly TimelineEvent[]>() }), nothing),
  finish: method(
    z.object({ id: z.number(), reason: typed<StopReason>() }),
    typed<ScenarioRunSummary>(),
  ),
  get: method(z.object({ id: z.number() }), typed<ScenarioRunSummary | undefined>()),
  read: method(z.object({ id: z.number() }), typed<RunRead | undefined>()),
  list: method(
    z.object({ query: typed<z.input<typeof runListQuerySchema> | undefined>() }),
    typed<RunList>(),
  ),
  close: method(z.object({}), nothing),
} satisfies MethodTable;

/** What the allocator's context offers the worker's open reservation (AllocationContext). */
const contextMethods = {
  wasRecorded: method(z.object({ psdi: text }), z.boolean()),
  takeNumber: method(z.object({ key: text, start: z.number() }), z.number()),
  firstFree: method(z.object({ values: z.array(text) }), z.string().optional()),
  returned: method(z.object({}), z.array(z.string())),
} satisfies MethodTable;

const TABLES = {
  store: STORE_CALLS,
  worker: workerMethods,
  runs: runMethods,
  context: contextMethods,
} as const;
export type Target = keyof typeof TABLES;
type Tables = typeof TABLES;

export type MethodName<T extends Target> = keyof Tables[T] & string;
export type MethodInput<T extends Target, M extends MethodName<T>> = z.input<
  Tables[T][M] extends MethodSpec ? Tables[T][M]['input'] : never
>;
export type MethodOutput<T extends Target, M extends MethodName<T>> = z.output<
  Tables[T][M] extends MethodSpec ? Tables[T][M]['output'] : never
>;
/** What the worker implements: each method gets its parsed input. */
export type MethodHandlers<T extends Target> = {
  [M in MethodName<T>]: (input: MethodInput<T, M>) => Promise<MethodOutput<T, M>>;
};

export const workerConfigSchema = z.object({
  file: z.string().min(1),
  station: z.string(),
  /** The caller's clock stands in for the worker's: each request carries its time (`at`). */
  callerClock: z.boolean(),
  /** Turns at writing the file, shared with the process's other workers on it. */
  turns: z
    .object({ buffer: z.instanceof(SharedArrayBuffer), owner: z.number().int().positive() })
    .optional(),
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;

/**
 * `context` requests belong to an open reservation (`reservation` = its request id) and are
 * answered at once; every other request waits its turn.
 */
export interface Request {
  type: 'request';
  id: number;
  target: Target;
  method: string;
  input: unknown;
  at?: number;
  reservation?: number;
}

/** The caller's allocator has picked (or failed: the caller keeps its error to rethrow). */
interface Allocated {
  type: 'allocated';
  reservation: number;
  psdi?: string;
}

export type ToWorker = Request | Allocated;

type Response =
  | { type: 'response'; id: number; ok: true; value: unknown }
  | { type: 'response'; id: number; ok: false; error: SerializedError };

export type FromWorker =
  | Response
  | { type: 'allocate'; reservation: number }
  | { type: 'ready' }
  | { type: 'failed'; error: SerializedError };

/** A request refused before it ran: an unknown method or a bad input. */
class WorkerProtocolError extends Error {
  override name = 'WorkerProtocolError';
}

/** The request's method and parsed input, or a WorkerProtocolError naming both. */
export function parseRequest(request: Pick<Request, 'target' | 'method' | 'input'>): {
  method: string;
  input: unknown;
} {
  return parseTableRequest(TABLES, request, (message) => new WorkerProtocolError(message));
}

/**
 * The store's typed refusals, field by field, so the caller gets the same class back: the
 * workflow and the batch tell "taken" from "busy" from "unreachable" with instanceof.
 */
const errorFields = {
  PsdiTakenError: z.object({
    productId: z.string(),
    psdi: z.string(),
    heldBy: z.number().optional(),
  }),
  BoardBusyError: z.object({
    productId: z.string(),
    boardAddress: z.string(),
    recordId: z.number(),
    psdi: z.string(),
  }),
  RecordNotFoundError: z.object({ recordId: z.number() }),
  InvalidTransitionError: z.object({ recordId: z.number(), from: z.string(), to: z.string() }),
  StoreUnavailableError: z.object({ location: z.string() }),
  /** A recipe's allocator that ran out of values or made one too long. */
  PsdiError: z.object({ field: z.string().optional() }),
  ZodError: z.object({ issues: typed<z.core.$ZodIssue[]>() }),
} satisfies Record<string, z.ZodType>;
type KnownError = keyof typeof errorFields;

const revive: {
  [K in KnownError]: (f: z.output<(typeof errorFields)[K]>, message: string) => Error;
} = {
  PsdiTakenError: (f) => new PsdiTakenError(f.productId, f.psdi, f.heldBy),
  BoardBusyError: (f) => new BoardBusyError(f.productId, f.boardAddress, f.recordId, f.psdi),
  RecordNotFoundError: (f) => new RecordNotFoundError(f.recordId),
  InvalidTransitionError: (f) => new InvalidTransitionError(f.recordId, f.from, f.to),
  StoreUnavailableError: (f, message) => new StoreUnavailableError(f.location, message),
  PsdiError: (f, message) => new PsdiError(message, f.field),
  ZodError: (f) => new ZodError(f.issues),
};

export interface SerializedError {
  name: string;
  message: string;
  /** better-sqlite3's error code (SQLITE_BUSY, …), kept for whoever reads it. */
  code?: string;
  fields?: Record<string, unknown>;
}

export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const name = err instanceof ZodError ? 'ZodError' : err.name;
  const code = (err as { code?: unknown }).code;
  return {
    name,
    message: err.message,
    code: typeof code === 'string' ? code : undefined,
    fields:
      err instanceof ZodError
        ? { issues: err.issues }
        : Object.hasOwn(errorFields, name)
          ? { ...err }
          : undefined,
  };
}

/** The same class as was thrown in the worker, with its fields and its message. */
export function reviveError(serialized: SerializedError): Error {
  const name = serialized.name as KnownError;
  if (Object.hasOwn(errorFields, name)) {
    const fields = errorFields[name].safeParse(serialized.fields);
    if (fields.success) {
      const err = (revive[name] as (f: unknown, message: string) => Error)(
        fields.data,
        serialized.message,
      );
      // The original text, whatever detail its constructor added (a transition's reason).
      if (name !== 'ZodError') err.message = serialized.message;
      return err;
    }
  }
  const err = new Error(serialized.message);
  err.name = serialized.name;
  if (serialized.code !== undefined) Object.assign(err, { code: serialized.code });
  return err;
}
