// A field's path (`scenarios[0].actions[1].sleepMillis`) as a person names it ("Sleep time
// (scenario 1, action 2)"): the words the app shows wherever it lists a field by itself. The
// path stays what the API and the emulator's `details[].property` carry.
import { fieldPath } from './field-errors';
import { ACTION_FIELD_KEYS, ACTION_FIELDS } from './things/actions/fields';

/** Words for the last key of a path; a key not listed is shown as its own words split apart. */
const FIELD_WORDS: Record<string, string> = {
  autoClose: 'Auto close',
  suppressionInterval: 'Suppression interval',
  scenarios: 'Scenarios',
  trigger: 'Trigger',
  actions: 'Actions',
  type: 'Type',
  // sleepMillis, serviceUuid, characteristicUuid, data: a scenario action's fields name themselves.
  ...Object.fromEntries(ACTION_FIELD_KEYS.map((key) => [key, ACTION_FIELDS[key].words])),
  psdiServiceUuid: 'PSDI service UUID',
  psdiCharacteristicUuid: 'PSDI characteristic UUID',
  minRssi: 'Minimum RSSI',
  rssi: 'RSSI',
  name: 'Name',
  productId: 'Product',
  '(body)': 'The request',
  '(JSON syntax)': 'The JSON',
};

/** Words for the list an index counts in: `scenarios[0]` is "scenario 1". */
const ITEM_WORDS: Record<string, string> = {
  scenarios: 'scenario',
  actions: 'action',
  boards: 'board',
  services: 'service',
  characteristics: 'characteristic',
};

function splitWords(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

const INDEX = /^\[(\d+)\]$/;

/** `scenarios[0].actions[1].sleepMillis` → "Sleep time (scenario 1, action 2)". */
export function fieldInWords(field: string | readonly PropertyKey[]): string {
  const path = typeof field === 'string' ? field : fieldPath(field);
  if (FIELD_WORDS[path]) return FIELD_WORDS[path];
  const places: string[] = [];
  let last = '';
  let lastIndex: number | undefined;
  // `a[0].b` splits into `a`, `[0]`, `b`.
  for (const part of path.split(/\.|(?=\[)/)) {
    const index = INDEX.exec(part);
    if (index) {
      lastIndex = Number(index[1]);
      places.push(`${ITEM_WORDS[last] ?? 'item'} ${lastIndex + 1}`);
    } else if (part !== '') {
      last = part;
      lastIndex = undefined;
    }
  }
  // A path ending at an item (`scenarios[0].actions[1]`) names that item itself.
  if (lastIndex !== undefined) {
    const item = places.pop() ?? '';
    const name = item.charAt(0).toUpperCase() + item.slice(1);
    return places.length ? `${name} (${places.join(', ')})` : name;
  }
  const name = FIELD_WORDS[last] ?? splitWords(last || path);
  return places.length ? `${name} (${places.join(', ')})` : name;
}

/**
 * A field's problem as a sentence: "Sleep time (scenario 1, action 2) must be at most 20". A
 * message that is already a sentence (it starts with a capital letter) is kept as it is.
 */
export function fieldSentence(name: string, message: string): string {
  if (/^[A-Z]/.test(message)) return message;
  return `${name} ${message}`;
}

/** An input's label as the field's name: its unit in brackets dropped, as the rule says it. */
export function labelSentence(label: string, message: string): string {
  return fieldSentence(label.replace(/\s*\([^)]*\)\s*$/, ''), message);
}
