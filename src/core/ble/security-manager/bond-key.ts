// Where the key to a data folder's bonds comes from, one rule for every process that opens them:
// the file DEVICEBENCH_BOND_KEY_FILE names when it is set (a headless station, a CI runner with
// no keychain), else the OS keychain's `ble-bond-key` (made on first use), else none, and the
// bonds last only for this run. The key file's content keys the store through HKDF-SHA-256, so
// any 32 bytes or more of random content will do and the file itself never is the AES key
// (docs/decisions/security-and-hardening.md, "Bonds kept without a keychain").
import { randomBytes, hkdfSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { CredentialStore, KeychainStatus } from '../../secrets/credential-store';

const BOND_KEY_FILE_VARIABLE = 'DEVICEBENCH_BOND_KEY_FILE';
const KEY_ACCOUNT = 'ble-bond-key';
const MIN_KEY_FILE_BYTES = 32;

/** The key in use, and where it came from, as the front ends say it. */
export type BondKeySource =
  | { kind: 'keyFile'; file: string; key: Buffer }
  /** `made`: no key was in the keychain, so this one was made now. */
  | { kind: 'keychain'; key: Buffer; made: boolean }
  | { kind: 'memory'; reason: string };

/** The key file is unusable: says which file, what is wrong and what to do. */
export class BondKeyFileError extends Error {
  override name = 'BondKeyFileError';
}

/** How to make a key file, for every message that asks for one. */
function howToMake(file: string): string {
  return `make one with: head -c 32 /dev/urandom > ${file} && chmod 600 ${file}`;
}

/** The key the file `file` gives, or a refusal in words naming it. */
function keyFromFile(file: string): Buffer {
  const named = `${file} (${BOND_KEY_FILE_VARIABLE})`;
  let stat;
  try {
    stat = statSync(file);
  } catch {
    throw new BondKeyFileError(`${named}: no such file; ${howToMake(file)}`);
  }
  if (!stat.isFile()) throw new BondKeyFileError(`${named}: not a file; ${howToMake(file)}`);
  // Windows keeps no group and other bits: its ACLs are the user's to set.
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
    throw new BondKeyFileError(
      `${named}: readable by others than its owner (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}); the key to the bonds must be yours alone: chmod 600 ${file}`,
    );
  const content = readFileSync(file);
  if (content.length < MIN_KEY_FILE_BYTES)
    throw new BondKeyFileError(
      `${named}: ${content.length} bytes, at least ${MIN_KEY_FILE_BYTES} are needed; ${howToMake(file)}`,
    );
  return Buffer.from(hkdfSync('sha256', content, 'devicebench', 'devicebench bonds.bin key', 32));
}

/**
 * The bond key for a station: the key file when `env` names one (refused in words when it is
 * unusable, never passed over for the keychain), else the keychain's, else none.
 */
export async function bondKeySource(
  keychain: () => Promise<{ store: CredentialStore; status: KeychainStatus }>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BondKeySource> {
  const file = env[BOND_KEY_FILE_VARIABLE];
  if (file !== undefined) {
    if (!file.trim())
      throw new BondKeyFileError(
        `${BOND_KEY_FILE_VARIABLE} is set but empty: name a key file, or unset it to use the OS keychain`,
      );
    return { kind: 'keyFile', file, key: keyFromFile(file) };
  }
  const { store, status } = await keychain();
  if (status.kind === 'memory') return { kind: 'memory', reason: status.reason };
  const encoded = await store.get(KEY_ACCOUNT);
  if (encoded) return { kind: 'keychain', key: Buffer.from(encoded, 'base64'), made: false };
  const key = randomBytes(32);
  await store.set(KEY_ACCOUNT, key.toString('base64'));
  return { kind: 'keychain', key, made: true };
}

/**
 * Said once per run when bonds cannot outlive it: why, and the two ways to keep them.
 */
export function bondsForThisRunOnly(reason: string): string {
  return `bonds last only for this run (${reason}); to keep them, unlock an OS keychain or set ${BOND_KEY_FILE_VARIABLE} to a file of 32 random bytes or more, mode 600`;
}

/**
 * The key the simulated boards' flash is sealed with in `sim-bench-state.json`: derived from the
 * bond key, never the same bytes (docs/decisions/security-and-hardening.md).
 */
export function boardFlashKey(source: BondKeySource): Uint8Array | undefined {
  if (source.kind === 'memory') return undefined;
  return new Uint8Array(
    hkdfSync('sha256', source.key, 'devicebench', 'devicebench simulated board flash', 32),
  );
}
