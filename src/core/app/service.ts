// The app's operations, implemented once (one handlers module per area). Electron IPC and the
// bench server are thin adapters over `invoke` and `subscribe`: input is validated against the
// contract here, so neither transport has to trust its caller, and output is checked so the UI
// gets what it was promised.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../emulator/server';
import { describeFieldErrors } from '../platform/field-errors';
import {
  events,
  isEventName,
  isOperationName,
  operations,
  type EventName,
  type Result,
} from './contract';
import { parseInput } from './contracts/op';
import type { AuditExportInput } from './contracts/audit';
import { Environments } from '../usecases/environments';
import { toAppError } from './errors';
import { appHandlers } from './handlers/app';
import { startBench } from './handlers/bench';
import type { AppContext, AppOptions, AreaEvents, AreaHandlers } from './handlers/context';
import { embedHandlers } from './handlers/embed';
import { emulatorEventSources, emulatorHandlers } from './handlers/emulator';
import { iapHandlers } from './handlers/iap';
import { lineHandlers } from './handlers/line';
import { loginHandlers } from './handlers/login';
import { messagingHandlers } from './handlers/messaging';
import { missionStickersHandlers } from './handlers/mission-stickers';
import { modulesHandlers } from './handlers/modules';
import { notificationsHandlers } from './handlers/notifications';
import { startScenarios } from './handlers/scenarios';
import { serviceMessagesHandlers } from './handlers/service-messages';
import { thingsHandlers } from './handlers/things';
import { videoHandlers } from './handlers/video';
import { startWebhooks } from './handlers/webhooks';
import { errorMessage } from '../errors/message';

export type { AppOptions } from './handlers/context';

export interface AppService {
  invoke(name: string, input: unknown): Promise<Result<unknown>>;
  subscribe(event: EventName, handler: (payload: unknown) => void): () => void;
  /**
   * The audit log as a CSV download (the bench server's route): `input` as `audit:exportCsv`
   * takes it; progress on `audit:exportProgress`.
   */
  downloadAuditCsv(
    input: unknown,
  ): Promise<Result<{ fileName: string; body: AsyncIterable<string> }>>;
  close(): Promise<void>;
}

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
    emulatorError = errorMessage(err);
  }

  const envs = await Environments.open(options.dataDir, options.credentials, () => {
    const channel = emulator?.channels()[0];
    return emulator && channel ? { url: emulator.url, channel } : undefined;
  });
  const closers: (() => Promise<void> | void)[] = [];
  if (emulator) closers.push(emulator.close);
  const ctx: AppContext = {
    options,
    envs,
    emulator,
    emulatorError,
    onClose: (close) => closers.push(close),
  };

  const webhooks = await startWebhooks(ctx);
  const bench = await startBench(ctx, options.bleHost);
  const scenarios = startScenarios(ctx, bench.supervisor, () => bench.provisioning.store());

  const handlers: AreaHandlers<typeof operations> = {
    ...appHandlers(ctx),
    ...thingsHandlers(ctx),
    ...emulatorHandlers(ctx),
    ...missionStickersHandlers(ctx),
    ...messagingHandlers(ctx),
    ...modulesHandlers(ctx),
    ...notificationsHandlers(ctx),
    ...videoHandlers(ctx),
    ...embedHandlers(ctx),
    ...serviceMessagesHandlers(ctx),
    ...iapHandlers(ctx),
    ...loginHandlers(ctx),
    ...webhooks.handlers,
    ...bench.handlers,
    ...lineHandlers(bench.provisioning),
    ...scenarios.handlers,
  };
  const sources: AreaEvents<typeof events> = {
    ...emulatorEventSources(ctx),
    ...webhooks.sources,
    ...bench.sources,
    ...scenarios.sources,
  };

  return {
    async invoke(name, input) {
      if (!isOperationName(name))
        return {
          ok: false,
          error: { code: 'unknown_operation', message: `No operation ${name}.` },
        };
      const spec = operations[name];
      const parsed = parseInput(spec, input);
      if (!parsed.ok) {
        const { fields } = parsed;
        return {
          ok: false,
          error: { code: 'invalid_input', message: describeFieldErrors(fields), fields },
        };
      }
      try {
        const handler = handlers[name] as (input: unknown) => Promise<unknown>;
        return { ok: true, value: spec.output.parse(await handler(parsed.value)) };
      } catch (err) {
        return { ok: false, error: toAppError(err) };
      }
    },

    async downloadAuditCsv(input) {
      const parsed = parseInput(operations['audit:exportCsv'], input);
      if (!parsed.ok) {
        const { fields } = parsed;
        return {
          ok: false,
          error: { code: 'invalid_input', message: describeFieldErrors(fields), fields },
        };
      }
      try {
        return {
          ok: true,
          value: await bench.exports.downloadCsv(parsed.value as AuditExportInput),
        };
      } catch (err) {
        return { ok: false, error: toAppError(err) };
      }
    },

    subscribe(event, handler) {
      if (!isEventName(event)) throw new Error(`No event ${String(event)}`);
      return (sources[event] as (h: (payload: unknown) => void) => () => void)(handler);
    },

    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
