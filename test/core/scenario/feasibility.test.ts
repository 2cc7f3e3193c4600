import { describe, expect, it } from 'vitest';
import { checkFeasibility, describeInfeasibility } from '../../../src/core/scenario/feasibility';
import type { RunnableSet } from '../../../src/core/scenario/schema';

const SERVICE = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const BUTTON = 'a3c80001-7f2e-4b61-9c0d-5e1f2a3b4c5d';
type Scenario = RunnableSet['scenarios'][number];
const immediate: Scenario = { id: 'a', trigger: { type: 'IMMEDIATE' }, actions: [] };
const onButton: Scenario = {
  id: 'b',
  trigger: { type: 'BLE_NOTIFICATION', serviceUuid: SERVICE, characteristicUuid: BUTTON },
  actions: [],
};
const set = (autoClose: boolean, scenarios: Scenario[]) => ({ autoClose, scenarios });
const board = (properties: string[]) => ({
  // The GATT table spells UUIDs without dashes, the set with them.
  services: [
    {
      uuid: SERVICE.replaceAll('-', ''),
      characteristics: [{ uuid: BUTTON.replaceAll('-', ''), properties }],
    },
  ],
});
const rules = (plan: Parameters<typeof checkFeasibility>[0]) =>
  checkFeasibility(plan).map((f) => f.rule);

describe('whether a dry run can end as asked', () => {
  it('can, for a set with autoClose and an IMMEDIATE scenario, any count', () => {
    expect(checkFeasibility({ set: set(true, [immediate, onButton]), cycles: 3 })).toEqual([]);
  });

  it('can, for any set, when it runs for a duration or until stopped', () => {
    expect(checkFeasibility({ set: set(false, [immediate]), durationMs: 30_000 })).toEqual([]);
    expect(checkFeasibility({ set: set(false, [immediate]) })).toEqual([]);
    expect(checkFeasibility({ set: set(true, []), durationMs: 1_000 })).toEqual([]);
  });

  it('cannot reach a count with autoClose false: the first link never closes', () => {
    for (const cycles of [1, 3]) {
      const [found] = checkFeasibility({ set: set(false, [immediate]), cycles });
      expect(found).toMatchObject({ field: 'cycles', rule: 'auto-close-off' });
      expect(found?.message).toContain(`can never reach ${cycles} connection`);
      expect(found?.message).toContain('run for a duration instead');
    }
  });

  it('cannot reach a count when no scenario ever runs to close the link', () => {
    const [found] = checkFeasibility({ set: set(true, []), cycles: 2 });
    expect(found).toMatchObject({ field: 'cycles', rule: 'nothing-ends-the-link' });
  });

  it('cannot reach a count when the only trigger waits for a notification the board cannot send', () => {
    expect(rules({ set: set(true, [onButton]), cycles: 2, board: board(['read']) })).toEqual([
      'trigger-never-fires',
    ]);
    expect(rules({ set: set(true, [onButton]), cycles: 2, board: { services: [] } })).toEqual([
      'trigger-never-fires',
    ]);
    // The board notifies it (or indicates), or its table is unknown: the trigger may fire.
    expect(rules({ set: set(true, [onButton]), cycles: 2, board: board(['notify']) })).toEqual([]);
    expect(rules({ set: set(true, [onButton]), cycles: 2, board: board(['indicate']) })).toEqual(
      [],
    );
    expect(rules({ set: set(true, [onButton]), cycles: 2 })).toEqual([]);
  });

  it('cannot hold more boards than the adapter has links, whatever the length', () => {
    const found = checkFeasibility({
      set: set(true, [immediate]),
      durationMs: 1_000,
      boardsAtOnce: 6,
      maxLinks: 5,
    });
    expect(found).toEqual([
      expect.objectContaining({ field: 'deviceId', rule: 'more-boards-than-links' }),
    ]);
    expect(found[0]?.message).toContain('the adapter holds 5');
    expect(
      checkFeasibility({ set: set(true, [immediate]), cycles: 1, boardsAtOnce: 5, maxLinks: 5 }),
    ).toEqual([]);
  });

  it('names every reason in one sentence', () => {
    const text = describeInfeasibility(
      checkFeasibility({ set: set(false, []), cycles: 2, boardsAtOnce: 2, maxLinks: 1 }),
    );
    expect(text).toMatch(/holds 1: stop a run first; also can never reach 2 connections/);
  });
});
