// A bond as the front ends show it, without its keys: which board, under which station
// identity, what the pairing gave and when it was made; and where the bonds are kept.
// Browser-safe (zod only): the BLE process's method table, the contract and the bench page read
// it (docs/decisions/ble-and-hci.md, "Bonds on the BLE bench").
import { z } from 'zod';
import { linkSecuritySchema } from '../link-parameters';

/** The key the bonds are encrypted with: the OS keychain's, or DEVICEBENCH_BOND_KEY_FILE's. */
export const bondKeySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('keychain') }),
  z.object({ kind: z.literal('keyFile'), file: z.string() }),
]);

/**
 * Where the bonds live and what became of the keychain, in words for every front end: kept
 * encrypted in `file` under `key`; in memory for this run only, and why; or not kept at all,
 * because `file` is damaged (`reason`), until `devicebench bonds reset` or the Bonds panel's
 * reset sets it aside (docs/decisions/security-and-hardening.md, "A damaged bond store").
 */
export const bondStorageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('encrypted'), file: z.string(), key: bondKeySchema }),
  z.object({ kind: z.literal('memory'), reason: z.string() }),
  z.object({ kind: z.literal('damaged'), file: z.string(), reason: z.string() }),
]);
export type BondStorage = z.infer<typeof bondStorageSchema>;

/** The key in words: "the OS keychain", "key file /etc/devicebench/bond.key". */
export function bondKeyWords(key: z.infer<typeof bondKeySchema>): string {
  return key.kind === 'keyFile' ? `key file ${key.file}` : 'the OS keychain';
}

/** Where the bonds are kept, in one sentence the CLI prints and the app shows. */
export function bondStorageWords(storage: BondStorage): string {
  if (storage.kind === 'encrypted')
    return `bonds are kept in ${storage.file}, encrypted with the key from ${bondKeyWords(storage.key)}`;
  if (storage.kind === 'memory') return storage.reason;
  return `bonds are not being kept: ${storage.file} is damaged (${storage.reason}); reset it to set it aside and start a new one`;
}

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
