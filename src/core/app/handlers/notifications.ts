// Notification messages: hashing (in core, the same code the emulator uses), sends and counts on
// the active environment, and phone users on the embedded emulator.
import { PlatformHttp } from '../../platform/http';
import { NotificationsClient } from '../../platform/notifications/client';
import { hashPhoneNumber, PhoneNumberError } from '../../platform/notifications/phone';
import {
  notificationStateSchema,
  phoneUserSchema,
  type FlexibleBody,
  type TemplateBody,
} from '../../platform/notifications/schema';
import type { notificationsOperations } from '../contracts/notifications';
import { AppFailure } from '../errors';
import { runningEmulator, type AppContext, type AreaHandlers } from './context';

export function notificationsHandlers(
  ctx: AppContext,
): AreaHandlers<typeof notificationsOperations> {
  const admin = () =>
    new PlatformHttp(
      { baseUrl: `${runningEmulator(ctx).adminUrl}/notifications` },
      { maxRetries: 0 },
    );
  const client = async () =>
    new NotificationsClient(await ctx.envs.activeTarget(), ctx.options.http);
  const sent = { sent: true as const };
  return {
    'notifications:hashPhoneNumber': async ({ phoneNumber, defaultCountry }) => {
      try {
        return await hashPhoneNumber(phoneNumber, defaultCountry);
      } catch (err) {
        if (err instanceof PhoneNumberError) throw AppFailure.field('phoneNumber', err.message);
        throw err;
      }
    },
    // The contract checks only the types; the platform's answer to the limits is what to show.
    'notifications:sendTemplate': async ({ deliveryTag, ...body }) => {
      await (await client()).sendTemplate(body as TemplateBody, deliveryTag || undefined);
      return sent;
    },
    'notifications:sendFlexible': async ({ deliveryTag, ...body }) => {
      await (await client()).sendFlexible(body as FlexibleBody, deliveryTag || undefined);
      return sent;
    },
    'notifications:count': async ({ kind, date }) => (await client()).count(kind, date),
    'notifications:emulatorState': () =>
      admin().request('GET', '/state', { schema: notificationStateSchema }),
    'notifications:addPhoneUser': (input) =>
      admin().request('PUT', '/users', { body: input, schema: phoneUserSchema }),
  };
}
