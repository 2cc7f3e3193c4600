import { afterEach, describe, expect, it } from 'vitest';
import {
  rig,
  sensorBoard,
  SENSOR_SERVICE,
  BUTTON,
  TEMPERATURE,
  LED,
  type Rig,
} from '../ble/fixture';
import { startDryRun, type DryRunOptions } from '../../../src/core/scenario/engine';
import type { RunnableSet, TimelineEvent } from '../../../src/core/scenario/schema';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';

let r: Rig;
afterEach(() => r.close());

type Scenario = RunnableSet['scenarios'][number];
const immediate = (id: string, actions: Scenario['actions']): Scenario => ({
  id,
  trigger: { type: 'IMMEDIATE' },
  actions,
});
const onNotify = (
  id: string,
  characteristicUuid: string,
  actions: Scenario['actions'],
): Scenario => ({
  id,
  trigger: { type: 'BLE_NOTIFICATION', serviceUuid: SENSOR_SERVICE, characteristicUuid },
  actions,
});
const set = (scenarios: Scenario[], over: Partial<RunnableSet> = {}): RunnableSet => ({
  autoClose: false,
  suppressionInterval: 0,
  revision: 3,
  scenarios,
  ...over,
});

async function start(s: RunnableSet, over: Partial<DryRunOptions> = {}) {
  const ad = await r.find({ name: 'sensor' });
  const events: TimelineEvent[] = [];
  const run = startDryRun({
    central: r.central,
    deviceId: ad.id,
    set: s,
    clock: r.clock,
    onEvent: (e) => events.push(e),
    ...over,
  });
  return { run, events, deviceId: ad.id };
}

const kinds = (events: TimelineEvent[]) => events.map((e) => e.kind);
const ends = (events: TimelineEvent[]) =>
  events.flatMap((e) => (e.kind === 'scenario-end' ? [e.result] : []));

describe('the scenario engine on the simulated bench', () => {
  it('runs the IMMEDIATE scenarios on connect, actions in order, SLEEP on the clock', async () => {
    r = rig([sensorBoard()]);
    const { run, events } = await start(
      set([
        immediate('s1', [
          {
            type: 'GATT_WRITE',
            serviceUuid: SENSOR_SERVICE,
            characteristicUuid: LED,
            data: 'AQ==',
          },
          { type: 'SLEEP', sleepMillis: 250 },
          { type: 'GATT_READ', serviceUuid: SENSOR_SERVICE, characteristicUuid: LED },
        ]),
      ]),
    );
    await r.clock.advance(1_000);
    const [result] = ends(events);
    expect(result).toMatchObject({
      scenarioId: 's1',
      revision: 3,
      resultCode: 'SUCCESS',
      actionResults: [{ type: 'void' }, { type: 'void' }, { type: 'binary', data: 'AQ==' }],
    });
    expect(result?.bleNotificationPayload).toBeUndefined();
    expect(result?.errorReason).toBeUndefined();
    const sleep = events.find((e) => e.kind === 'action' && e.type === 'SLEEP');
    expect(sleep?.kind === 'action' && sleep.endedAt - sleep.startedAt).toBe(250);
    // Sleep 250 ms, and the write and the read each one to two 15 ms connection events: the
    // request waits for the next event, the board's answer (5 ms later) goes at the one after.
    const took = result!.endTime - result!.startTime;
    expect(took).toBeGreaterThanOrEqual(250 + 2 * 15);
    expect(took).toBeLessThanOrEqual(250 + 2 * 30);
    expect(kinds(events).slice(0, 4)).toEqual([
      'connecting',
      'connected',
      'scenario-start',
      'action-start',
    ]);
    // autoClose false: still connected, nothing else happens.
    expect(kinds(events).at(-1)).toBe('scenario-end');
    const outcome = await r.drive(run.stop());
    expect(outcome.reason).toBe('operator');
    expect(outcome.results).toHaveLength(1);
  });

  it('runs a BLE_NOTIFICATION scenario per notification, carrying its payload', async () => {
    r = rig([sensorBoard()]);
    const { run, events, deviceId } = await start(
      set([
        onNotify('button', BUTTON, [
          { type: 'GATT_READ', serviceUuid: SENSOR_SERVICE, characteristicUuid: TEMPERATURE },
        ]),
        onNotify('collect', TEMPERATURE, []),
      ]),
    );
    // After the first periodic temperature notification (0409) changed the value read: the link
    // is discovered and both subscriptions written within a few hundred ms of connection events.
    await r.clock.advance(600);
    r.bench.pressButton(deviceId);
    await r.clock.advance(50);
    r.bench.pressButton(deviceId);
    await r.clock.advance(50);
    await r.drive(run.stop());
    const results = ends(events);
    const button = results.filter((x) => x.scenarioId === 'button');
    expect(button.map((x) => x.bleNotificationPayload)).toEqual(['AQ==', 'Ag==']);
    expect(button[0]?.actionResults).toEqual([{ type: 'binary', data: 'BAk=' }]);
    // The periodic temperature notification (every 100 ms, 0409) runs the collecting scenario.
    const collected = results.filter((x) => x.scenarioId === 'collect');
    expect(collected.length).toBeGreaterThanOrEqual(1);
    expect(collected[0]).toMatchObject({
      resultCode: 'SUCCESS',
      actionResults: [],
      bleNotificationPayload: 'BAk=',
    });
    expect(events.filter((e) => e.kind === 'notification').length).toBe(results.length);
  });

  it('with autoClose: connect → run → disconnect → wait suppressionInterval → reconnect', async () => {
    r = rig([sensorBoard()]);
    const { run, events } = await start(
      set([immediate('blink', [{ type: 'SLEEP', sleepMillis: 40 }])], {
        autoClose: true,
        suppressionInterval: 500,
      }),
      { cycles: 3 },
    );
    for (let i = 0; i < 40; i++) await r.clock.advance(50);
    const outcome = await r.drive(run.done);
    expect(outcome.reason).toBe('cycles');
    expect(outcome.results.map((x) => x.resultCode)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    const cycle = [
      'connecting',
      'connected',
      'scenario-start',
      'action-start',
      'action',
      'scenario-end',
      'disconnected',
    ];
    expect(kinds(events)).toEqual([...cycle, 'waiting', ...cycle, 'waiting', ...cycle, 'stopped']);
    const disconnects = events.filter((e) => e.kind === 'disconnected');
    expect(disconnects.every((e) => e.kind === 'disconnected' && e.by === 'autoClose')).toBe(true);
    const waits = events.filter((e) => e.kind === 'waiting');
    const connects = events.filter((e) => e.kind === 'connecting').slice(1);
    waits.forEach((w, i) => {
      expect(w.kind === 'waiting' && w.until - w.at).toBe(500);
      expect(w.kind === 'waiting' && w.why).toBe('suppressionInterval');
      expect(connects[i]!.at - w.at).toBe(500);
    });
  });

  it('a GATT error ends that run only, with GATT_ERROR and the failing action', async () => {
    r = rig([sensorBoard()]);
    const { run, events, deviceId } = await start(
      set([
        immediate('bad', [
          { type: 'GATT_READ', serviceUuid: SENSOR_SERVICE, characteristicUuid: LED },
          {
            type: 'GATT_WRITE',
            serviceUuid: SENSOR_SERVICE,
            characteristicUuid: TEMPERATURE,
            data: 'AQ==',
          },
          { type: 'SLEEP', sleepMillis: 10 },
        ]),
        onNotify('after', BUTTON, [{ type: 'SLEEP', sleepMillis: 10 }]),
      ]),
    );
    await r.clock.advance(600);
    r.bench.pressButton(deviceId);
    await r.clock.advance(200);
    await r.drive(run.stop());
    const [bad, after] = ends(events);
    expect(bad).toMatchObject({
      scenarioId: 'bad',
      resultCode: 'GATT_ERROR',
      actionResults: [{ type: 'binary', data: 'AA==' }],
      errorReason: expect.stringMatching(/^action 2 GATT_WRITE: .*does not allow write/),
    });
    const actions = events.filter((e) => e.kind === 'action' && e.scenario === 0);
    expect(actions).toHaveLength(2);
    // The refused write's block still shows the bytes it tried to write.
    expect(actions[1]).toMatchObject({
      type: 'GATT_WRITE',
      data: 'AQ==',
      error: expect.any(String),
    });
    expect(after).toMatchObject({ scenarioId: 'after', resultCode: 'SUCCESS' });
  });

  /** One IMMEDIATE scenario that reads the temperature, run once on `board`: its result. */
  async function readTemperatureOn(board: BoardSpecInput) {
    r = rig([board]);
    const { run, events } = await start(
      set([
        immediate('read', [
          { type: 'GATT_READ', serviceUuid: SENSOR_SERVICE, characteristicUuid: TEMPERATURE },
        ]),
      ]),
    );
    await r.clock.advance(600);
    await r.drive(run.stop());
    return ends(events)[0];
  }

  it('a GATT_READ the board refuses is GATT_ERROR naming the ATT code, never an empty SUCCESS', async () => {
    const result = await readTemperatureOn(
      sensorBoard({
        faults: { refuseAccess: { characteristic: TEMPERATURE, operation: 'read', code: 0x02 } },
      }),
    );
    expect(result).toMatchObject({
      scenarioId: 'read',
      resultCode: 'GATT_ERROR',
      actionResults: [],
      errorReason: expect.stringMatching(
        /^action 1 GATT_READ: .*ATT error 0x02 \(read not permitted\)/,
      ),
    });
  });

  it('a GATT_READ of a value that needs pairing the board refuses is GATT_ERROR too', async () => {
    const board = sensorBoard({ pairing: 'refuse' });
    board.gatt![0]!.characteristics![1] = {
      uuid: TEMPERATURE,
      properties: ['read', 'notify'],
      permissions: { read: 'encrypted' },
      value: { hex: 'fa08' },
      maxLength: 2,
    };
    const result = await readTemperatureOn(board);
    expect(result).toMatchObject({ scenarioId: 'read', resultCode: 'GATT_ERROR' });
    expect(result?.errorReason).toMatch(/needs an encrypted link and the board refused pairing/);
  });

  it('a board that stops answering gives BLE_CONNECTION_ERROR, not GATT_ERROR', async () => {
    r = rig(
      [sensorBoard({ latency: { connectMs: 20, perOperationMs: 400 } })],
      {},
      {
        operationTimeoutMs: 100,
      },
    );
    const { run, events } = await start(
      set([
        immediate('slow', [
          { type: 'GATT_READ', serviceUuid: SENSOR_SERVICE, characteristicUuid: TEMPERATURE },
        ]),
      ]),
    );
    for (let i = 0; i < 40 && !ends(events).length; i++) await r.clock.advance(50);
    await r.drive(run.stop());
    expect(ends(events)[0]).toMatchObject({
      scenarioId: 'slow',
      resultCode: 'BLE_CONNECTION_ERROR',
      errorReason: expect.stringMatching(/^action 1 GATT_READ: .*no answer within 100 ms/),
    });
  });

  it('a link lost mid-scenario gives BLE_CONNECTION_ERROR, then the engine reconnects', async () => {
    r = rig([sensorBoard({ faults: { dropLinkDuringWrite: { characteristic: LED } } })]);
    const { run, events } = await start(
      set([
        immediate('write', [
          {
            type: 'GATT_WRITE',
            serviceUuid: SENSOR_SERVICE,
            characteristicUuid: LED,
            data: 'AQ==',
          },
        ]),
      ]),
      { retryDelayMs: 300 },
    );
    for (let i = 0; i < 100; i++) await r.clock.advance(50);
    await r.drive(run.stop());
    const [lost, retried] = ends(events);
    expect(lost).toMatchObject({ resultCode: 'BLE_CONNECTION_ERROR', actionResults: [] });
    expect(lost?.errorReason).toMatch(/^action 1 GATT_WRITE: /);
    expect(events.find((e) => e.kind === 'disconnected')).toMatchObject({ by: 'link' });
    expect(events.find((e) => e.kind === 'waiting')).toMatchObject({ why: 'reconnect' });
    // The fault fires once: the second connection's run succeeds.
    expect(retried).toMatchObject({ resultCode: 'SUCCESS' });
  });

  it('stopping mid-SLEEP ends cleanly: no result, link closed, no timer left', async () => {
    r = rig([sensorBoard({ notifications: {} })]);
    const { run, events, deviceId } = await start(
      set([immediate('long', [{ type: 'SLEEP', sleepMillis: 60_000 }])]),
    );
    await r.clock.advance(1_000);
    expect(r.bench.view(deviceId).connected).toBe(true);
    const pending = r.clock.timerCount;
    const outcome = await r.drive(run.stop());
    await r.clock.advance(100);
    expect(outcome).toEqual({ reason: 'operator', results: [] });
    expect(kinds(events).slice(-4)).toEqual([
      'action',
      'scenario-cancelled',
      'disconnected',
      'stopped',
    ]);
    expect(events.at(-2)).toMatchObject({ kind: 'disconnected', by: 'stop' });
    expect(r.bench.view(deviceId).connected).toBe(false);
    // The SLEEP's timer is gone: only the board's advertising timer remains.
    expect(r.clock.timerCount).toBeLessThan(pending);
    expect(r.clock.timerCount).toBeLessThanOrEqual(1);
  });

  it('stops by itself after durationMs', async () => {
    r = rig([sensorBoard()]);
    const { run, events } = await start(
      set([immediate('loop', [{ type: 'SLEEP', sleepMillis: 100 }])], {
        autoClose: true,
        suppressionInterval: 100,
      }),
      { durationMs: 2_000 },
    );
    const started = r.clock.now();
    for (let i = 0; i < 50; i++) await r.clock.advance(50);
    const outcome = await r.drive(run.done);
    expect(outcome.reason).toBe('duration');
    expect(outcome.results.length).toBeGreaterThanOrEqual(5);
    // The record says how long was asked, and the run ended then (the link's close aside).
    const stopped = events.at(-1);
    expect(stopped).toMatchObject({ kind: 'stopped', reason: 'duration', durationMs: 2_000 });
    if (stopped?.kind !== 'stopped') throw new Error('the run did not end with a stopped event');
    const took = stopped.at - started;
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(2_100);
  });
});
