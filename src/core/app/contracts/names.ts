// Names and value formats the user gives UUIDs, per trial product or for the bench's own boards
// (docs/decisions.md, "Names and value formats").
import { z } from 'zod';
import { uuidSchema } from '../../ble/port';
import { valueFormatSchema } from '../../ble/values/value-format';
import { nameMapSchema } from '../../usecases/bench/name-map';
import { op } from './op';

/**
 * Whose names and formats: a trial product's ID, or `bench` for boards of no product.
 * See docs/decisions.md "Names and value formats".
 */
const nameScope = z
  .string()
  .trim()
  .regex(/^(?:bench|[0-9A-Za-z_-]{1,64})$/, 'must be a trial product ID or "bench"');

export const namesOperations = {
  'names:get': op(z.object({ scope: nameScope }), nameMapSchema),
  /** An empty name removes the user's name, so the board file's or the SIG's shows again. */
  'names:setName': op(
    z.object({
      scope: nameScope,
      uuid: uuidSchema,
      name: z.string().trim().max(60, 'name must be at most 60 characters'),
    }),
    nameMapSchema,
  ),
  /** `format` null forgets the choice. */
  'names:setFormat': op(
    z.object({ scope: nameScope, uuid: uuidSchema, format: valueFormatSchema.nullable() }),
    nameMapSchema,
  ),
} as const;
