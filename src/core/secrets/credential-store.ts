// Where channel secrets live. The app uses the OS keychain (keytar); when none is available,
// and in unit tests, secrets stay in memory for the session only.
export interface CredentialStore {
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<void>;
}

export type KeychainStatus = { kind: 'keychain' } | { kind: 'memory'; reason: string };

export class MemoryCredentialStore implements CredentialStore {
  private readonly secrets = new Map<string, string>();

  async get(account: string): Promise<string | undefined> {
    return this.secrets.get(account);
  }

  async set(account: string, secret: string): Promise<void> {
    this.secrets.set(account, secret);
  }

  async delete(account: string): Promise<void> {
    this.secrets.delete(account);
  }
}
