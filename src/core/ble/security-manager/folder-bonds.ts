// A data folder's bonds under the bond key (bond-key.ts), as the BLE process and the CLI open
// them. The keychain loads only when asked, so a command refused for a bad flag never opens it.
import type { BondStore } from './bond-store';

/**
 * The bonds of `dir`. A key file that cannot be used is refused in words (BondKeyFileError);
 * no key at all leaves the bonds to this run's memory, saying why; a damaged file is opened as
 * a damaged store, which keeps nothing (`storage` says why).
 */
export async function folderBonds(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BondStore> {
  const { openKeychain } = await import('../../secrets/keychain');
  const { BondStore } = await import('./bond-store');
  const { bondKeySource } = await import('./bond-key');
  return BondStore.open(dir, await bondKeySource(openKeychain, env));
}
