// The platform a station's command talks to, and who it is there: an environment from Settings
// by name (its token from the keychain), else the CI variables, else the embedded emulator, as
// the app starts (docs/decisions.md, "Command line"). The emulator's HTTP server and the keychain
// load only when a command gets this far.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { EmulatorAdminClient } from '../../emulator/admin-client';
import { errorMessage } from '../../errors/message';
import { ThingsClient } from '../../platform/things/client';
import { MemoryCredentialStore } from '../../secrets/credential-store';
import type { EnvironmentView } from '../environment-schema';
import { Environments } from '../environments';
import { NotConfiguredError, SetupError } from '../errors';

/** The platform a command talks to, and who it is there. */
export interface Platform {
  name: string;
  kind: 'emulator' | 'custom';
  things: ThingsClient;
  channelId: string;
  channelSecret?: string;
  /** The embedded emulator's admin API, when that is the platform. */
  admin?: EmulatorAdminClient;
}

/** The embedded emulator's name in Settings: asking for it by name is asking for no environment. */
const EMBEDDED = 'Local emulator';

/** The CI variables; all or none (the secret only signs `--deliver` results). */
const ciEnvironmentSchema = z.object({
  DEVICEBENCH_BASE_URL: z.url({
    protocol: /^https?$/,
    error: 'must be the platform base URL (http or https)',
  }),
  DEVICEBENCH_CHANNEL_ID: z.string().regex(/^\d+$/, 'must be the channel ID (digits)'),
  DEVICEBENCH_CHANNEL_TOKEN: z.string().min(1, 'must be the channel access token'),
  DEVICEBENCH_CHANNEL_SECRET: z.string().min(1).optional(),
});
const CI_VARIABLES = Object.keys(ciEnvironmentSchema.shape);

/**
 * The CI variables when set; partly set is bad input, refused naming the variable. Checked
 * before anything is opened.
 */
function ciEnvironment(
  environ: NodeJS.ProcessEnv,
): z.output<typeof ciEnvironmentSchema> | undefined {
  if (!CI_VARIABLES.some((name) => environ[name] !== undefined)) return undefined;
  const parsed = ciEnvironmentSchema.safeParse(environ);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new SetupError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'invalid');
}

/**
 * The environment of Settings named `name` (or by id); refused as `env` naming the ones
 * there. Names only, without the keychain, unless `envs` (opened with it) is given.
 */
export async function settingsEnvironment(
  dataDir: string,
  name: string,
  envs?: Environments,
): Promise<EnvironmentView> {
  const opened =
    envs ?? (await Environments.open(dataDir, new MemoryCredentialStore(), () => undefined));
  const { environments } = await opened.list();
  const found = environments.find((e) => e.kind === 'custom' && (e.name === name || e.id === name));
  if (!found)
    throw new SetupError(
      'env',
      `no environment "${name}" in Settings (there: ${environments.map((e) => `"${e.name}"`).join(', ')})`,
    );
  return found;
}

/** Whether `name` asks for an environment of Settings rather than the embedded emulator. */
export function namesSettingsEnvironment(name: string | undefined): name is string {
  return name !== undefined && name !== EMBEDDED;
}

export interface OpenPlatform {
  platform: Platform;
  close(): Promise<void>;
}

/** `env` from Settings, else the CI variables, else the embedded emulator in the data folder. */
export async function openPlatform(options: {
  dataDir: string;
  env?: string;
  environ: NodeJS.ProcessEnv;
}): Promise<OpenPlatform> {
  const ci = ciEnvironment(options.environ);
  const none = async () => undefined;
  if (namesSettingsEnvironment(options.env))
    return { platform: await fromSettings(options.dataDir, options.env), close: none };
  if (ci && options.env === undefined)
    return {
      platform: {
        name: ci.DEVICEBENCH_BASE_URL,
        kind: 'custom',
        things: new ThingsClient({
          baseUrl: ci.DEVICEBENCH_BASE_URL,
          channelAccessToken: ci.DEVICEBENCH_CHANNEL_TOKEN,
        }),
        channelId: ci.DEVICEBENCH_CHANNEL_ID,
        channelSecret: ci.DEVICEBENCH_CHANNEL_SECRET,
      },
      close: none,
    };
  return embeddedEmulator(options.dataDir);
}

async function embeddedEmulator(dataDir: string): Promise<OpenPlatform> {
  mkdirSync(dataDir, { recursive: true });
  const { startEmulator } = await import('../../emulator/server');
  let emulator;
  try {
    emulator = await startEmulator({ dataFile: join(dataDir, 'emulator.sqlite'), port: 0 });
  } catch (err) {
    throw new NotConfiguredError(`the embedded emulator did not start: ${errorMessage(err)}`);
  }
  const running = emulator;
  const close = () => running.close().catch(() => undefined);
  const channel = running.channels()[0];
  if (!channel) {
    await close();
    throw new NotConfiguredError('the embedded emulator has no channel');
  }
  return {
    platform: {
      name: EMBEDDED,
      kind: 'emulator',
      things: new ThingsClient({
        baseUrl: running.url,
        channelAccessToken: channel.channelAccessToken,
      }),
      channelId: channel.channelId,
      channelSecret: channel.channelSecret,
      admin: new EmulatorAdminClient(running.adminUrl),
    },
    close,
  };
}

async function fromSettings(dataDir: string, name: string): Promise<Platform> {
  const { openKeychain } = await import('../../secrets/keychain');
  const keychain = await openKeychain();
  const envs = await Environments.open(dataDir, keychain.store, () => undefined);
  const found = await settingsEnvironment(dataDir, name, envs);
  const channel = await envs.channel(found.id);
  if (!channel.channelAccessToken)
    throw new NotConfiguredError(
      keychain.status.kind === 'memory'
        ? `environment "${name}": no keychain to read its token from (${keychain.status.reason}); in CI set ${CI_VARIABLES.join(', ')} instead`
        : `environment "${name}" has no channel access token in the keychain: enter it in Settings`,
    );
  return {
    name,
    kind: 'custom',
    things: new ThingsClient({
      baseUrl: channel.baseUrl,
      channelAccessToken: channel.channelAccessToken,
    }),
    channelId: channel.channelId,
    channelSecret: channel.channelSecret,
  };
}
