// The simulated bench's boards: loading board files, their faults, their button and a factory
// reset, and every board after a change made through the contract.
import { z } from 'zod';
import { uuidSchema } from '../../ble/port';
import { requiredId as id } from '../../bounds';
import { namedFileText } from './fields';
import { none, op } from './op';

/** The board answers reads or writes of a characteristic (any, if none) with this ATT error. */
const refuseAccessSchema = z.object({
  characteristic: uuidSchema.optional(),
  operation: z.enum(['read', 'write']),
  code: z
    .number()
    .int('must be a whole number')
    .min(0x01, 'must be an ATT error code, 0x01 to 0xff')
    .max(0xff, 'must be an ATT error code, 0x01 to 0xff'),
});

const simBoardSchema = z.object({
  id: z.string(),
  address: z.string(),
  name: z.string(),
  source: z.string(),
  connected: z.boolean(),
  advertising: z.object({ serviceUuids: z.array(z.string()), intervalMs: z.number() }),
  provisioned: z
    .object({
      serviceUuid: z.string(),
      psdiServiceUuid: z.string(),
      psdiCharacteristicUuid: z.string(),
      psdi: z.string(),
    })
    .optional(),
  profileId: z.string().optional(),
  hasButton: z.boolean(),
  /**
   * The characteristics of its GATT table (dashed UUIDs) with the board file's names, so a
   * fault is put on a characteristic chosen by name.
   */
  characteristics: z.array(z.object({ uuid: z.string(), name: z.string().optional() })),
  faults: z.object({
    refuseConnection: z.boolean(),
    dropLinkDuringWrite: z.boolean(),
    /** Matching writes let through before the one the link drops during. */
    dropLinkAfterWrites: z.number(),
    /** The characteristic whose write drops the link; any write when absent. */
    dropLinkCharacteristic: z.string().optional(),
    slowLinkFactor: z.number(),
    refusePairing: z.boolean(),
    /** The board erased its bonds (a flash erase): a bonded station meets PIN or Key Missing. */
    forgetBonds: z.boolean(),
    refuseAccess: refuseAccessSchema.optional(),
  }),
});
export type SimBoard = z.infer<typeof simBoardSchema>;

export const simOperations = {
  'sim:listBoards': op(none, z.array(simBoardSchema)),
  'sim:listBoardFiles': op(
    none,
    z.array(z.object({ name: z.string(), description: z.string().optional() })),
  ),
  'sim:loadBuiltIn': op(z.object({ name: id }), z.array(simBoardSchema)),
  'sim:loadBoards': op(namedFileText, z.array(simBoardSchema)),
  'sim:removeBoard': op(z.object({ boardId: id }), z.object({ removed: z.literal(true) })),
  'sim:pressButton': op(z.object({ boardId: id }), z.object({ pressed: z.literal(true) })),
  'sim:setFaults': op(
    z.object({
      boardId: id,
      refuseConnection: z.boolean().optional(),
      dropLinkDuringWrite: z.boolean().optional(),
      dropLinkAfterWrites: z
        .number()
        .int('must be a whole number')
        .min(0, 'must be 0 or more')
        .max(1000, 'must be at most 1000')
        .optional(),
      /** null: any characteristic's write. */
      dropLinkCharacteristic: uuidSchema.nullable().optional(),
      slowLinkFactor: z.number().min(1, 'must be at least 1').max(100).optional(),
      refusePairing: z.boolean().optional(),
      forgetBonds: z.boolean().optional(),
      /** null clears it. */
      refuseAccess: refuseAccessSchema.nullable().optional(),
    }),
    simBoardSchema,
  ),
  'sim:factoryReset': op(z.object({ boardId: id }), simBoardSchema),
} as const;

export const simEvents = {
  /** Every simulated board after a change made through the contract (faults, loads, resets). */
  'sim:boards': z.array(simBoardSchema),
} as const;
