// The scenario result: what the platform's scenario result event carries for one run of one
// scenario (docs/platform-api.md#things-scenario-results). The dry-run engine produces it, the
// emulator delivers it, the audit log keeps it. Browser-safe: zod only.
import { z } from 'zod';

const RESULT_CODES = [
  'SUCCESS',
  /** The board answered an ATT error, or has no such service or characteristic. */
  'GATT_ERROR',
  /** The link dropped, or the board stopped answering, while the scenario ran. */
  'BLE_CONNECTION_ERROR',
  /** Anything else the client could not do (a bug, an unusable action). */
  'RUNTIME_ERROR',
] as const;
export type ResultCode = (typeof RESULT_CODES)[number];

const actionResultSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('void') }),
  /** A GATT_READ: the bytes read, base64. */
  z.object({ type: z.literal('binary'), data: z.string() }),
]);
export type ActionResult = z.infer<typeof actionResultSchema>;

export const scenarioResultSchema = z.object({
  scenarioId: z.string(),
  /** The set's revision; 0 for an editor draft that was never saved. */
  revision: z.number().int(),
  /** ms since the epoch. */
  startTime: z.number(),
  endTime: z.number(),
  resultCode: z.enum(RESULT_CODES),
  /** One per action that completed, in order; all of them when `resultCode` is SUCCESS. */
  actionResults: z.array(actionResultSchema),
  /** base64 of the notification that triggered a BLE_NOTIFICATION scenario. */
  bleNotificationPayload: z.string().optional(),
  errorReason: z.string().optional(),
});
export type ScenarioResult = z.infer<typeof scenarioResultSchema>;
