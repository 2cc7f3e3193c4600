// Notification messages console (docs/platform-api.md#notifications): hash a phone number, send
// template and flexible messages to the hash, read the daily counts; on the emulator, seed phone
// users.
import { z } from 'zod';
import { requiredText as required } from './fields';
import {
  countSchema,
  NOTIFICATION_KINDS,
  notificationStateSchema,
  phoneUserInputSchema,
  phoneUserSchema,
} from '../../platform/notifications/schema';
import { none, op } from './op';

const sent = z.object({ sent: z.literal(true) });
/** Limits are left to the platform, so the console shows the platform's own answer to them. */
const deliveryTag = z.string().optional();

export const notificationsOperations = {
  'notifications:hashPhoneNumber': op(
    z.object({
      phoneNumber: required,
      defaultCountry: z
        .string()
        .regex(/^[A-Z]{2}$/, 'must be an ISO country code such as JP')
        .optional(),
    }),
    z.object({ e164: z.string(), country: z.string().optional(), hash: z.string() }),
  ),
  'notifications:sendTemplate': op(
    z.object({
      to: required,
      templateKey: required,
      body: z.record(z.string(), z.unknown()).optional(),
      deliveryTag,
    }),
    sent,
  ),
  'notifications:sendFlexible': op(
    z.object({ to: required, messages: z.array(z.record(z.string(), z.unknown())), deliveryTag }),
    sent,
  ),
  'notifications:count': op(
    z.object({ kind: z.enum(NOTIFICATION_KINDS), date: required }),
    countSchema,
  ),
  'notifications:emulatorState': op(none, notificationStateSchema),
  'notifications:addPhoneUser': op(phoneUserInputSchema, phoneUserSchema),
} as const;
