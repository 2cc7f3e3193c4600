// What a dry run produces, shared by the engine, the audit log, the contract and the timeline:
// the scenario result (shaped like the platform's scenario result event, docs/decisions.md),
// the timeline events, and the findings of validation and board lint. Browser-safe: zod only.
import { z } from 'zod';
import { actionTypeSchema, TRIGGER_TYPES } from '../platform/things/schema';
import { scenarioResultSchema } from '../platform/things/scenario-result';
import { linkSecuritySchema } from '../ble/link-parameters';

/** A scenario set ready to run: what the platform holds (or the editor's draft, ids filled in). */
export const runnableSetSchema = z.object({
  autoClose: z.boolean(),
  suppressionInterval: z.number().int().nonnegative(),
  revision: z.number().int().nonnegative(),
  scenarios: z.array(
    z.object({
      id: z.string(),
      trigger: z.object({
        type: z.enum(TRIGGER_TYPES),
        serviceUuid: z.string().optional(),
        characteristicUuid: z.string().optional(),
      }),
      actions: z.array(
        z.object({
          type: actionTypeSchema,
          sleepMillis: z.number().optional(),
          serviceUuid: z.string().optional(),
          characteristicUuid: z.string().optional(),
          data: z.string().optional(),
        }),
      ),
    }),
  ),
});
export type RunnableSet = z.infer<typeof runnableSetSchema>;

/** Why a run ended. */
export const STOP_REASONS = ['operator', 'cycles', 'duration', 'error'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

const at = z.number();
const run = z.number().int().positive();

/**
 * Every step of a dry run, in the order it happened. Times are ms since the epoch. `run`
 * numbers the scenario runs of one dry run from 1; `scenario` is the index in the set.
 */
export const timelineEventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('connecting'), at, cycle: z.number().int().positive() }),
  z.object({
    kind: z.literal('connected'),
    at,
    mtu: z.number().int(),
    /** The adapter the link went through (spec text), where the central names one. */
    adapter: z.string().optional(),
    /** False on `native`: the link's write results are not the board's answer. */
    writesConfirmed: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('connect-failed'), at, error: z.string() }),
  z.object({
    kind: z.literal('notification'),
    at,
    serviceUuid: z.string(),
    characteristicUuid: z.string(),
    data: z.string(),
  }),
  z.object({
    kind: z.literal('scenario-start'),
    at,
    run,
    scenario: z.number().int(),
    scenarioId: z.string(),
    trigger: z.enum(TRIGGER_TYPES),
  }),
  z.object({
    kind: z.literal('action-start'),
    at,
    run,
    scenario: z.number().int(),
    action: z.number().int(),
    type: actionTypeSchema,
  }),
  z.object({
    kind: z.literal('action'),
    run,
    scenario: z.number().int(),
    action: z.number().int(),
    type: actionTypeSchema,
    startedAt: at,
    endedAt: at,
    serviceUuid: z.string().optional(),
    characteristicUuid: z.string().optional(),
    sleepMillis: z.number().optional(),
    /** base64: what was written, or what was read. */
    data: z.string().optional(),
    error: z.string().optional(),
    /**
     * A GATT_WRITE that resolved: true when the board's answer reached DeviceBench, false on an
     * adapter that reports success whatever the board said ("not confirmed by the board").
     */
    writeConfirmed: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal('scenario-end'),
    at,
    run,
    scenario: z.number().int(),
    result: scenarioResultSchema,
  }),
  /** A scenario run the stop interrupted: it has no result, as the platform's client sends none. */
  z.object({ kind: z.literal('scenario-cancelled'), at, run, scenario: z.number().int() }),
  /** A scenario that was queued when autoClose ended the connection: it never ran. */
  z.object({ kind: z.literal('scenario-dropped'), at, scenario: z.number().int() }),
  z.object({
    kind: z.literal('disconnected'),
    at,
    by: z.enum(['autoClose', 'link', 'stop']),
    reason: z.string(),
  }),
  z.object({
    kind: z.literal('waiting'),
    at,
    until: at,
    why: z.enum(['suppressionInterval', 'reconnect']),
  }),
  z.object({ kind: z.literal('error'), at, message: z.string() }),
  /** A pairing as a phone does (`pairAsPhone`): the method and the key it gave. */
  z.object({ kind: z.literal('paired'), at, startedAt: at, security: linkSecuritySchema }),
  /** A pairing that failed, in words (the SMP reason and what to do); the link is then ended. */
  z.object({ kind: z.literal('pairing-failed'), at, startedAt: at, error: z.string() }),
  /** The link's Encryption Change: by this run's pairing, or already (a bond, the board's ask). */
  z.object({ kind: z.literal('encrypted'), at, security: linkSecuritySchema }),
  z.object({
    kind: z.literal('stopped'),
    at,
    reason: z.enum(STOP_REASONS),
    /** The run length asked for, when the run stopped because it was reached. */
    durationMs: z.number().optional(),
  }),
]);
export type TimelineEvent = z.infer<typeof timelineEventSchema>;

/** A problem found before upload: `error` blocks Save, `warning` is for the engineer to weigh. */
export interface Finding {
  /** Field path in the set, e.g. `scenarios[0].actions[1].characteristicUuid`. */
  field: string;
  message: string;
  severity: 'error' | 'warning';
  /** Which rule fired (docs/decisions.md, "Scenario sets"). */
  rule: string;
}

/** One dry run as the audit log keeps it. */
export const scenarioRunSummarySchema = z.object({
  id: z.number().int(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  productId: z.string(),
  productName: z.string(),
  /** The board, as BleCentral connects to it, and its advertised name. */
  deviceId: z.string(),
  boardName: z.string(),
  /** The station's adapter list the run went through, as spec text (`sim`, `sim,hci0`). */
  bench: z.string(),
  setSource: z.enum(['saved', 'draft']),
  revision: z.number().int(),
  station: z.string(),
  /** `interrupted`: the app ended while it ran. */
  status: z.enum(['running', 'finished', 'interrupted']),
  stopReason: z.enum(STOP_REASONS).nullable(),
  results: z.number().int(),
  /** Results whose code is not SUCCESS. */
  failures: z.number().int(),
});
export type ScenarioRunSummary = z.infer<typeof scenarioRunSummarySchema>;

export const runListQuerySchema = z.object({
  productId: z.string().min(1).optional(),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(200).default(20),
});
