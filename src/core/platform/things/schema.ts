// Device service resources and the scenario-set rules of docs/platform-api.md#things-scenario-sets.
// Browser-safe: the emulator's PUT, the contract and the editor's live validation all use these
// schemas.
import { z } from 'zod';
import { suppressionIntervalSchema } from '../../bounds';
import { ACTION_FIELD_KEYS, ACTION_FIELDS, actionFieldProblem, uuid128 } from './actions/fields';
import { actionDescriptor, actionDescriptors, actionTypes, isActionType } from './actions/registry';

export const TRIAL_PRODUCT_LIMIT = 10;
/**
 * The PSDI service and characteristic the platform hands out with every trial product, the
 * pair its starter firmware serves (docs/decisions.md, Device service).
 */
export const PLATFORM_PSDI_SERVICE_UUID = 'e625601e-9e55-4597-a598-76018a0d293d';
export const PLATFORM_PSDI_CHARACTERISTIC_UUID = '26e2b12b-85f0-4f3f-9fdd-91d114270e6e';

export const TRIGGER_TYPES = ['IMMEDIATE', 'BLE_NOTIFICATION'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/**
 * A registered action type (actions/registry.ts). The rule names the types registered when it is
 * checked, as the enum it stands for would.
 */
export const actionTypeSchema = z.custom<string>(isActionType, {
  error: () => `must be one of ${actionTypes().join(', ')}`,
  abort: true,
});

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

/** "A", "A and B", "A, B and C". */
function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const actionIn = z
  .object(
    {
      type: actionTypeSchema,
      sleepMillis: ACTION_FIELDS.sleepMillis.schema.optional(),
      serviceUuid: ACTION_FIELDS.serviceUuid.schema.optional(),
      characteristicUuid: ACTION_FIELDS.characteristicUuid.schema.optional(),
      data: ACTION_FIELDS.data.schema.optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((a, ctx) => {
    const takes = actionDescriptor(a.type)?.fields ?? [];
    for (const key of ACTION_FIELD_KEYS) {
      const value = a[key];
      if (!takes.includes(key)) {
        const allowedFor = actionDescriptors().filter((d) => d.fields.includes(key));
        forbid(ctx, value, key, `is only allowed for ${listed(allowedFor.map((d) => d.type))}`);
        continue;
      }
      if (!requireField(ctx, value, key, `is required for ${a.type}`)) continue;
      const problem = actionFieldProblem(key, value);
      if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
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
