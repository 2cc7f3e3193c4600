// How PSDIs are picked, as data: a prefixed sequence, random strings, or a list. Data alone, so
// an allocator made from it can be made again in the SQLite audit log's worker thread
// (docs/decisions.md, "Reservations fast again").
import { z } from 'zod';

export const psdiStrategySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('sequence'),
    prefix: z.string().max(64).default(''),
    start: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(1),
    /** Zero-pad the number to this many digits (0: no padding). */
    width: z.number().int().min(0).max(32).default(0),
  }),
  z.object({
    kind: z.literal('random'),
    alphabet: z
      .string()
      .min(2, 'needs at least 2 characters')
      .default('0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'),
    length: z.number().int().min(4, 'must be at least 4').max(244),
    prefix: z.string().max(64).default(''),
  }),
  z.object({
    kind: z.literal('list'),
    values: z.array(z.string()).min(1, 'needs at least one PSDI'),
  }),
]);
export type PsdiStrategy = z.input<typeof psdiStrategySchema>;
