// In-app purchase console (docs/platform-api.md#iap): the emulator's catalogue, users and orders,
// the server API (reserve, webhook history), and completing or refunding an order.
import { z } from 'zod';
import {
  DELIVERY_STATUSES,
  historyPageSchema,
  iapUserStateSchema,
  orderSchema,
  productSchema,
  reserveResultSchema,
  settledOrderSchema,
} from '../../platform/iap/schema';
import { requiredId } from '../../bounds';
import { userId } from './fields';
import { none, op } from './op';

const orderId = requiredId;

export const iapOperations = {
  'iap:getSetup': op(
    none,
    z.object({
      channelId: z.string(),
      webhookUrl: z.string().nullable(),
      products: z.array(productSchema),
    }),
  ),
  'iap:putProduct': op(productSchema, productSchema),
  'iap:deleteProduct': op(
    z.object({ productId: requiredId }),
    z.object({ deleted: z.literal(true) }),
  ),
  'iap:getUser': op(z.object({ userId }), iapUserStateSchema),
  'iap:setUser': op(
    z.object({ userId, blocked: z.boolean().optional(), termsAgreed: z.boolean().optional() }),
    iapUserStateSchema,
  ),
  /** Loose on purpose: the platform's own VALIDATION_ERROR is what the console shows. */
  'iap:reserve': op(
    z.object({
      accessToken: z.string().trim().min(1, 'is required: the user access token'),
      clientIp: z.string(),
      clientOs: z.string(),
      productId: z.string(),
      shopProductName: z.string(),
    }),
    reserveResultSchema,
  ),
  'iap:listOrders': op(none, z.array(orderSchema)),
  'iap:completeOrder': op(z.object({ orderId }), settledOrderSchema),
  'iap:refundOrder': op(z.object({ orderId }), settledOrderSchema),
  'iap:history': op(
    z.object({
      startEpochSeconds: z.number().int().optional(),
      endEpochSeconds: z.number().int().optional(),
      cursor: z.string().optional(),
      pageSize: z.number().int().optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
    }),
    historyPageSchema,
  ),
} as const;
