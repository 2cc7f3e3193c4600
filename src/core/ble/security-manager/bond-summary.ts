// A bond as the front ends show it, without its keys: which board, under which station
// identity, what the pairing gave and when it was made; and where the bonds are kept.
// Browser-safe (zod only): the BLE process's method table, the contract and the bench page read
// it (docs/decisions/ble-and-hci.md, "Bonds on the BLE bench").
import { z } from 'zod';
import { linkSecuritySchema } from '../link-parameters';

/** Where the bonds live and what became of the keychain, in words for every front end. */
export const bondStorageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('encrypted'), file: z.string() }),
  z.object({ kind: z.literal('memory'), reason: z.string() }),
]);
export type BondStorage = z.infer<typeof bondStorageSchema>;

export const bondSummarySchema = z.object({
  /** The station identity the bond was made with (the adapter's address)... */
  station: z.string(),
  /** ...and its type. */
  stationType: z.enum(['public', 'random']),
  /** The board's identity address, or the address it paired under when it gave none. */
  board: z.string(),
  /** The board's name where the bench knows it (a link, a scan, a simulated board's file). */
  name: z.string().optional(),
  /** The key: SC or legacy, authenticated or not, its size, the pairing method. */
  security: linkSecuritySchema,
  /** When the bond was made, ISO 8601. */
  bondedAt: z.string(),
});
export type BondSummary = z.infer<typeof bondSummarySchema>;
