// The fields a scenario action can carry (docs/platform-api.md#things-scenario-sets), each with
// its rule, its words and how the form edits it. An action type names the fields it takes; every
// other field is refused for it. Browser-safe.
import { z } from 'zod';
import { sleepMillisSchema } from '../../../bounds';

const UUID_128 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Longest value one GATT write can carry (ATT attribute value limit). */
const GATT_VALUE_MAX_BYTES = 512;

/** Bytes a (valid, padded) base64 string decodes to. */
export function base64ByteLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

export const uuid128 = z
  .string({ error: 'must be a string' })
  .regex(UUID_128, 'must be a 128-bit UUID');

/** The GATT value rule: checked once the field is known to be a string the type takes. */
function gattValueProblem(data: string): string | undefined {
  // Said apart: an empty field is not a badly written one (docs/decisions.md, "Forms that say
  // why").
  if (data.length === 0) return 'has no bytes: a write carries at least one';
  if (!BASE64.test(data)) return 'must be base64';
  if (base64ByteLength(data) > GATT_VALUE_MAX_BYTES)
    return `must decode to at most ${GATT_VALUE_MAX_BYTES} bytes`;
  return undefined;
}

interface ActionFieldSpec {
  /** Its rule for any value. */
  schema: z.ZodType;
  /** Its rule for a string value once an action type takes it: a problem in words. */
  problem?: (value: string) => string | undefined;
  /** What people call it ("Sleep time"); the form adds `unit` in brackets. */
  words: string;
  unit?: string;
  /** How the form edits it, and what a new action holds in it. */
  input: 'number' | 'uuid' | 'bytes';
  blank: number | string;
}

/** In the order the rules report them. */
export const ACTION_FIELDS = {
  sleepMillis: {
    schema: sleepMillisSchema,
    words: 'Sleep time',
    unit: 'ms',
    input: 'number',
    blank: 100,
  },
  serviceUuid: { schema: uuid128, words: 'Service UUID', input: 'uuid', blank: '' },
  characteristicUuid: { schema: uuid128, words: 'Characteristic UUID', input: 'uuid', blank: '' },
  data: {
    schema: z.string({ error: 'must be a string' }),
    problem: gattValueProblem,
    words: 'Data',
    input: 'bytes',
    blank: '',
  },
} as const satisfies Record<string, ActionFieldSpec>;

export type ActionField = keyof typeof ACTION_FIELDS;
export const ACTION_FIELD_KEYS = Object.keys(ACTION_FIELDS) as ActionField[];

/** An action's fields as a set holds them. */
export type ActionFields = {
  sleepMillis?: number;
  serviceUuid?: string;
  characteristicUuid?: string;
  data?: string;
};

/** The form's label: "Sleep time (ms)". */
export function actionFieldLabel(field: ActionField): string {
  const spec: ActionFieldSpec = ACTION_FIELDS[field];
  return spec.unit ? `${spec.words} (${spec.unit})` : spec.words;
}

/** What is wrong with a value of `field` once an action type takes it, if anything. */
export function actionFieldProblem(field: ActionField, value: unknown): string | undefined {
  const spec: ActionFieldSpec = ACTION_FIELDS[field];
  return typeof value === 'string' ? spec.problem?.(value) : undefined;
}
