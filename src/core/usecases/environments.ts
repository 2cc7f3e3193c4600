// Environments the app can talk to: the built-in local emulator, and custom ones (a real
// platform). Non-secret settings live in environments.json; tokens and secrets only in the
// CredentialStore, and leave this module only as {set, hint}.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import type { Channel } from '../emulator/channels';
import type { HttpOptions, PlatformTarget } from '../platform/http';
import { ThingsClient } from '../platform/things/client';
import type { CredentialStore } from '../secrets/credential-store';
import type { EnvironmentInput, EnvironmentView } from './environment-schema';
import { NotConfiguredError, SetupError } from './errors';
import { readJsonFile, writeJsonFile } from '../json-file';

const EMULATOR_ENV_ID = 'local-emulator';
const EMULATOR_ENV_NAME = 'Local emulator';
const SECRETS = ['channelAccessToken', 'channelSecret'] as const;
type SecretName = (typeof SECRETS)[number];

const customSchema = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  channelId: z.string(),
});
type Custom = z.infer<typeof customSchema>;
const fileSchema = z.object({ activeId: z.string(), custom: z.array(customSchema) });
type Settings = z.infer<typeof fileSchema>;
const DEFAULTS: Settings = { activeId: EMULATOR_ENV_ID, custom: [] };

/** What the environments need to know about the embedded emulator, if it is running. */
interface EmulatorInfo {
  url: string;
  channel: Channel;
}

export interface ActiveChannel {
  kind: 'emulator' | 'custom';
  baseUrl: string;
  channelId: string;
  channelAccessToken?: string;
  channelSecret?: string;
}

function hint(secret: string | undefined): { set: boolean; hint?: string } {
  return secret ? { set: true, hint: secret.slice(-4) } : { set: false };
}

export class Environments {
  private constructor(
    private readonly file: string,
    private settings: Settings,
    private readonly credentials: CredentialStore,
    private readonly emulator: () => EmulatorInfo | undefined,
    readonly setAsideAs: string | undefined,
  ) {}

  static async open(
    dataDir: string,
    credentials: CredentialStore,
    emulator: () => EmulatorInfo | undefined,
  ): Promise<Environments> {
    const file = join(dataDir, 'environments.json');
    const { value, setAsideAs } = await readJsonFile(file, fileSchema, DEFAULTS);
    return new Environments(file, value, credentials, emulator, setAsideAs);
  }

  get activeId(): string {
    const known = this.settings.custom.some((c) => c.id === this.settings.activeId);
    return known ? this.settings.activeId : EMULATOR_ENV_ID;
  }

  async list(): Promise<{ activeId: string; environments: EnvironmentView[] }> {
    const custom = await Promise.all(this.settings.custom.map((c) => this.view(c)));
    return { activeId: this.activeId, environments: [this.emulatorView(), ...custom] };
  }

  describeActive(): Pick<EnvironmentView, 'id' | 'name' | 'kind'> {
    const custom = this.settings.custom.find((c) => c.id === this.activeId);
    return custom
      ? { id: custom.id, name: custom.name, kind: 'custom' }
      : { id: EMULATOR_ENV_ID, name: EMULATOR_ENV_NAME, kind: 'emulator' };
  }

  async save(input: EnvironmentInput): Promise<EnvironmentView> {
    if (input.id === EMULATOR_ENV_ID)
      throw new SetupError('id', 'the local emulator environment cannot be edited');
    const existing = input.id ? this.settings.custom.find((c) => c.id === input.id) : undefined;
    if (input.id && !existing) throw new SetupError('id', `no environment ${input.id}`);
    const id = existing?.id ?? randomUUID();
    if (!existing && !input.channelAccessToken)
      throw new SetupError('channelAccessToken', 'is required for a new environment');

    for (const name of SECRETS) {
      const secret = input[name];
      if (secret) await this.credentials.set(account(id, name), secret);
    }
    const entry: Custom = {
      id,
      name: input.name,
      baseUrl: input.baseUrl,
      channelId: input.channelId,
    };
    const custom = existing
      ? this.settings.custom.map((c) => (c.id === id ? entry : c))
      : [...this.settings.custom, entry];
    await this.write({ ...this.settings, custom });
    return this.view(entry);
  }

  async delete(id: string): Promise<{ activeId: string }> {
    if (id === EMULATOR_ENV_ID)
      throw new SetupError('id', 'the local emulator environment cannot be deleted');
    if (!this.settings.custom.some((c) => c.id === id))
      throw new SetupError('id', `no environment ${id}`);
    await this.write({
      activeId: this.settings.activeId === id ? EMULATOR_ENV_ID : this.settings.activeId,
      custom: this.settings.custom.filter((c) => c.id !== id),
    });
    for (const name of SECRETS) await this.credentials.delete(account(id, name));
    return { activeId: this.activeId };
  }

  async select(id: string): Promise<{ activeId: string }> {
    if (id !== EMULATOR_ENV_ID && !this.settings.custom.some((c) => c.id === id))
      throw new SetupError('id', `no environment ${id}`);
    await this.write({ ...this.settings, activeId: id });
    return { activeId: id };
  }

  /** Base URL and token of the active environment, for the platform clients. */
  async activeTarget(): Promise<PlatformTarget> {
    const channel = await this.activeChannel();
    if (!channel.channelAccessToken)
      throw new NotConfiguredError(
        `Environment "${this.describeActive().name}" has no channel access token stored. Enter it in Settings.`,
      );
    return { baseUrl: channel.baseUrl, channelAccessToken: channel.channelAccessToken };
  }

  /**
   * The device service's client on the environment active when it is called: provisioning and
   * dry runs ask for it per run, so a switch of environment takes effect at the next one.
   */
  async activeThings(http?: HttpOptions): Promise<ThingsClient> {
    return new ThingsClient(await this.activeTarget(), http);
  }

  /**
   * The active environment's channel with whatever secrets are stored, for areas that sign or
   * verify with the channel secret or send it as `client_secret`. Missing secrets are
   * undefined; the caller says which one it needed.
   */
  async activeChannel(): Promise<ActiveChannel> {
    return this.channel(this.activeId);
  }

  /**
   * Any environment's channel by id, without making it the active one (the `devicebench`
   * command's `--env`). Throws `invalid_input` on field `id` for an unknown id.
   */
  async channel(id: string): Promise<ActiveChannel> {
    if (id !== EMULATOR_ENV_ID && !this.settings.custom.some((c) => c.id === id))
      throw new SetupError('id', `no environment ${id}`);
    if (id === EMULATOR_ENV_ID) {
      const emulator = this.emulator();
      if (!emulator)
        throw new NotConfiguredError(
          'The local emulator is not running. See the status bar for why.',
        );
      return {
        kind: 'emulator',
        baseUrl: emulator.url,
        channelId: emulator.channel.channelId,
        channelAccessToken: emulator.channel.channelAccessToken,
        channelSecret: emulator.channel.channelSecret,
      };
    }
    const env = this.settings.custom.find((c) => c.id === id) as Custom;
    return {
      kind: 'custom',
      baseUrl: env.baseUrl,
      channelId: env.channelId,
      channelAccessToken: await this.credentials.get(account(id, 'channelAccessToken')),
      channelSecret: await this.credentials.get(account(id, 'channelSecret')),
    };
  }

  private emulatorView(): EnvironmentView {
    const emulator = this.emulator();
    return {
      id: EMULATOR_ENV_ID,
      name: EMULATOR_ENV_NAME,
      kind: 'emulator',
      baseUrl: emulator?.url ?? '',
      channelId: emulator?.channel.channelId ?? '',
      channelAccessToken: hint(emulator?.channel.channelAccessToken),
      channelSecret: hint(emulator?.channel.channelSecret),
    };
  }

  private async view(c: Custom): Promise<EnvironmentView> {
    return {
      ...c,
      kind: 'custom',
      channelAccessToken: hint(await this.credentials.get(account(c.id, 'channelAccessToken'))),
      channelSecret: hint(await this.credentials.get(account(c.id, 'channelSecret'))),
    };
  }

  private async write(settings: Settings): Promise<void> {
    await writeJsonFile(this.file, settings);
    this.settings = settings;
  }
}

function account(envId: string, secret: SecretName): string {
  return `${envId}:${secret}`;
}
