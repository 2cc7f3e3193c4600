// Notification messages: hashing, sends and counts on the active environment, and phone users
// on the embedded emulator.
import type { FlexibleBody, TemplateBody } from '../../platform/notifications/schema';
import { NotificationsConsole } from '../../usecases/consoles/notifications';
import type { notificationsOperations } from '../contracts/notifications';
import { consoleSetup } from './console-context';
import type { AppContext, AreaHandlers } from './context';

export function notificationsHandlers(
  ctx: AppContext,
): AreaHandlers<typeof notificationsOperations> {
  const notifications = new NotificationsConsole(consoleSetup(ctx));
  const sent = { sent: true as const };
  return {
    'notifications:hashPhoneNumber': ({ phoneNumber, defaultCountry }) =>
      notifications.hashPhoneNumber(phoneNumber, defaultCountry),
    // The contract checks only the types; the platform's answer to the limits is what to show.
    'notifications:sendTemplate': async ({ deliveryTag, ...body }) => {
      await notifications.sendTemplate(body as TemplateBody, deliveryTag);
      return sent;
    },
    'notifications:sendFlexible': async ({ deliveryTag, ...body }) => {
      await notifications.sendFlexible(body as FlexibleBody, deliveryTag);
      return sent;
    },
    'notifications:count': ({ kind, date }) => notifications.count(kind, date),
    'notifications:emulatorState': () => notifications.emulatorState(),
    'notifications:addPhoneUser': (input) => notifications.addPhoneUser(input),
  };
}
