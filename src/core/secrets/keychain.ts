// Channel secrets in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret
// Service on Linux) through keytar. When there is no usable keychain the app still works, with
// secrets held in memory, and says so in plain words.
import { withTimeout } from '../async/timeout';
import { errorMessage } from '../errors/message';
import {
  MemoryCredentialStore,
  type CredentialStore,
  type KeychainStatus,
} from './credential-store';

/** The part of keytar DeviceBench uses. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export interface KeychainOptions {
  /** The keychain's service name; every secret of the app is an account under it. */
  service?: string;
  load?: () => Promise<KeytarLike>;
  /** A locked keychain can wait on an unlock prompt that never comes; don't hang startup on it. */
  probeTimeoutMs?: number;
}

const DEFAULT_SERVICE = 'DeviceBench';
const PROBE_ACCOUNT = 'keychain-probe';

async function loadKeytar(): Promise<KeytarLike> {
  const mod = (await import('keytar')) as KeytarLike & { default?: KeytarLike };
  // keytar is CommonJS: depending on the loader its functions sit on the namespace or on default.
  return mod.default ?? mod;
}

export async function openKeychain(
  options: KeychainOptions = {},
): Promise<{ store: CredentialStore; status: KeychainStatus }> {
  const service = options.service ?? DEFAULT_SERVICE;
  let keytar: KeytarLike;
  try {
    keytar = await (options.load ?? loadKeytar)();
  } catch (err) {
    return inMemory(`the keychain module could not be loaded: ${errorMessage(err)}`);
  }
  try {
    // A read of an account that never exists: it reaches the keychain without touching secrets.
    const ms = options.probeTimeoutMs ?? 15_000;
    await withTimeout(
      keytar.getPassword(service, PROBE_ACCOUNT),
      ms,
      () => new ProbeTimeout(`did not answer within ${ms / 1000} s`),
    );
  } catch (err) {
    return inMemory(explain(err));
  }
  return { store: new KeychainCredentialStore(keytar, service), status: { kind: 'keychain' } };
}

class KeychainCredentialStore implements CredentialStore {
  constructor(
    private readonly keytar: KeytarLike,
    private readonly service: string,
  ) {}

  // Errors name the account and keytar's reason, never the secret.
  async get(account: string): Promise<string | undefined> {
    try {
      return (await this.keytar.getPassword(this.service, account)) ?? undefined;
    } catch (err) {
      throw new Error(`The OS keychain could not read the secret ${account}: ${errorMessage(err)}`);
    }
  }

  async set(account: string, secret: string): Promise<void> {
    try {
      await this.keytar.setPassword(this.service, account, secret);
    } catch (err) {
      throw new Error(
        `The OS keychain could not store the secret ${account}: ${errorMessage(err)}`,
      );
    }
  }

  async delete(account: string): Promise<void> {
    try {
      await this.keytar.deletePassword(this.service, account);
    } catch (err) {
      throw new Error(
        `The OS keychain could not delete the secret ${account}: ${errorMessage(err)}`,
      );
    }
  }
}

function inMemory(why: string): { store: CredentialStore; status: KeychainStatus } {
  return {
    store: new MemoryCredentialStore(),
    status: {
      kind: 'memory',
      reason: `No OS keychain is available: ${why}. Secrets are kept in memory until DeviceBench closes.`,
    },
  };
}

class ProbeTimeout extends Error {}

/** Turns keytar's low-level failures into something a bench engineer can act on. */
function explain(err: unknown): string {
  const message = errorMessage(err);
  if (err instanceof ProbeTimeout) return `the keychain ${message} (is it locked?)`;
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service/i.test(message))
    return 'no Secret Service such as GNOME Keyring or KWallet is running';
  if (/D-Bus|DBUS_SESSION_BUS_ADDRESS/i.test(message))
    return 'there is no desktop session bus (D-Bus) to reach GNOME Keyring or KWallet';
  return `the keychain refused access: ${message}`;
}
