// Webhooks: the app's own receiver (what arrived, verified or not) and the embedded emulator's
// side (each channel's webhook URL, and every delivery it made).
import { z } from 'zod';
import { webhookUrlInputSchema } from '../../emulator/schema';
import { receivedWebhookSchema, webhookDeliverySchema } from '../../webhooks/schema';
import { none, op } from './op';

const webhookUrlSchema = z.object({ channelId: z.string(), url: z.string().nullable() });

export const webhooksOperations = {
  'webhooks:getReceiver': op(
    none,
    z.object({ url: z.string(), received: z.array(receivedWebhookSchema) }),
  ),
  'webhooks:clearReceived': op(none, z.object({ cleared: z.literal(true) })),
  'webhooks:listDeliveries': op(
    z.object({
      channelId: z.string().optional(),
      kind: z.string().optional(),
      limit: z.number().int().min(1).max(1000).default(100),
    }),
    z.array(webhookDeliverySchema),
  ),
  'webhooks:listUrls': op(none, z.array(webhookUrlSchema)),
  'webhooks:setUrl': op(webhookUrlInputSchema, webhookUrlSchema),
  /** Points an emulator channel's webhook URL at this app's receiver. */
  'webhooks:useReceiver': op(
    z.object({ channelId: webhookUrlInputSchema.shape.channelId }),
    webhookUrlSchema,
  ),
  /** An empty, signed envelope to the channel's URL, as the platform's URL check sends. */
  'webhooks:sendTest': op(
    z.object({ channelId: webhookUrlInputSchema.shape.channelId }),
    webhookDeliverySchema,
  ),
} as const;

export const webhooksEvents = {
  'webhooks:received': receivedWebhookSchema,
  'webhooks:delivered': webhookDeliverySchema,
} as const;
