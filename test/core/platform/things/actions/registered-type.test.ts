// A new action type is one descriptor: registered once, every reader knows it — the PUT's
// schema, the dry-run engine on the simulated bench, board lint, the editor's draft model, the
// timeline model and the JUnit report. The fake type writes its data and reads the value back.
import { afterEach, describe, expect, it } from 'vitest';
import { rig, sensorBoard, SENSOR_SERVICE, LED, type Rig } from '../../../ble/fixture';
import { registerActionType } from '../../../../../src/core/platform/things/actions/registry';
import { gattTarget } from '../../../../../src/core/platform/things/actions/descriptor';
import { scenarioSetInputSchema } from '../../../../../src/core/platform/things/schema';
import {
  runnableSetSchema,
  timelineEventSchema,
  type TimelineEvent,
} from '../../../../../src/core/scenario/schema';
import { startDryRun } from '../../../../../src/core/scenario/engine';
import { lintAgainstBoard } from '../../../../../src/core/scenario/board-lint';
import {
  actionChoices,
  actionFieldsShown,
  newAction,
  validateDraft,
  withActionType,
  type Json,
} from '../../../../../src/renderer/lib/scenario-draft';
import {
  actionLegend,
  buildTimeline,
  itemTitle,
} from '../../../../../src/renderer/consoles/scenarios/timeline-model';
import { failureMessage } from '../../../../../src/core/usecases/dry-runs/failure-message';

const ECHO = 'GATT_WRITE_READ';

registerActionType({
  type: ECHO,
  label: 'write, read back',
  colour: 'accent',
  fields: ['serviceUuid', 'characteristicUuid', 'data'],
  async run(action, context) {
    const service = action.serviceUuid ?? '';
    const characteristic = action.characteristicUuid ?? '';
    await context.write(service, characteristic, action.data ?? '');
    const data = await context.read(service, characteristic);
    return { result: { type: 'binary', data }, data };
  },
  writes: true,
  boardAccess: 'write',
  failureFacts: (action) => [...gattTarget(action), 'then read back'],
});

const echo = { type: ECHO, serviceUuid: SENSOR_SERVICE, characteristicUuid: LED, data: 'AQ==' };
const setOf = (actions: Json[]) => ({
  autoClose: false,
  suppressionInterval: 0,
  scenarios: [{ trigger: { type: 'IMMEDIATE' }, actions }],
});
const errorsOf = (input: unknown) => {
  const parsed = scenarioSetInputSchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.at(-1), i.message]);
};

let r: Rig | undefined;
afterEach(() => r?.close());

describe('a registered action type', () => {
  it('is taken by the schema with the fields it names, and named in its rules', () => {
    expect(errorsOf(setOf([echo]))).toEqual([]);
    expect(
      errorsOf(setOf([{ type: ECHO, serviceUuid: SENSOR_SERVICE, characteristicUuid: LED }])),
    ).toEqual([['data', `is required for ${ECHO}`]]);
    expect(errorsOf(setOf([{ type: 'SLEEP', sleepMillis: 5, data: 'AQ==' }]))).toEqual([
      ['data', `is only allowed for GATT_WRITE and ${ECHO}`],
    ]);
    expect(errorsOf(setOf([{ type: 'BLINK' }]))).toEqual([
      ['type', `must be one of SLEEP, GATT_READ, GATT_WRITE, ${ECHO}`],
    ]);
    const runnable = runnableSetSchema.parse({
      autoClose: false,
      suppressionInterval: 0,
      revision: 0,
      scenarios: [{ id: 'echo', trigger: { type: 'IMMEDIATE' }, actions: [echo] }],
    });
    expect(runnable.scenarios[0]?.actions[0]?.type).toBe(ECHO);
  });

  it('is run by the engine on the simulated bench, as its descriptor says', async () => {
    r = rig([sensorBoard({ notifications: {} })]);
    const ad = await r.find({ name: 'sensor' });
    const events: TimelineEvent[] = [];
    const run = startDryRun({
      central: r.central,
      deviceId: ad.id,
      set: {
        autoClose: false,
        suppressionInterval: 0,
        revision: 1,
        scenarios: [{ id: 'echo', trigger: { type: 'IMMEDIATE' }, actions: [echo] }],
      },
      clock: r.clock,
      onEvent: (e) => events.push(timelineEventSchema.parse(e)),
    });
    await r.clock.advance(1_000);
    await r.drive(run.stop());
    const end = events.find((e) => e.kind === 'scenario-end');
    expect(end).toMatchObject({
      result: { resultCode: 'SUCCESS', actionResults: [{ type: 'binary', data: 'AQ==' }] },
    });
    expect(events.find((e) => e.kind === 'action')).toMatchObject({
      type: ECHO,
      data: 'AQ==',
      writeConfirmed: true,
    });
  });

  it('is checked by board lint for the access it needs', () => {
    const board = {
      mtu: 4,
      services: [{ uuid: SENSOR_SERVICE, characteristics: [{ uuid: LED, properties: ['read'] }] }],
    };
    const findings = lintAgainstBoard(
      scenarioSetInputSchema.parse(setOf([{ ...echo, data: 'AQID' }])),
      board,
    );
    expect(findings.map((f) => [f.rule, f.field])).toEqual([
      ['write-not-permitted', 'scenarios[0].actions[0].characteristicUuid'],
      ['data-exceeds-mtu', 'scenarios[0].actions[0].data'],
    ]);
  });

  it('is offered by the editor, with the fields it takes', () => {
    expect(actionChoices()).toContainEqual({ value: ECHO, label: 'write, read back' });
    const added = newAction(ECHO);
    expect(added).toEqual({ type: ECHO, serviceUuid: '', characteristicUuid: '', data: '' });
    expect(actionFieldsShown(added)).toEqual(['serviceUuid', 'characteristicUuid', 'data']);
    expect(withActionType({ type: 'GATT_READ', serviceUuid: SENSOR_SERVICE }, ECHO)).toEqual({
      type: ECHO,
      serviceUuid: SENSOR_SERVICE,
      characteristicUuid: '',
      data: '',
    });
    expect(validateDraft(setOf([echo])).ok).toBe(true);
  });

  it('is labelled and coloured by the timeline model, and in its legend', () => {
    expect(actionLegend().at(-1)).toEqual({
      type: ECHO,
      label: 'write, read back',
      colour: 'accent',
    });
    const model = buildTimeline(
      [{ kind: 'action-start', at: 10, run: 1, scenario: 0, action: 0, type: ECHO }],
      [{ id: 'echo', trigger: 'IMMEDIATE' }],
      20,
    );
    const block = model.lanes[0]?.actions[0];
    expect(block).toMatchObject({ type: ECHO, label: 'write, read back', colour: 'accent' });
    expect(block && itemTitle(block)).toBe('write, read back');
  });

  it('is described by the JUnit report when it fails', () => {
    const message = failureMessage(
      {
        scenarioId: 'echo',
        revision: 1,
        startTime: 0,
        endTime: 5,
        resultCode: 'GATT_ERROR',
        actionResults: [],
        errorReason: `action 1 ${ECHO}: refused`,
      },
      {
        kind: 'action',
        run: 1,
        scenario: 0,
        action: 0,
        type: ECHO,
        startedAt: 0,
        endedAt: 5,
        serviceUuid: SENSOR_SERVICE,
        characteristicUuid: LED,
        data: 'AQI=',
        error: 'refused',
      },
    );
    expect(message).toBe(
      `GATT_ERROR: action 1 ${ECHO}: refused; characteristic ${LED} of service ${SENSOR_SERVICE}; then read back; bytes 0102`,
    );
  });
});
