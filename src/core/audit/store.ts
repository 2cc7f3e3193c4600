// The audit log of provisioning as every caller sees it: one contract, two engines. SQLite in
// the app's data folder is the default for one bench; PostgreSQL is the shared log of a line of
// stations (docs/decisions.md, "Production line"). Both keep the same guarantees: a reservation
// is committed before the radio acts on it, and a PSDI is held by at most one record per product.
import { hostname } from 'node:os';
import { z } from 'zod';
import { method, type MethodTable } from '../rpc/method-table';
import {
  recordIdSchema,
  type AuditPage,
  type AuditQuery,
  type LineStatus,
  type ProvisioningRecord,
  type ProvisioningState,
  type ProvisioningStep,
  type RecordEvent,
} from './records';
import type { CsvChunk } from './csv-export';
import type { ScenarioRunLog } from './scenario-runs';
import type { PsdiStrategy } from './psdi-strategy';

/** What an allocator may ask while it picks a PSDI for one reservation. */
export interface AllocationContext {
  readonly productId: string;
  /** Appears on any record of this product, held or not. */
  wasRecorded(psdi: string): Promise<boolean>;
  /**
   * The next number of a per-product series (at least `start`): no two calls, at any station,
   * ever get the same number; a number whose reservation fails is skipped, not reissued.
   */
  takeNumber(key: string, start: number): Promise<number>;
  /** The first of `values` no live record of the product holds, in list order. */
  firstFree(values: readonly string[]): Promise<string | undefined>;
  /**
   * PSDIs given back to the pool (psdiReturned) that no other record has used since, oldest
   * first: what a sequence hands out again before taking a new number.
   */
  returned(): Promise<string[]>;
}

/**
 * Picks a PSDI. The store re-runs it when another station took the same value first, so an
 * allocator only has to pick what looks free.
 */
export interface PsdiAllocator {
  allocate(context: AllocationContext): Promise<string>;
  /**
   * What the allocator was made from, when that is data alone (createPsdiAllocator's): the
   * SQLite log's worker makes the same allocator again and runs it inside the reservation, so a
   * reservation is one message to the worker, not one per question (docs/decisions.md,
   * "Reservations fast again").
   */
  readonly recipe?: AllocatorRecipe;
}

/** A PSDI strategy and the byte limit its values are checked against. */
export interface AllocatorRecipe {
  strategy: PsdiStrategy;
  maxBytes: number;
}

export interface ReserveInput {
  product: {
    id: string;
    name: string;
    serviceUuid: string;
    psdiServiceUuid: string;
    psdiCharacteristicUuid: string;
  };
  board: { id: string; address: string; name?: string; adapter?: string };
  profileId: string;
  psdiSource: 'tool' | 'device';
  /** The SHA-256 (hex) of the image flashed to the board before provisioning, if any. */
  imageHash?: string;
  /** A PSDI the board reported (device source) or an allocator that picks one. */
  psdi: string | PsdiAllocator;
}

export interface FailureInput {
  step: ProvisioningStep;
  error: string;
  /** Whether the board may carry the PSDI (the commit was sent); false frees it for reuse. */
  psdiHeld: boolean;
  attempts?: number;
  /**
   * Nothing reached the board (a refusal before any write): the PSDI goes back to the pool.
   * Implies psdiHeld false.
   */
  returnPsdi?: boolean;
  /** The run's history, replacing the record's. */
  history?: RecordEvent[];
}

/** Who gave a held PSDI back from the audit log. */
export interface ReleaseInput {
  reason: string;
  /** The person (the OS user of the station). */
  by: string;
}

/** What an export filters on: a search without its paging. */
export type ExportQuery = Omit<AuditQuery, 'after' | 'limit'>;

export interface CopyResult {
  /** Records now in this log that were not before. */
  copied: number;
  /** Records this log already had from the same source (an earlier copy). */
  alreadyCopied: number;
  /** Records refused: their PSDI is held here by another live record. */
  refused: { id: number; reason: string }[];
}

const typed = <T>() => z.custom<T>();
const attempts = z.number().int().min(0).optional();
const record = typed<ProvisioningRecord>();

/**
 * A change of a record's state after its reservation: the states it may start from and what
 * else it asks of the record, one rule for both engines (transitions.ts applies it). SQLite
 * checks it under its write lock before it writes; PostgreSQL makes it the UPDATE's condition.
 */
export interface Transition {
  readonly to: ProvisioningState;
  readonly from: readonly ProvisioningState[];
  /** Why a record in any other state may not make the change, where its state does not say it. */
  readonly wrongState?: string;
  /** Set when the change needs a record that holds its PSDI: why one that does not may not. */
  readonly needsPsdi?: string;
}

/** Verified and released are final: the board carries the PSDI, or the PSDI was given back. */
const NOT_FINAL = ['reserved', 'written', 'failed'] as const;

/** A method that changes a record's state: a method table entry with its rule beside it. */
function change<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  output: O,
  transition: Transition,
) {
  return { ...method(input, output), transition };
}

/** What recordRefused takes: a device-source board's reservation and why it failed. */
type RefusedInput = ReserveInput & { psdi: string } & Omit<FailureInput, 'psdiHeld'>;

/**
 * The store's methods that take data and answer data, each one entry of a method table
 * (src/core/rpc/method-table.ts) whose input is the method's arguments: AuditStore is built
 * from it, and the SQLite worker carries every entry by name (sqlite-worker-protocol.ts), so a
 * method added here needs only its two engines beside it. A method that changes a record's
 * state declares its Transition here too, read by both engines (docs/decisions/audit-log.md,
 * "What the two audit engines share").
 */
export const STORE_CALLS = {
  /** A device-source board whose PSDI another record already holds: logged, never held. */
  recordRefused: method(z.tuple([typed<RefusedInput>()]), record),
  /**
   * The board acknowledged the commit. Also the way back in for a reconciled record, as long
   * as it still holds its PSDI.
   */
  markWritten: change(z.tuple([recordIdSchema, attempts]), record, {
    to: 'written',
    from: NOT_FINAL,
    needsPsdi: 'it no longer holds its PSDI',
  }),
  /** The PSDI was read back from the board in product mode and matched. */
  markVerified: change(
    z.tuple([recordIdSchema, attempts, typed<RecordEvent[]>().optional()]),
    record,
    {
      to: 'verified',
      from: ['written'],
    },
  ),
  /** A failure is final for the run; `psdiHeld` can only drop (a freed PSDI may be someone's). */
  markFailed: change(z.tuple([recordIdSchema, typed<FailureInput>()]), record, {
    to: 'failed',
    from: NOT_FINAL,
  }),
  /**
   * Gives the PSDI back; never for a verified record (the board carries it). `returnPsdi` marks
   * it psdiReturned, so a sequence hands it out again (nothing reached the board).
   */
  release: change(
    z.tuple([
      recordIdSchema,
      z.string(),
      z.object({ returnPsdi: z.boolean().optional() }).optional(),
    ]),
    record,
    { to: 'released', from: NOT_FINAL },
  ),
  /**
   * An operator gives back the PSDI a failed record holds: released, the PSDI returned to the
   * pool, and a history entry naming who, when and at which station.
   */
  releaseHeld: change(z.tuple([recordIdSchema, typed<ReleaseInput>()]), record, {
    to: 'released',
    from: ['failed'],
    wrongState: `only a failed record's PSDI can be released here`,
    needsPsdi: 'it holds no PSDI',
  }),
  get: method(z.tuple([z.number()]), typed<ProvisioningRecord | undefined>()),
  /**
   * What reconcile works on, oldest first, at every station: records a crash or kill left
   * between reserve and verify, and failures that may have reached the board (PSDI still held).
   */
  listUnfinished: method(z.tuple([]), typed<ProvisioningRecord[]>()),
  /** The PSDI a board was verified with for a product, newest first (an indexed lookup). */
  verifiedPsdi: method(z.tuple([z.string(), z.string()]), z.string().optional()),
  /**
   * Newest first, a page at a time (keyset: `after` is the page before's `next`), counted up to
   * AUDIT_COUNT_CAP; every filter optional; bad input throws a ZodError naming the field.
   */
  search: method(z.tuple([typed<AuditQuery>().optional()]), typed<AuditPage>()),
  /** Stations, their throughput over the hour before `now`, failures and unfinished records. */
  lineStatus: method(z.tuple([]), typed<LineStatus>()),
  /** Every record of this log, oldest first, `batch` at a time: what a copy reads. */
  records: method(
    z.tuple([z.number().int(), z.number().int().min(1)]),
    typed<ProvisioningRecord[]>(),
  ),
  /**
   * Copies records from another log once: a record carries its source's id (`sourceId`), so
   * copying again adds nothing.
   */
  copyFrom: method(
    z.tuple([z.string(), typed<readonly ProvisioningRecord[]>()]),
    typed<CopyResult>(),
  ),
  /** This log's own id, stable across opens: what a copy made from it is keyed on. */
  sourceId: method(z.tuple([]), z.string()),
  /** Resolves once the database answers; throws StoreUnavailableError otherwise. */
  ping: method(z.tuple([]), z.void()),
} satisfies MethodTable;

export type StoreCall = keyof typeof STORE_CALLS;
export type StoreCallArgs<M extends StoreCall> = z.input<(typeof STORE_CALLS)[M]['input']>;
type StoreCallResult<M extends StoreCall> = z.output<(typeof STORE_CALLS)[M]['output']>;
/** STORE_CALLS as methods. */
export type StoreCalls = {
  [M in StoreCall]: (...args: StoreCallArgs<M>) => Promise<StoreCallResult<M>>;
};

/**
 * STORE_CALLS and the methods that carry more than data: an allocator that runs on the
 * caller's side, a stream, the dry-run log beside the records.
 */
export interface AuditStore extends StoreCalls {
  readonly engine: 'sqlite' | 'postgres';
  /** Recorded on each record this store writes. */
  readonly station: string;
  /** Where the log lives, for people: a file, or the URL without its password. */
  readonly location: string;

  /**
   * Takes a PSDI for a board: the allocator picks it, the store refuses one another live
   * record of the product holds, and the record is committed before this resolves.
   */
  reserve(input: ReserveInput): Promise<ProvisioningRecord>;
  /** What the allocator would hand out next for the product, taking nothing. */
  peekPsdi(productId: string, allocator: PsdiAllocator): Promise<string>;
  /**
   * Every record the filter matches (paging ignored), oldest first, as CSV with a header: a
   * stream of chunks of EXPORT_CHUNK_ROWS records, each read when the consumer asks for it.
   * Bad input throws a ZodError naming the field at once.
   */
  exportCsv(query?: ExportQuery): AsyncIterable<CsvChunk>;
  /** Dry runs, kept beside the records in the same database. */
  scenarioRuns(): Promise<ScenarioRunLog>;
  close(): Promise<void>;
}

/** The station name a store records: the one given, else the host name. */
export function stationName(given?: string): string {
  return given?.trim() || hostname();
}

export type { ProvisioningRecord };
