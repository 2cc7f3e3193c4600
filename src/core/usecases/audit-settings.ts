// Where this station's audit log and PSDI pool live: this machine (SQLite in the data folder) or
// a shared PostgreSQL. The URL (without a password) and the station name are kept in
// audit-settings.json; the password only in the CredentialStore (the keychain).
// DEVICEBENCH_AUDIT_URL and DEVICEBENCH_STATION win over both for scripts, CI and servers.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { auditEnvironment, postgresUrlSchema, type AuditLocation } from '../audit/open-store';
import type { CredentialStore } from '../secrets/credential-store';
import { SetupError } from './errors';
import { readJsonFile, writeJsonFile } from '../json-file';

const PASSWORD_ACCOUNT = 'audit:postgres-password';

const auditSettingsSchema = z.object({
  mode: z.enum(['local', 'shared']).default('local'),
  /** postgres://user@host:port/database, never with a password in it. */
  url: z.string().optional(),
  station: z.string().optional(),
});
export type AuditSettingsValue = z.output<typeof auditSettingsSchema>;

export interface ResolvedAudit {
  location: AuditLocation;
  station: string;
  /** Which of the two settings the environment decided. */
  fromEnvironment: { url: boolean; station: boolean };
}

export class AuditSettings {
  private constructor(
    private readonly file: string,
    private value: AuditSettingsValue,
    private readonly credentials: CredentialStore,
    private readonly dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async open(
    dataDir: string,
    credentials: CredentialStore,
    env: NodeJS.ProcessEnv = process.env,
  ): Promise<AuditSettings> {
    const file = join(dataDir, 'audit-settings.json');
    const { value } = await readJsonFile(file, auditSettingsSchema, { mode: 'local' as const });
    const settings = new AuditSettings(file, value, credentials, dataDir, env);
    // A file an older version wrote with a password in a local-mode URL: the password moves to
    // the keychain. Without a keychain the file stays as it is and the next save refuses.
    const stripped = value.url === undefined ? undefined : withoutPassword(value.url);
    if (stripped?.password !== undefined) {
      const prepared = { value: { ...value, url: stripped.url }, password: stripped.password };
      await settings.commit(prepared).catch(() => undefined);
    }
    return settings;
  }

  get saved(): AuditSettingsValue {
    return { ...this.value };
  }

  get localFile(): string {
    return join(this.dataDir, 'audit.sqlite');
  }

  async passwordSet(): Promise<boolean> {
    return (await this.credentials.get(PASSWORD_ACCOUNT)) !== undefined;
  }

  /** The log to open now: the environment first, then the saved settings. */
  async resolve(): Promise<ResolvedAudit> {
    const env = auditEnvironment(this.env);
    const station = env.station ?? (this.value.station?.trim() || hostname());
    const fromEnvironment = { url: env.url !== undefined, station: env.station !== undefined };
    if (env.url) return { location: { kind: 'postgres', url: env.url }, station, fromEnvironment };
    if (this.value.mode === 'shared' && this.value.url)
      return {
        location: {
          kind: 'postgres',
          url: this.value.url,
          password: await this.credentials.get(PASSWORD_ACCOUNT),
        },
        station,
        fromEnvironment,
      };
    return { location: { kind: 'local', file: this.localFile }, station, fromEnvironment };
  }

  /**
   * Checks new settings without keeping them: the log they name, to be opened before anything
   * is saved. A password typed into the URL is taken out of it (only the keychain keeps it);
   * an empty password keeps the stored one.
   */
  async prepare(input: AuditSettingsInput): Promise<PreparedAudit> {
    let url = input.url?.trim() || undefined;
    let password = input.password || undefined;
    const station = input.station?.trim() || undefined;
    if (input.mode === 'shared' && !url)
      throw new SetupError('url', 'is required for a shared PostgreSQL log');
    // A URL kept for later (local mode) is checked and stripped the same way: no mode keeps a
    // password in the file (docs/decisions.md, "Emulator fidelity and hardening, second pass").
    if (url) {
      if (!postgresUrlSchema.safeParse(url).success)
        throw new SetupError('url', 'must be a postgres://user@host:port/database URL');
      const stripped = withoutPassword(url);
      password ??= stripped.password;
      url = stripped.url;
    }
    const value: AuditSettingsValue = { mode: input.mode, url: url ?? this.value.url, station };
    const resolved = await new AuditSettings(
      this.file,
      value,
      password === undefined ? this.credentials : withPassword(this.credentials, password),
      this.dataDir,
      this.env,
    ).resolve();
    return { value, password, resolved };
  }

  /** Keeps what `prepare` checked: the file without the password, the password in the keychain. */
  async commit(prepared: Pick<PreparedAudit, 'value' | 'password'>): Promise<void> {
    if (prepared.password !== undefined)
      await this.credentials.set(PASSWORD_ACCOUNT, prepared.password);
    this.value = prepared.value;
    await writeJsonFile(this.file, this.value);
  }
}

export interface AuditSettingsInput {
  mode: 'local' | 'shared';
  url?: string;
  password?: string;
  station?: string;
}

export interface PreparedAudit {
  value: AuditSettingsValue;
  password: string | undefined;
  resolved: ResolvedAudit;
}

/** The URL with its password taken out, and that password (undefined when it had none). */
function withoutPassword(url: string): { url: string; password: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, password: undefined };
  }
  if (!parsed.password) return { url, password: undefined };
  let password = parsed.password;
  try {
    password = decodeURIComponent(password);
  } catch {
    // A `%` that starts no escape is part of the password as typed.
  }
  parsed.password = '';
  return { url: parsed.toString(), password };
}

/** The keychain as it will be once `password` is saved, without saving it yet. */
function withPassword(credentials: CredentialStore, password: string): CredentialStore {
  return {
    get: async (account) => (account === PASSWORD_ACCOUNT ? password : credentials.get(account)),
    set: (account, secret) => credentials.set(account, secret),
    delete: (account) => credentials.delete(account),
  };
}
