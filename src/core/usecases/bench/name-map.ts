// The names and value formats the user gives UUIDs in one scope, as the name store keeps them
// and the contract carries them (docs/decisions.md, "Names and value formats"). No Node import:
// the contract, and through it the renderer, reads it.
import { z } from 'zod';
import { valueFormatSchema } from '../../ble/values/value-format';

export const nameMapSchema = z.object({
  /** Full 128-bit UUID (lowercase, no dashes) → the user's name for it. */
  names: z.record(z.string(), z.string()),
  /** Full 128-bit UUID → how its value reads. */
  formats: z.record(z.string(), valueFormatSchema),
});
export type NameMap = z.output<typeof nameMapSchema>;
