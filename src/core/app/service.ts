// The app's operations, implemented once. Electron IPC and the bench server are thin adapters
// over `invoke` and `subscribe`: input is validated against the contract here, so neither
// transport has to trust its caller, and output is checked so the UI gets what it was promised.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EmulatorAdminClient } from '../emulator/admin-client';
import { startEmulator, type RunningEmulator } from '../emulator/server';
import { describeFieldErrors, fieldErrors } from '../platform/field-errors';
import type { HttpOptions } from '../platform/http';
import { ThingsClient } from '../platform/things/client';
import type { CredentialStore, KeychainStatus } from '../secrets/credential-store';
import {
  isEventName,
  isOperationName,
  operations,
  type EventName,
  type OperationName,
  type OpOutput,
  type OpParsedInput,
  type Result,
} from './contract';
import { Environments } from './environments';
import { AppFailure, toAppError } from './errors';

export interface AppOptions {
  dataDir: string;
  credentials: CredentialStore;
  keychain: KeychainStatus;
  version: string;
  /** Port for the embedded emulator; 0 (the default) picks a free one. */
  emulatorPort?: number;
  /** For tests: how the platform clients retry. */
  http?: HttpOptions;
}

export interface AppService {
  invoke(name: string, input: unknown): Promise<Result<unknown>>;
  subscribe(event: EventName, handler: (payload: unknown) => void): () => void;
  close(): Promise<void>;
}

type Handlers = {
  [N in OperationName]: (input: OpParsedInput<N>) => Promise<OpOutput<N>>;
};

export async function startApp(options: AppOptions): Promise<AppService> {
  await mkdir(options.dataDir, { recursive: true });
  let emulator: RunningEmulator | undefined;
  let emulatorError: string | undefined;
  try {
    emulator = await startEmulator({
      dataFile: join(options.dataDir, 'emulator.sqlite'),
      port: options.emulatorPort ?? 0,
    });
  } catch (err) {
    emulatorError = err instanceof Error ? err.message : String(err);
  }

  const envs = await Environments.open(options.dataDir, options.credentials, () => {
    const channel = emulator?.channels()[0];
    return emulator && channel ? { url: emulator.url, channel } : undefined;
  });
  const things = async () => new ThingsClient(await envs.activeTarget(), options.http);
  const running = (): RunningEmulator => {
    if (emulator) return emulator;
    throw new AppFailure({
      code: 'not_configured',
      message: `The local emulator is not running: ${emulatorError ?? 'it was not started'}.`,
    });
  };
  const admin = () => new EmulatorAdminClient(running().adminUrl);

  const handlers: Handlers = {
    'app:getStatus': async () => ({
      version: options.version,
      dataDir: options.dataDir,
      keychain: options.keychain,
      emulator: emulator
        ? { running: true, url: emulator.url }
        : { running: false, error: emulatorError },
      environment: envs.describeActive(),
      notices: envs.setAsideAs
        ? [
            `The environments file could not be read; it was kept as ${envs.setAsideAs} and the defaults are in use.`,
          ]
        : [],
    }),

    'settings:listEnvironments': () => envs.list(),
    'settings:saveEnvironment': (input) => envs.save(input),
    'settings:deleteEnvironment': ({ id }) => envs.delete(id),
    'settings:selectEnvironment': ({ id }) => envs.select(id),

    'things:listTrialProducts': async () => (await things()).listTrialProducts(),
    'things:createTrialProduct': async ({ name }) => (await things()).createTrialProduct(name),
    'things:deleteTrialProduct': async ({ productId }) => {
      await (await things()).deleteTrialProduct(productId);
      return { deleted: true as const };
    },
    'things:getScenarioSet': async ({ productId }) => (await things()).getScenarioSet(productId),
    'things:putScenarioSet': async ({ productId, scenarioSet }) =>
      (await things()).putScenarioSet(productId, scenarioSet),
    'things:deleteScenarioSet': async ({ productId }) => {
      await (await things()).deleteScenarioSet(productId);
      return { deleted: true as const };
    },
    'things:getDevice': async ({ deviceId }) => (await things()).getDevice(deviceId),
    'things:getLinks': async ({ productId, userId }) =>
      (await things()).getLinks(productId, userId),

    'emulator:getState': async () => {
      const client = admin();
      const [state, devices, activity] = await Promise.all([
        client.state(),
        client.devices(),
        client.log(200),
      ]);
      return {
        url: running().url,
        adminUrl: running().adminUrl,
        clock: state.clock,
        channels: state.channels.map(({ channelId, name }) => ({ channelId, name })),
        users: state.users,
        faults: state.faults,
        devices,
        activity,
      };
    },
    'emulator:addUser': ({ displayName }) => admin().addUser(displayName),
    'emulator:registerDevice': (input) => admin().registerDevice(input),
    'emulator:linkDevice': ({ deviceId, userId }) => admin().linkDevice(deviceId, userId),
    'emulator:advanceClock': ({ ms }) => admin().advanceClock(ms),
    'emulator:resetClock': () => admin().resetClock(),
    'emulator:injectFault': (fault) => admin().injectFault(fault),
    'emulator:clearFaults': async () => {
      await admin().clearFaults();
      return { cleared: true as const };
    },
  };

  const sources: { [E in EventName]: (handler: (payload: unknown) => void) => () => void } = {
    'emulator:activity': (handler) => emulator?.ctx.activity.onActivity(handler) ?? (() => {}),
  };

  return {
    async invoke(name, input) {
      if (!isOperationName(name))
        return {
          ok: false,
          error: { code: 'unknown_operation', message: `No operation ${name}.` },
        };
      const spec = operations[name];
      const parsed = spec.input.safeParse(input ?? {});
      if (!parsed.success) {
        const fields = fieldErrors(parsed.error);
        return {
          ok: false,
          error: { code: 'invalid_input', message: describeFieldErrors(fields), fields },
        };
      }
      try {
        const handler = handlers[name] as (input: unknown) => Promise<unknown>;
        return { ok: true, value: spec.output.parse(await handler(parsed.data)) };
      } catch (err) {
        return { ok: false, error: toAppError(err) };
      }
    },

    subscribe(event, handler) {
      if (!isEventName(event)) throw new Error(`No event ${String(event)}`);
      return sources[event](handler);
    },

    async close() {
      await emulator?.close();
    },
  };
}
