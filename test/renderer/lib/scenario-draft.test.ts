import { describe, expect, it } from 'vitest';
import {
  actionFieldsShown,
  draftFromSet,
  emptyDraft,
  errorsByField,
  formPaths,
  getIn,
  moveIn,
  newAction,
  parseJsonText,
  setIn,
  triggerFieldsShown,
  validateDraft,
  withActionType,
  withoutServerKeys,
} from '../../../src/renderer/lib/scenario-draft';

const SERVICE = '0000180f-0000-1000-8000-00805f9b34fb';
const LEVEL = '00002a19-0000-1000-8000-00805f9b34fb';

describe('getIn / setIn / moveIn', () => {
  it('reads and writes along a path without touching the original', () => {
    const root = { scenarios: [{ actions: [{ type: 'SLEEP' }] }] };
    const next = setIn(root, ['scenarios', 0, 'actions', 0, 'sleepMillis'], 50);
    expect(getIn(next, ['scenarios', 0, 'actions', 0, 'sleepMillis'])).toBe(50);
    expect(getIn(root, ['scenarios', 0, 'actions', 0, 'sleepMillis'])).toBeUndefined();
  });

  it('creates missing containers as the key suggests', () => {
    expect(setIn(undefined, ['a', 0, 'b'], true)).toEqual({ a: [{ b: true }] });
  });

  it('removes a key or an array element when the value is undefined', () => {
    expect(setIn({ a: 1, b: 2 }, ['a'], undefined)).toEqual({ b: 2 });
    expect(setIn({ list: [1, 2, 3] }, ['list', 1], undefined)).toEqual({ list: [1, 3] });
  });

  it('moves an element within the list, and ignores a move past either end', () => {
    const root = { list: ['a', 'b', 'c'] };
    expect(moveIn(root, ['list'], 0, 2)).toEqual({ list: ['b', 'c', 'a'] });
    expect(moveIn(root, ['list'], 0, -1)).toBe(root);
    expect(moveIn(root, ['list'], 2, 3)).toBe(root);
  });
});

describe('the fields the form shows', () => {
  it('shows what the type takes, plus any other field the JSON carries', () => {
    expect(actionFieldsShown({ type: 'SLEEP' })).toEqual(['sleepMillis']);
    expect(actionFieldsShown({ type: 'SLEEP', data: 'AQ==' })).toEqual(['sleepMillis', 'data']);
    expect(triggerFieldsShown({ type: 'IMMEDIATE' })).toEqual([]);
    expect(triggerFieldsShown({ type: 'BLE_NOTIFICATION' })).toEqual([
      'serviceUuid',
      'characteristicUuid',
    ]);
  });

  it('a new action has every field its type takes', () => {
    expect(newAction('GATT_WRITE')).toEqual({
      type: 'GATT_WRITE',
      serviceUuid: '',
      characteristicUuid: '',
      data: '',
    });
  });

  it('switching type keeps the UUIDs both types take and drops the rest', () => {
    const write = {
      type: 'GATT_WRITE',
      serviceUuid: SERVICE,
      characteristicUuid: LEVEL,
      data: 'AQ==',
    };
    expect(withActionType(write, 'GATT_READ')).toEqual({
      type: 'GATT_READ',
      serviceUuid: SERVICE,
      characteristicUuid: LEVEL,
    });
    expect(withActionType(write, 'SLEEP')).toEqual({ type: 'SLEEP', sleepMillis: 100 });
  });
});

describe('text and files', () => {
  it('parses JSON text, or says why not', () => {
    expect(parseJsonText('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    const bad = parseJsonText('{"a":');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).not.toBe('');
  });

  it('drops the keys the API adds, so a saved set can be imported', () => {
    expect(
      withoutServerKeys({
        productId: 'p',
        revision: 3,
        createdAt: 'x',
        updatedAt: 'y',
        scenarios: [],
      }),
    ).toEqual({ scenarios: [] });
  });

  it('a saved set becomes a draft without the keys the parser left undefined', () => {
    const draft = draftFromSet({
      productId: 'p',
      autoClose: true,
      suppressionInterval: 5,
      scenarios: [
        { trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP', sleepMillis: 10 }] },
      ],
    } as never);
    expect(draft).toEqual({
      autoClose: true,
      suppressionInterval: 5,
      scenarios: [
        { trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP', sleepMillis: 10 }] },
      ],
    });
  });
});

describe('validateDraft', () => {
  const oneSleep = {
    ...emptyDraft(),
    scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP', sleepMillis: 10 }] }],
  };

  it('takes a set the PUT would take', () => {
    const result = validateDraft(oneSleep);
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.input?.scenarios).toHaveLength(1);
  });

  it('names the field the PUT would reject', () => {
    const result = validateDraft(setIn(oneSleep, ['autoClose'], 'yes'));
    expect(result.ok).toBe(false);
    expect([...errorsByField(result.errors).keys()]).toContain('autoClose');
  });
});

describe('formPaths', () => {
  it('lists a place for every field the draft shows', () => {
    const paths = formPaths({
      ...emptyDraft(),
      scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP' }] }],
    });
    expect(paths).toContain('scenarios[0].trigger.type');
    expect(paths).toContain('scenarios[0].actions[0].sleepMillis');
    expect(paths).not.toContain('scenarios[0].actions[0].data');
  });
});
