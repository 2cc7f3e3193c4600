// In-app purchase (docs/platform-api.md#iap): reserve body rules, the error object and its
// codes, purchase and refund events, webhook history, and the emulator's catalogue and orders.
// Browser-safe.
import { z } from 'zod';
import { webhookDeliverySchema } from '../../webhooks/schema';

const SHOP_PRODUCT_NAME_MAX = 20;
export const HISTORY_WINDOW_SECONDS = 7 * 24 * 60 * 60;
const PAGE_SIZE_MAX = 100;
const CLIENT_OSES = ['ios', 'android'] as const;
export const DELIVERY_STATUSES = ['SUCCESS', 'FAILED'] as const;

export type IapErrorCode =
  | 'VALIDATION_ERROR'
  | 'WEBHOOK_URL_IS_NOT_SET'
  | 'PRODUCT_ID_NOT_FOUND'
  | 'BLOCKED_USER'
  | 'INTERNAL_SERVER_ERROR'
  | 'TERMS_AGREEMENT_ERROR'
  // Not in the platform's table; the emulator's choice for its 401, 403 and 429 answers.
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'TOO_MANY_REQUESTS';

export interface IapErrorBody {
  errorCode: string;
  message: string;
  details: { message: string; property: string }[];
}

/** Letters, marks, digits, spaces and a few plain punctuation marks; no emoji or symbols. */
const SHOP_NAME_ALLOWED = /^[\p{L}\p{M}\p{N} \u3000\-.,'()・]*$/u;

export const reserveInputSchema = z.object(
  {
    clientIp: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' }),
    clientOs: z.enum(CLIENT_OSES, { error: "must be 'ios' or 'android'" }),
    productId: z.string({ error: 'is required and must be a string' }).min(1, 'is required'),
    shopProductName: z
      .string({ error: 'is required and must be a string' })
      .min(1, 'is required')
      // zod's max() counts code points; the limit is in UTF-16 units (a 𠮷 is two).
      .refine((name) => name.length <= SHOP_PRODUCT_NAME_MAX, {
        message: `must be at most ${SHOP_PRODUCT_NAME_MAX} UTF-16 characters`,
      })
      .regex(
        SHOP_NAME_ALLOWED,
        "must not contain emoji or symbols (letters, digits, spaces and - . , ' ( ) only)",
      ),
  },
  { error: 'must be a JSON object' },
);
export type ReserveInput = z.infer<typeof reserveInputSchema>;
export const reserveResultSchema = z.object({ orderId: z.string() });

const epochSeconds = z.coerce
  .number({ error: 'must be a number of seconds' })
  .int('must be whole seconds');

/** Query of the history endpoint; strings on the wire, numbers once parsed. */
export const historyQuerySchema = z.object({
  startEpochSeconds: epochSeconds.optional(),
  endEpochSeconds: epochSeconds.optional(),
  cursor: z.string().min(1, 'must not be empty').optional(),
  pageSize: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be between 1 and 100')
    .max(PAGE_SIZE_MAX, 'must be between 1 and 100')
    .optional(),
  status: z.enum(DELIVERY_STATUSES, { error: "must be 'SUCCESS' or 'FAILED'" }).optional(),
});
export type HistoryQuery = z.infer<typeof historyQuerySchema>;

const purchaseEventSchema = z.object({
  type: z.enum(['purchaseComplete', 'refundComplete']),
  orderId: z.string(),
  productId: z.string(),
  userId: z.string(),
  purchaseTimestamp: z.number(),
  channelId: z.string(),
});
export type PurchaseEvent = z.infer<typeof purchaseEventSchema>;

export const historyPageSchema = z.object({
  events: z.array(
    z.object({
      transactionType: z.string(),
      event: z.record(z.string(), z.unknown()),
      /** The emulator's additions: how delivery went, and when it started (epoch seconds). */
      status: z.string().optional(),
      deliveryStartedAt: z.number().optional(),
    }),
  ),
  nextCursor: z.string().nullable(),
});
export type HistoryPage = z.infer<typeof historyPageSchema>;

// ---- the emulator's catalogue, users and orders (admin API) ----

export const productSchema = z.object({
  productId: z.string().trim().min(1, 'is required').max(100),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as JPY'),
  price: z.number({ error: 'must be a number' }).nonnegative('must not be negative'),
  productName: z.string().trim().min(1, 'is required').max(100),
});
export type Product = z.infer<typeof productSchema>;

export const iapUserStateSchema = z.object({
  userId: z.string(),
  /** Judged fraudulent: reserve answers BLOCKED_USER. */
  blocked: z.boolean(),
  /** Agreed to the latest terms; otherwise reserve answers TERMS_AGREEMENT_ERROR. */
  termsAgreed: z.boolean(),
});
export type IapUserState = z.infer<typeof iapUserStateSchema>;

const ORDER_STATES = ['RESERVED', 'COMPLETED', 'REFUNDED'] as const;
export const orderSchema = z.object({
  orderId: z.string(),
  channelId: z.string(),
  userId: z.string(),
  productId: z.string(),
  shopProductName: z.string(),
  clientIp: z.string(),
  clientOs: z.string(),
  state: z.enum(ORDER_STATES),
  reservedAt: z.number(),
  /** Epoch seconds the payment was settled: the events' `purchaseTimestamp`. */
  purchaseTimestamp: z.number().nullable(),
  refundedAt: z.number().nullable(),
});
export type Order = z.infer<typeof orderSchema>;

/** An order the admin API completed or refunded, the event it made and how delivery went. */
export const settledOrderSchema = z.object({
  order: orderSchema,
  event: purchaseEventSchema,
  delivery: webhookDeliverySchema,
});
export type SettledOrder = z.infer<typeof settledOrderSchema>;
