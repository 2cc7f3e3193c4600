// Module webhook events (docs/platform-api.md#modules) in their envelope, sent signed to the module
// channel's webhook URL through the emulator's dispatcher.
import type { EmulatorContext } from '../area';
import { webhookEventId } from '../../webhooks/event-id';
import type { ModuleStore } from './store';

/** The `source` of activated and deactivated events, by the kind of chat ID. */
export function chatSource(chatId: string): Record<string, string> {
  if (chatId.startsWith('C')) return { type: 'group', groupId: chatId };
  if (chatId.startsWith('R')) return { type: 'room', roomId: chatId };
  return { type: 'user', userId: chatId };
}

/**
 * `chatControl.expireAt` of control acquired with no time limit: the latest time a JavaScript
 * `Date` can hold, so the documented number is always there and never passes
 * (docs/decisions.md, "Module events typed clients can read").
 */
export const NO_TIME_LIMIT = 8_640_000_000_000_000;

export type ModuleEventBody =
  | { type: 'module'; module: Record<string, unknown> }
  | { type: 'activated'; chatControl: { expireAt: number }; source: Record<string, string> }
  | { type: 'deactivated'; source: Record<string, string> }
  | { type: 'botSuspended' }
  | { type: 'botResumed' };

/**
 * Sends one event to a module channel. `destination` is the bot user ID of the account the
 * event is about, since one module channel serves many accounts. Not awaited by the API call
 * that caused it: the platform answers its caller without waiting for the receiver.
 */
export function sendModuleEvent(
  ctx: EmulatorContext,
  moduleChannelId: string,
  botId: string,
  event: ModuleEventBody,
): void {
  const now = ctx.clock.now();
  const kind =
    event.type === 'module' ? `module.${String(event.module.type)}` : `module.${event.type}`;
  const envelope = {
    destination: botId,
    events: [
      {
        ...event,
        webhookEventId: webhookEventId(now),
        deliveryContext: { isRedelivery: false },
        timestamp: now,
        mode: 'active',
      },
    ],
  };
  // The emulator may close while a delivery is in flight; its record is then simply lost.
  ctx.webhooks.deliver(moduleChannelId, kind, envelope).catch(() => undefined);
}

/** Detaches the modules of accounts deleted three months ago, with `bot_deleted` events. */
export function sweep(ctx: EmulatorContext, store: ModuleStore): void {
  for (const a of store.dueForDeletionDetach()) {
    store.setAttachmentState(a.module_channel_id, a.bot_id, 'detached');
    sendModuleEvent(ctx, a.module_channel_id, a.bot_id, {
      type: 'module',
      module: { type: 'detached', botId: a.bot_id, reason: 'bot_deleted' },
    });
  }
}
