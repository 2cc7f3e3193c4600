// The scenario-set editor's model: the draft is the JSON document that will be PUT, edited
// either as text or through the form. Both views read and write this one value, so they never
// disagree; the form shows for each trigger and action type only the fields that type takes.
import { fieldErrors, fieldPath, type FieldError } from '../../core/platform/field-errors';
import {
  scenarioSetInputSchema,
  TRIGGER_TYPES,
  type ScenarioSet,
  type ScenarioSetInput,
  type TriggerType,
} from '../../core/platform/things/schema';
import {
  ACTION_FIELD_KEYS,
  ACTION_FIELDS,
  type ActionField,
} from '../../core/platform/things/actions/fields';
import {
  actionDescriptor,
  actionDescriptors,
  type ActionType,
} from '../../core/platform/things/actions/registry';
import { lintAgainstBoard, type BoardGatt } from '../../core/scenario/board-lint';
import { setRules } from '../../core/scenario/rules';
import type { Finding } from '../../core/scenario/schema';
import { errorMessage } from '../../core/errors/message';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
export type JsonPath = readonly (string | number)[];

const TRIGGER_FIELDS = {
  IMMEDIATE: [],
  BLE_NOTIFICATION: ['serviceUuid', 'characteristicUuid'],
} as const satisfies Record<TriggerType, readonly string[]>;
export type TriggerField = (typeof TRIGGER_FIELDS)[TriggerType][number];

const ALL_TRIGGER_FIELDS: readonly TriggerField[] = ['serviceUuid', 'characteristicUuid'];
/** Keys the API adds to a saved set; dropped on import so a GET response can be re-used. */
const SERVER_KEYS = ['productId', 'revision', 'createdAt', 'updatedAt'];

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function getIn(root: Json | undefined, path: JsonPath): Json | undefined {
  let node = root;
  for (const key of path) {
    if (typeof key === 'number') node = Array.isArray(node) ? node[key] : undefined;
    else node = isObject(node) ? node[key] : undefined;
  }
  return node;
}

/**
 * A copy of `root` with `value` at `path`; `undefined` removes the key (or array element).
 * Missing containers on the way are created as objects or arrays as the key suggests.
 */
export function setIn(root: Json | undefined, path: JsonPath, value: Json | undefined): Json {
  const [key, ...rest] = path;
  if (key === undefined) return value ?? null;
  if (typeof key === 'number') {
    const list = Array.isArray(root) ? [...root] : [];
    if (rest.length === 0 && value === undefined) list.splice(key, 1);
    else list[key] = setIn(list[key], rest, value);
    return list;
  }
  const object: JsonObject = isObject(root) ? { ...root } : {};
  if (rest.length === 0 && value === undefined) delete object[key];
  else object[key] = setIn(object[key], rest, value);
  return object;
}

/** A copy of the array at `path` with the element at `from` moved to `to`. */
export function moveIn(root: Json | undefined, path: JsonPath, from: number, to: number): Json {
  const list = getIn(root, path);
  if (!Array.isArray(list) || to < 0 || to >= list.length) return root ?? null;
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item ?? null);
  return setIn(root, path, next);
}

function isTriggerType(value: Json | undefined): value is TriggerType {
  return typeof value === 'string' && (TRIGGER_TYPES as readonly string[]).includes(value);
}

/** The fields the form shows: those the type takes, plus any others the JSON carries. */
export function triggerFieldsShown(trigger: Json | undefined): TriggerField[] {
  const type = isObject(trigger) ? trigger.type : undefined;
  const allowed: readonly TriggerField[] = isTriggerType(type) ? TRIGGER_FIELDS[type] : [];
  return ALL_TRIGGER_FIELDS.filter(
    (f) => allowed.includes(f) || (isObject(trigger) && trigger[f] !== undefined),
  );
}

/** The fields an action of its type takes (none for a type no one registered). */
function actionFields(action: Json | undefined): readonly ActionField[] {
  const type = isObject(action) ? action.type : undefined;
  return (typeof type === 'string' && actionDescriptor(type)?.fields) || [];
}

/** The action types the form offers, as it names them. */
export function actionChoices(): { value: ActionType; label: string }[] {
  return actionDescriptors().map(({ type, label }) => ({ value: type, label }));
}

export function actionFieldsShown(action: Json | undefined): ActionField[] {
  const allowed = actionFields(action);
  return ACTION_FIELD_KEYS.filter(
    (f) => allowed.includes(f) || (isObject(action) && action[f] !== undefined),
  );
}

export function isAllowedActionField(action: Json | undefined, field: ActionField): boolean {
  return actionFields(action).includes(field);
}

export function isAllowedTriggerField(trigger: Json | undefined, field: TriggerField): boolean {
  const type = isObject(trigger) ? trigger.type : undefined;
  return isTriggerType(type) && (TRIGGER_FIELDS[type] as readonly string[]).includes(field);
}

export function newAction(type: ActionType): JsonObject {
  return withActionType(undefined, type);
}

export function newScenario(): JsonObject {
  return { trigger: { type: 'IMMEDIATE' }, actions: [] };
}

/** Switching type keeps what the new type shares with the old (GATT UUIDs) and drops the rest. */
export function withActionType(action: Json | undefined, type: ActionType): JsonObject {
  const next: JsonObject = { type };
  for (const field of actionDescriptor(type)?.fields ?? []) {
    const kept = isObject(action) ? action[field] : undefined;
    next[field] = kept ?? ACTION_FIELDS[field].blank;
  }
  return next;
}

export function withTriggerType(trigger: Json | undefined, type: TriggerType): JsonObject {
  const next: JsonObject = { type };
  for (const field of TRIGGER_FIELDS[type]) {
    const kept = isObject(trigger) ? trigger[field] : undefined;
    next[field] = kept ?? '';
  }
  return next;
}

export function emptyDraft(): JsonObject {
  return { autoClose: false, suppressionInterval: 0, scenarios: [] };
}

export function draftFromSet(set: ScenarioSet): Json {
  const { autoClose, suppressionInterval, scenarios } = set;
  // Through JSON so optional keys the parser left undefined disappear.
  return JSON.parse(
    JSON.stringify({
      autoClose,
      suppressionInterval,
      scenarios: scenarios.map(({ id, trigger, actions }) => ({ id, trigger, actions })),
    }),
  ) as Json;
}

export function formatJson(value: Json): string {
  return JSON.stringify(value, null, 2);
}

type ParsedText = { ok: true; value: Json } | { ok: false; message: string };

export function parseJsonText(text: string): ParsedText {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}

/** An imported file may be an exported draft or a set as the API returns it. */
export function withoutServerKeys(value: Json): Json {
  if (!isObject(value)) return value;
  const copy = { ...value };
  for (const key of SERVER_KEYS) delete copy[key];
  return copy;
}

/**
 * `errors` block Save: what the PUT rejects, then the set rules. `warnings` do not: the rules
 * that are advice, and the lint against the board on the bench. `input` is there whenever the
 * PUT would take the draft (a dry run can use it even when a rule says it should not be saved).
 */
export type Validation =
  | { ok: true; input: ScenarioSetInput; errors: []; warnings: FieldError[] }
  | { ok: false; input?: ScenarioSetInput; errors: FieldError[]; warnings: FieldError[] };

export function validateDraft(value: Json, board?: BoardGatt): Validation {
  const parsed = scenarioSetInputSchema.safeParse(value);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error), warnings: [] };
  const findings = [
    ...setRules(parsed.data),
    ...(board ? lintAgainstBoard(parsed.data, board) : []),
  ];
  const of = (severity: Finding['severity']) =>
    findings
      .filter((f) => f.severity === severity)
      .map(({ field, message }) => ({ field, message }));
  const errors = of('error');
  const warnings = of('warning');
  return errors.length
    ? { ok: false, input: parsed.data, errors, warnings }
    : { ok: true, input: parsed.data, errors: [], warnings };
}

export function errorsByField(errors: readonly FieldError[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { field, message } of errors) map.set(field, [...(map.get(field) ?? []), message]);
  return map;
}

export function pathKey(path: JsonPath): string {
  return fieldPath(path) || '(body)';
}

/** Every path the form has a place to show an error at, given what the draft holds. */
export function formPaths(value: Json): Set<string> {
  const paths = new Set<string>(['autoClose', 'suppressionInterval', 'scenarios']);
  const scenarios = isObject(value) ? value.scenarios : undefined;
  if (!Array.isArray(scenarios)) return paths;
  scenarios.forEach((scenario, i) => {
    const base: JsonPath = ['scenarios', i];
    paths.add(pathKey(base));
    paths.add(pathKey([...base, 'id']));
    const trigger = getIn(scenario, ['trigger']);
    paths.add(pathKey([...base, 'trigger']));
    paths.add(pathKey([...base, 'trigger', 'type']));
    for (const f of triggerFieldsShown(trigger)) paths.add(pathKey([...base, 'trigger', f]));
    paths.add(pathKey([...base, 'actions']));
    const actions = getIn(scenario, ['actions']);
    if (!Array.isArray(actions)) return;
    actions.forEach((action, j) => {
      const at: JsonPath = [...base, 'actions', j];
      paths.add(pathKey(at));
      paths.add(pathKey([...at, 'type']));
      for (const f of actionFieldsShown(action)) paths.add(pathKey([...at, f]));
    });
  });
  return paths;
}
