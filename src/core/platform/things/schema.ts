// Device service resources and the scenario-set rules of docs/platform-api.md#things-scenario-sets.
// Browser-safe: the emulator's PUT, the contract and the editor's live validation all use these
// schemas.
import { z } from 'zod';
import { sleepMillisSchema, suppressionIntervalSchema } from '../../bounds';

export const TRIAL_PRODUCT_LIMIT = 10;
/**
 * The PSDI service and characteristic the platform hands out with every trial product, the
 * pair its starter firmware serves (docs/decisions.md, Device service).
 */
export const PLATFORM_PSDI_SERVICE_UUID = 'e625601e-9e55-4597-a598-76018a0d293d';
export const PLATFORM_PSDI_CHARACTERISTIC_UUID = '26e2b12b-85f0-4f3f-9fdd-91d114270e6e';
const UUID_128 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Longest value one GATT write can carry (ATT attribute value limit). */
const GATT_VALUE_MAX_BYTES = 512;

export const TRIGGER_TYPES = ['IMMEDIATE', 'BLE_NOTIFICATION'] as const;
export const ACTION_TYPES = ['SLEEP', 'GATT_READ', 'GATT_WRITE'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export type ActionType = (typeof ACTION_TYPES)[number];

/** Bytes a (valid, padded) base64 string decodes to. */
export function base64ByteLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

// ---- responses: parsed tolerantly (docs/platform-api.md#conventions) ----

export const trialProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  channelId: z.number(),
  serviceUuid: z.string(),
  psdiServiceUuid: z.string(),
  psdiCharacteristicUuid: z.string(),
});
export type TrialProduct = z.infer<typeof trialProductSchema>;

export const deviceSchema = z.object({
  id: z.string(),
  productId: z.string(),
  productSpecificDeviceId: z.string(),
});
export type Device = z.infer<typeof deviceSchema>;

export const linksSchema = z.object({
  items: z.array(
    z.object({ userId: z.string(), device: deviceSchema, deviceDisplayName: z.string() }),
  ),
});
export type Links = z.infer<typeof linksSchema>;

const triggerOut = z.object({
  type: z.string(),
  serviceUuid: z.string().optional(),
  characteristicUuid: z.string().optional(),
});
const actionOut = z.object({
  type: z.string(),
  sleepMillis: z.number().optional(),
  serviceUuid: z.string().optional(),
  characteristicUuid: z.string().optional(),
  data: z.string().optional(),
});
export const scenarioSetSchema = z.object({
  productId: z.string(),
  autoClose: z.boolean(),
  suppressionInterval: z.number(),
  revision: z.number(),
  scenarios: z.array(
    z.object({ id: z.string(), trigger: triggerOut, actions: z.array(actionOut) }),
  ),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ScenarioSet = z.infer<typeof scenarioSetSchema>;

// ---- requests: every rule of docs/platform-api.md#things-scenario-sets ----

/** Longest trial product name (docs/decisions.md); the create form's box takes no more. */
export const PRODUCT_NAME_MAX = 100;

export const createTrialProductSchema = z.object({
  name: z
    .string({ error: 'is required and must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(PRODUCT_NAME_MAX, `must be at most ${PRODUCT_NAME_MAX} characters`),
});

const uuid128 = z.string({ error: 'must be a string' }).regex(UUID_128, 'must be a 128-bit UUID');

function forbid(ctx: z.RefinementCtx, value: unknown, key: string, rule: string): void {
  if (value !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: rule });
}

function requireField(ctx: z.RefinementCtx, value: unknown, key: string, rule: string): boolean {
  if (value === undefined) ctx.addIssue({ code: 'custom', path: [key], message: rule });
  return value !== undefined;
}

const triggerIn = z
  .object(
    {
      type: z.enum(TRIGGER_TYPES, { error: `must be one of ${TRIGGER_TYPES.join(', ')}` }),
      serviceUuid: uuid128.optional(),
      characteristicUuid: uuid128.optional(),
    },
    { error: 'is required and must be an object' },
  )
  .superRefine((t, ctx) => {
    for (const key of ['serviceUuid', 'characteristicUuid'] as const) {
      if (t.type === 'BLE_NOTIFICATION')
        requireField(ctx, t[key], key, 'is required when trigger.type is BLE_NOTIFICATION');
      else forbid(ctx, t[key], key, 'is only allowed when trigger.type is BLE_NOTIFICATION');
    }
  });

const actionIn = z
  .object(
    {
      type: z.enum(ACTION_TYPES, { error: `must be one of ${ACTION_TYPES.join(', ')}` }),
      sleepMillis: sleepMillisSchema.optional(),
      serviceUuid: uuid128.optional(),
      characteristicUuid: uuid128.optional(),
      data: z.string({ error: 'must be a string' }).optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((a, ctx) => {
    if (a.type === 'SLEEP')
      requireField(ctx, a.sleepMillis, 'sleepMillis', 'is required for SLEEP');
    else forbid(ctx, a.sleepMillis, 'sleepMillis', 'is only allowed for SLEEP');

    const gatt = a.type === 'GATT_READ' || a.type === 'GATT_WRITE';
    for (const key of ['serviceUuid', 'characteristicUuid'] as const) {
      if (gatt) requireField(ctx, a[key], key, `is required for ${a.type}`);
      else forbid(ctx, a[key], key, 'is only allowed for GATT_READ and GATT_WRITE');
    }

    if (a.type !== 'GATT_WRITE') {
      forbid(ctx, a.data, 'data', 'is only allowed for GATT_WRITE');
    } else if (
      requireField(ctx, a.data, 'data', 'is required for GATT_WRITE') &&
      a.data !== undefined
    ) {
      if (!BASE64.test(a.data) || a.data.length === 0)
        ctx.addIssue({ code: 'custom', path: ['data'], message: 'must be non-empty base64' });
      else if (base64ByteLength(a.data) > GATT_VALUE_MAX_BYTES)
        ctx.addIssue({
          code: 'custom',
          path: ['data'],
          message: `must decode to at most ${GATT_VALUE_MAX_BYTES} bytes`,
        });
    }
  });

const scenarioIn = z.object(
  {
    id: z.string({ error: 'must be a string' }).optional(),
    trigger: triggerIn,
    actions: z.array(actionIn, { error: 'is required and must be an array' }),
  },
  { error: 'must be an object' },
);

export const scenarioSetInputSchema = z.object(
  {
    autoClose: z.boolean({ error: 'is required and must be true or false' }),
    suppressionInterval: suppressionIntervalSchema,
    scenarios: z.array(scenarioIn, { error: 'is required and must be an array' }),
  },
  { error: 'must be a JSON object' },
);
export type ScenarioSetInput = z.infer<typeof scenarioSetInputSchema>;
