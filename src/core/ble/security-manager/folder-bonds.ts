// A data folder's bonds under the OS keychain's key, as the BLE process and the CLI open them.
// The keychain loads only when asked, so a command refused for a bad flag never opens it.
import type { BondStore } from './bond-store';
import { errorMessage } from '../../errors/message';

/**
 * The bonds of `dir`. `orInMemory`: a file that cannot be opened (no key in the keychain, a
 * damaged file) leaves bonds to this session's memory, saying why, where a station must still
 * pair; without it the refusal is thrown, for a command that only lists or forgets.
 */
export async function folderBonds(dir: string, orInMemory: boolean): Promise<BondStore> {
  const { openKeychain } = await import('../../secrets/keychain');
  const { BondStore } = await import('./bond-store');
  const keychain = await openKeychain();
  try {
    return await BondStore.open(dir, keychain.store, keychain.status);
  } catch (err) {
    if (!orInMemory) throw err;
    return BondStore.inMemory(errorMessage(err));
  }
}
