// Browser-safe shapes of webhooks: one the emulator delivered (its delivery log) and one the app's
// receiver took in.
import { z } from 'zod';

export const receivedWebhookSchema = z.object({
  id: z.number(),
  /** Wall-clock ms. */
  receivedAt: z.number(),
  path: z.string(),
  contentType: z.string().optional(),
  signatureHeader: z.string().optional(),
  /** Only verified deliveries are kept (docs/decisions.md, "Hardening"). */
  signature: z.literal('valid'),
  /** The channel whose secret verified it. */
  channelId: z.string(),
  body: z.string(),
  /** The body parsed as JSON, when it is JSON. */
  json: z.unknown().optional(),
  /** `events[].type` of a platform envelope, for the list view. */
  eventTypes: z.array(z.string()),
  /** What the receiver answered. */
  status: z.number(),
});
export type ReceivedWebhook = z.infer<typeof receivedWebhookSchema>;

/** One delivery of a webhook by the emulator, as its delivery log keeps it. */
export const webhookDeliverySchema = z.object({
  id: z.number(),
  channelId: z.string(),
  /** What sent it, e.g. `iap.purchaseComplete`, `module.attached`. */
  kind: z.string(),
  url: z.string().nullable(),
  /** The exact JSON body that was signed and sent. */
  body: z.string(),
  signature: z.string(),
  /** Virtual-clock ms when delivery started. */
  startedAt: z.number(),
  finishedAt: z.number().optional(),
  status: z.enum(['PENDING', 'SUCCESS', 'FAILED']),
  responseStatus: z.number().optional(),
  error: z.string().optional(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
