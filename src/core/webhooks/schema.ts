// Browser-safe shape of a webhook the app's receiver took in.
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
