// Service messages console (docs/platform-api.md#service-messages): issue a notification token,
// send with it, and the emulator's templates and the messages it "delivered".
import { z } from 'zod';
import {
  notificationTokenSchema,
  sentServiceMessageSchema,
  templateSchema,
} from '../../platform/service-messages/schema';
import { none, op } from './op';

/** Sent instead of the environment's token, e.g. a stateless token for a mini app channel. */
const channelAccessToken = z.string().trim().min(1).optional();

export const serviceMessagesOperations = {
  'serviceMessages:issueToken': op(
    z.object({ embedAccessToken: z.string().trim().min(1, 'is required'), channelAccessToken }),
    notificationTokenSchema,
  ),
  'serviceMessages:send': op(
    z.object({
      templateName: z.string().trim().min(1, 'is required'),
      params: z.record(z.string(), z.string()),
      notificationToken: z.string().trim().min(1, 'is required'),
      channelAccessToken,
    }),
    notificationTokenSchema,
  ),
  'serviceMessages:listTemplates': op(none, z.array(templateSchema)),
  'serviceMessages:listSent': op(none, z.array(sentServiceMessageSchema)),
} as const;
