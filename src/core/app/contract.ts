// The one contract between the UI and the app: every operation and event, declared once with
// zod schemas, one module per area under contracts/. Main (IPC), the preload, the bench server
// and the renderer all import this; it imports none of them, and only browser-safe schema modules.
import { z } from 'zod';
import { appOperations } from './contracts/app';
import { auditEvents, auditOperations } from './contracts/audit';
import { bleEvents, bleOperations } from './contracts/ble';
import { embedOperations } from './contracts/embed';
import { firmwareEvents, firmwareOperations } from './contracts/firmware';
import { emulatorEvents, emulatorOperations } from './contracts/emulator';
import { messagingOperations } from './contracts/messaging';
import { missionStickersOperations } from './contracts/mission-stickers';
import { modulesOperations } from './contracts/modules';
import { namesOperations } from './contracts/names';
import { notificationsOperations } from './contracts/notifications';
import { provisioningEvents, provisioningOperations } from './contracts/provisioning';
import { videoOperations } from './contracts/video';
import { iapOperations } from './contracts/iap';
import { lineOperations } from './contracts/line';
import { loginOperations } from './contracts/login';
import { scenariosEvents, scenariosOperations } from './contracts/scenarios';
import { serviceMessagesOperations } from './contracts/service-messages';
import { simEvents, simOperations } from './contracts/sim';
import { thingsOperations } from './contracts/things';
import { webhooksEvents, webhooksOperations } from './contracts/webhooks';

export type { AppStatus } from './contracts/app';
export type { EnvironmentView } from '../usecases/environment-schema';
export type { EmulatorState } from './contracts/emulator';

export interface AppErrorBody {
  code:
    | 'invalid_input'
    | 'unknown_operation'
    | 'platform'
    | 'unreachable'
    | 'not_configured'
    /** A BLE device or the BLE process failed; the message names the step. */
    | 'device'
    | 'internal';
  message: string;
  /** The failure in full, where `message` says it short (shown behind a "Details" toggle). */
  details?: string;
  /** Field-named problems with the input (or the platform's 400 details). */
  fields?: { field: string; message: string }[];
  status?: number;
  requestId?: string;
  body?: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorBody };

export const operations = {
  ...appOperations,
  ...thingsOperations,
  ...emulatorOperations,
  ...webhooksOperations,
  ...missionStickersOperations,
  ...messagingOperations,
  ...modulesOperations,
  ...notificationsOperations,
  ...videoOperations,
  ...embedOperations,
  ...serviceMessagesOperations,
  ...iapOperations,
  ...loginOperations,
  ...bleOperations,
  ...firmwareOperations,
  ...namesOperations,
  ...simOperations,
  ...provisioningOperations,
  ...auditOperations,
  ...lineOperations,
  ...scenariosOperations,
} as const;

/** The Electron IPC channel events travel on, as `(name, payload)`; the preload filters by name. */
export const IPC_EVENT_CHANNEL = 'devicebench:event';

export const events = {
  ...emulatorEvents,
  ...webhooksEvents,
  ...auditEvents,
  ...bleEvents,
  ...firmwareEvents,
  ...simEvents,
  ...provisioningEvents,
  ...scenariosEvents,
} as const;

type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<N extends OperationName> = z.input<Operations[N]['input']>;
export type OpOutput<N extends OperationName> = z.output<Operations[N]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}
export function isEventName(name: string): name is EventName {
  return Object.hasOwn(events, name);
}
