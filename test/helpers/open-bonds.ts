// A data folder's bond store under a credential store's key, as the BLE process and the CLI
// open it (bond-key.ts: the keychain's key, made on first use), with no key file named.
import { BondStore } from '../../src/core/ble/security-manager/bond-store';
import { bondKeySource } from '../../src/core/ble/security-manager/bond-key';
import type { CredentialStore, KeychainStatus } from '../../src/core/secrets/credential-store';

export async function openBonds(
  dir: string,
  store: CredentialStore,
  status: KeychainStatus = { kind: 'keychain' },
): Promise<BondStore> {
  return BondStore.open(dir, await bondKeySource(async () => ({ store, status }), {}));
}
