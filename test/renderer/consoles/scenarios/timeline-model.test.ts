import { describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../../../src/core/scenario/schema';
import {
  base64ToHex,
  buildTimeline,
  formatInstant,
  formatMs,
  itemLabel,
  type LinkItem,
  type TimelineScenario,
} from '../../../../src/renderer/consoles/scenarios/timeline-model';
import { result } from './scenario-result';

const SERVICE = '6e400001-b5a3-f393-e0a9-e50e24dcca9e';
const LED = '6e400002-b5a3-f393-e0a9-e50e24dcca9e';
const BUTTON = '6e400003-b5a3-f393-e0a9-e50e24dcca9e';

const scenarios: TimelineScenario[] = [
  { id: 'blink-on-connect', trigger: 'IMMEDIATE' },
  { id: 'read-on-press', trigger: 'BLE_NOTIFICATION' },
];

const linkKinds = (link: LinkItem[]) => link.map((l) => l.kind);
const extent = (i: { start: number; end: number; open: boolean }) => [i.start, i.end, i.open];

describe('the timeline model', () => {
  it('lays out an autoClose loop: runs, actions, connections, the suppression wait, a drop', () => {
    const events: TimelineEvent[] = [
      { kind: 'connecting', at: 1000, cycle: 1 },
      { kind: 'connected', at: 1040, mtu: 185 },
      {
        kind: 'scenario-start',
        at: 1050,
        run: 1,
        scenario: 0,
        scenarioId: 'blink-on-connect',
        trigger: 'IMMEDIATE',
      },
      { kind: 'action-start', at: 1050, run: 1, scenario: 0, action: 0, type: 'GATT_WRITE' },
      {
        kind: 'action',
        run: 1,
        scenario: 0,
        action: 0,
        type: 'GATT_WRITE',
        startedAt: 1050,
        endedAt: 1062,
        serviceUuid: SERVICE,
        characteristicUuid: LED,
        data: 'AQ==',
      },
      { kind: 'action-start', at: 1062, run: 1, scenario: 0, action: 1, type: 'SLEEP' },
      {
        kind: 'action',
        run: 1,
        scenario: 0,
        action: 1,
        type: 'SLEEP',
        startedAt: 1062,
        endedAt: 1312,
        sleepMillis: 250,
      },
      {
        kind: 'scenario-end',
        at: 1312,
        run: 1,
        scenario: 0,
        result: result({
          scenarioId: 'blink-on-connect',
          startTime: 1050,
          endTime: 1312,
          actionResults: [{ type: 'void' }, { type: 'void' }],
        }),
      },
      { kind: 'scenario-dropped', at: 1312, scenario: 1 },
      { kind: 'disconnected', at: 1320, by: 'autoClose', reason: 'local' },
      { kind: 'waiting', at: 1320, until: 3320, why: 'suppressionInterval' },
      { kind: 'connecting', at: 3320, cycle: 2 },
      { kind: 'connected', at: 3365, mtu: 185 },
      {
        kind: 'scenario-start',
        at: 3370,
        run: 2,
        scenario: 0,
        scenarioId: 'blink-on-connect',
        trigger: 'IMMEDIATE',
      },
      { kind: 'action-start', at: 3370, run: 2, scenario: 0, action: 0, type: 'GATT_WRITE' },
    ];
    const model = buildTimeline(events, scenarios, 3400);

    expect(model.range).toEqual({ start: 1000, end: 3400 });
    expect(model.lanes.map((l) => [l.scenario, l.id, l.trigger])).toEqual([
      [0, 'blink-on-connect', 'IMMEDIATE'],
      [1, 'read-on-press', 'BLE_NOTIFICATION'],
    ]);
    // Numbered from 1, as the editor's form numbers scenarios.
    expect(model.lanes[0]!.label).toBe('#1 blink-on-connect');

    const [lane0, lane1] = model.lanes;
    expect(lane0!.runs.map((r) => [r.run, r.outcome, ...extent(r)])).toEqual([
      [1, 'SUCCESS', 1050, 1312, false],
      [2, 'RUNNING', 3370, 3400, true],
    ]);
    expect(lane0!.runs[0]!.result?.actionResults).toHaveLength(2);
    expect(lane0!.actions.map((a) => [a.run, a.action, a.type, ...extent(a)])).toEqual([
      [1, 0, 'GATT_WRITE', 1050, 1062, false],
      [1, 1, 'SLEEP', 1062, 1312, false],
      [2, 0, 'GATT_WRITE', 3370, 3400, true],
    ]);
    const write = lane0!.actions[0]!;
    expect(write).toMatchObject({
      serviceUuid: SERVICE,
      characteristicUuid: LED,
      data: 'AQ==',
      hex: '01',
    });
    expect(lane0!.actions[1]!.sleepMillis).toBe(250);
    expect(lane1!.runs).toEqual([]);
    expect(lane1!.actions).toEqual([]);

    expect(linkKinds(model.link)).toEqual([
      'connecting',
      'connection',
      'dropped',
      'disconnected',
      'waiting',
      'connecting',
      'connection',
    ]);
    const [connecting1, connection1, dropped, disconnected, waiting, connecting2, connection2] =
      model.link;
    expect(extent(connecting1!)).toEqual([1000, 1040, false]);
    expect(connection1).toMatchObject({ start: 1040, end: 1320, endedBy: 'autoClose', mtu: 185 });
    expect(dropped).toMatchObject({ start: 1312, scenario: 1, scenarioId: 'read-on-press' });
    expect(disconnected).toMatchObject({ start: 1320, by: 'autoClose', reason: 'local' });
    expect(waiting).toMatchObject({ start: 1320, end: 3320, why: 'suppressionInterval' });
    expect(extent(connecting2!)).toEqual([3320, 3365, false]);
    expect(extent(connection2!)).toEqual([3365, 3400, true]);

    expect(itemLabel(write, model.range.start)).toBe('GATT_WRITE 12 ms at +50 ms');
    expect(itemLabel(lane0!.actions[2]!, model.range.start)).toBe(
      'GATT_WRITE 30 ms so far at +2.37 s',
    );
    expect(itemLabel(disconnected!, model.range.start)).toBe(
      'Disconnected by autoClose at +320 ms',
    );
    expect(model.items.get(write.key)).toBe(write);
    expect(model.items.size).toBe(lane0!.runs.length + lane0!.actions.length + model.link.length);
  });

  it('marks a failed GATT action and its run, then the lost link and the retry', () => {
    const events: TimelineEvent[] = [
      { kind: 'connecting', at: 0, cycle: 1 },
      { kind: 'connected', at: 20, mtu: 23 },
      { kind: 'error', at: 25, message: 'scenarios[1].trigger: no notifications: not found' },
      {
        kind: 'scenario-start',
        at: 30,
        run: 1,
        scenario: 0,
        scenarioId: 'blink-on-connect',
        trigger: 'IMMEDIATE',
      },
      { kind: 'action-start', at: 30, run: 1, scenario: 0, action: 0, type: 'GATT_READ' },
      {
        kind: 'action',
        run: 1,
        scenario: 0,
        action: 0,
        type: 'GATT_READ',
        startedAt: 30,
        endedAt: 45,
        serviceUuid: SERVICE,
        characteristicUuid: LED,
        error: 'ATT error 0x02 (read not permitted)',
      },
      {
        kind: 'scenario-end',
        at: 45,
        run: 1,
        scenario: 0,
        result: result({
          scenarioId: 'blink-on-connect',
          startTime: 30,
          endTime: 45,
          resultCode: 'GATT_ERROR',
          errorReason: 'action 1 GATT_READ: ATT error 0x02 (read not permitted)',
        }),
      },
      { kind: 'disconnected', at: 900, by: 'link', reason: 'supervision timeout' },
      { kind: 'waiting', at: 900, until: 1900, why: 'reconnect' },
      { kind: 'connecting', at: 1900, cycle: 2 },
      { kind: 'connect-failed', at: 2400, error: 'board did not advertise within 500 ms' },
    ];
    const model = buildTimeline(events, scenarios, 2400);

    const [read] = model.lanes[0]!.actions;
    expect(read).toMatchObject({
      type: 'GATT_READ',
      start: 30,
      end: 45,
      error: 'ATT error 0x02 (read not permitted)',
    });
    expect(read!.hex).toBeUndefined();
    expect(itemLabel(read!, 0)).toBe(
      'GATT_READ 15 ms at +30 ms, failed: ATT error 0x02 (read not permitted)',
    );
    const [run] = model.lanes[0]!.runs;
    expect(run!.outcome).toBe('GATT_ERROR');
    expect(run!.result?.errorReason).toMatch(/^action 1 GATT_READ/);

    expect(linkKinds(model.link)).toEqual([
      'connecting',
      'connection',
      'error',
      'disconnected',
      'waiting',
      'connecting',
      'connect-failed',
    ]);
    expect(model.link[1]).toMatchObject({
      end: 900,
      open: false,
      endedBy: 'link',
      reason: 'supervision timeout',
    });
    expect(model.link[2]).toMatchObject({ start: 25, message: expect.stringContaining('trigger') });
    expect(model.link[4]).toMatchObject({ start: 900, end: 1900, why: 'reconnect' });
    expect(extent(model.link[5]!)).toEqual([1900, 2400, false]);
    expect(model.link[6]).toMatchObject({
      start: 2400,
      end: 2400,
      error: 'board did not advertise within 500 ms',
    });
  });

  it('keeps the payload of a notification-triggered run and the bytes it read, as hex', () => {
    const events: TimelineEvent[] = [
      { kind: 'connecting', at: 100, cycle: 1 },
      { kind: 'connected', at: 110, mtu: 247 },
      {
        kind: 'notification',
        at: 500,
        serviceUuid: SERVICE,
        characteristicUuid: BUTTON,
        data: 'CgAb/w==',
      },
      {
        kind: 'scenario-start',
        at: 500,
        run: 1,
        scenario: 1,
        scenarioId: 'read-on-press',
        trigger: 'BLE_NOTIFICATION',
      },
      { kind: 'action-start', at: 500, run: 1, scenario: 1, action: 0, type: 'GATT_READ' },
      {
        kind: 'action',
        run: 1,
        scenario: 1,
        action: 0,
        type: 'GATT_READ',
        startedAt: 500,
        endedAt: 508,
        serviceUuid: SERVICE,
        characteristicUuid: LED,
        data: 'AQID',
      },
      {
        kind: 'scenario-end',
        at: 508,
        run: 1,
        scenario: 1,
        result: result({
          scenarioId: 'read-on-press',
          startTime: 500,
          endTime: 508,
          actionResults: [{ type: 'binary', data: 'AQID' }],
          bleNotificationPayload: 'CgAb/w==',
        }),
      },
    ];
    const model = buildTimeline(events, scenarios, 600);

    expect(model.lanes[0]!.runs).toEqual([]);
    const lane = model.lanes[1]!;
    expect(lane.runs).toHaveLength(1);
    expect(lane.runs[0]).toMatchObject({
      trigger: 'BLE_NOTIFICATION',
      outcome: 'SUCCESS',
      start: 500,
      end: 508,
      payloadHex: '0a 00 1b ff',
    });
    expect(lane.actions[0]).toMatchObject({ data: 'AQID', hex: '01 02 03', end: 508 });
    const notification = model.link.find((l) => l.kind === 'notification');
    expect(notification).toMatchObject({
      start: 500,
      end: 500,
      characteristicUuid: BUTTON,
      hex: '0a 00 1b ff',
    });
    expect(itemLabel(notification!, model.range.start)).toBe('Notification at +400 ms');
    // The connection is still up: it runs to now.
    expect(model.range).toEqual({ start: 100, end: 600 });
  });

  it('runs an open SLEEP to now, and closes what a stop interrupted at the stop', () => {
    const upTo: TimelineEvent[] = [
      { kind: 'connecting', at: 5000, cycle: 1 },
      { kind: 'connected', at: 5010, mtu: 23 },
      {
        kind: 'scenario-start',
        at: 5010,
        run: 7,
        scenario: 0,
        scenarioId: 'blink-on-connect',
        trigger: 'IMMEDIATE',
      },
      { kind: 'action-start', at: 5010, run: 7, scenario: 0, action: 0, type: 'SLEEP' },
    ];
    const live = buildTimeline(upTo, scenarios, 5400);
    const [sleep] = live.lanes[0]!.actions;
    expect(extent(sleep!)).toEqual([5010, 5400, true]);
    expect(live.lanes[0]!.runs[0]).toMatchObject({ outcome: 'RUNNING', end: 5400, open: true });
    expect(itemLabel(sleep!, live.range.start)).toBe('SLEEP 390 ms so far at +10 ms');
    // A `now` before the start (a clock that stepped back) does not give a negative length.
    expect(extent(buildTimeline(upTo, scenarios, 4000).lanes[0]!.actions[0]!)).toEqual([
      5010,
      5010,
      true,
    ]);

    const stopped = buildTimeline(
      [
        ...upTo,
        {
          kind: 'action',
          run: 7,
          scenario: 0,
          action: 0,
          type: 'SLEEP',
          startedAt: 5010,
          endedAt: 5600,
          sleepMillis: 1000,
          error: 'stopped',
        },
        { kind: 'scenario-cancelled', at: 5600, run: 7, scenario: 0 },
        { kind: 'disconnected', at: 5605, by: 'stop', reason: 'stopped' },
        { kind: 'stopped', at: 5605, reason: 'operator' },
      ],
      scenarios,
      9000,
    );
    expect(extent(stopped.lanes[0]!.actions[0]!)).toEqual([5010, 5600, false]);
    expect(stopped.lanes[0]!.runs[0]).toMatchObject({ outcome: 'CANCELLED', end: 5600 });
    expect(stopped.link.map((l) => [l.kind, l.end, l.open])).toEqual([
      ['connecting', 5010, false],
      ['connection', 5605, false],
      ['disconnected', 5605, false],
      ['stopped', 5605, false],
    ]);
    expect(stopped.range).toEqual({ start: 5000, end: 5605 });
  });

  it('ends a wait and a connection attempt at the stop that cut them short', () => {
    const model = buildTimeline(
      [
        { kind: 'connecting', at: 0, cycle: 1 },
        { kind: 'connect-failed', at: 300, error: 'timeout' },
        { kind: 'waiting', at: 300, until: 1300, why: 'reconnect' },
        { kind: 'connecting', at: 1300, cycle: 1 },
        { kind: 'stopped', at: 1500, reason: 'duration' },
      ],
      scenarios,
      5000,
    );
    expect(model.link.map((l) => [l.kind, l.start, l.end])).toEqual([
      ['connecting', 0, 300],
      ['connect-failed', 300, 300],
      ['waiting', 300, 1300],
      ['connecting', 1300, 1500],
      ['stopped', 1500, 1500],
    ]);

    const early = buildTimeline(
      [
        { kind: 'waiting', at: 300, until: 1300, why: 'suppressionInterval' },
        { kind: 'stopped', at: 400, reason: 'operator' },
      ],
      scenarios,
      5000,
    );
    expect(early.link[0]).toMatchObject({ start: 300, end: 400, until: 1300 });
    expect(early.range).toEqual({ start: 300, end: 400 });
  });

  it('gives a lane to a scenario the events name that the list does not have', () => {
    const model = buildTimeline(
      [
        {
          kind: 'scenario-start',
          at: 0,
          run: 1,
          scenario: 3,
          scenarioId: 'x',
          trigger: 'IMMEDIATE',
        },
        { kind: 'action-start', at: 0, run: 1, scenario: 3, action: 0, type: 'SLEEP' },
      ],
      scenarios,
      10,
    );
    expect(model.lanes.map((l) => [l.scenario, l.id])).toEqual([
      [0, 'blink-on-connect'],
      [1, 'read-on-press'],
      [3, 'x'],
    ]);
    expect(model.lanes[2]!.actions).toHaveLength(1);
  });

  it('starts and ends at now with no events', () => {
    const model = buildTimeline([], scenarios, 1234);
    expect(model.range).toEqual({ start: 1234, end: 1234 });
    expect(model.lanes).toHaveLength(2);
    expect(model.link).toEqual([]);
  });
});

describe('bytes and lengths of time', () => {
  it('turns base64 into spaced hex and refuses what is not base64', () => {
    expect(base64ToHex('Chv/')).toBe('0a 1b ff');
    expect(base64ToHex('AQ==')).toBe('01');
    expect(base64ToHex('')).toBe('');
    expect(base64ToHex('AQ=')).toBeUndefined();
    expect(base64ToHex('not base64!')).toBeUndefined();
  });
  it('formats lengths of time for people', () => {
    expect(formatMs(0)).toBe('0 ms');
    expect(formatMs(340.4)).toBe('340 ms');
    expect(formatMs(1250)).toBe('1.25 s');
    expect(formatMs(10_000)).toBe('10 s');
    expect(formatMs(123_500)).toBe('2 min 3.5 s');
    expect(formatInstant(Date.UTC(2025, 0, 2, 3, 4, 5, 678))).toBe('2025-01-02 03:04:05.678Z');
  });
});

describe('a pairing on the link lane', () => {
  const security = {
    encrypted: true,
    key: 'sc' as const,
    authenticated: true,
    keySize: 16,
    method: 'passkeyEntry' as const,
    bonded: true,
  };

  it('draws the pairing as a span from its request to its key, then the encryption', () => {
    const model = buildTimeline(
      [
        { kind: 'connecting', at: 0, cycle: 1 },
        { kind: 'connected', at: 40, mtu: 247 },
        { kind: 'paired', at: 4_040, startedAt: 45, security },
        { kind: 'encrypted', at: 4_041, security },
        { kind: 'pairing-failed', at: 9_000, startedAt: 8_000, error: '0x04 confirm value failed' },
      ],
      scenarios,
      9_000,
    );
    expect(linkKinds(model.link)).toEqual([
      'connecting',
      'connection',
      'paired',
      'encrypted',
      'pairing-failed',
    ]);
    const [, , paired, encrypted, failed] = model.link;
    expect(extent(paired!)).toEqual([45, 4_040, false]);
    expect(itemLabel(paired!, 0)).toBe('Paired, Passkey Entry 4 s at +45 ms');
    expect(itemLabel(encrypted!, 0)).toBe(
      'Encrypted, LE Secure Connections · authenticated · 16 octets at +4.04 s',
    );
    expect(itemLabel(failed!, 0)).toBe('Pairing failed at +9 s');
  });

  it('says a link encrypted with a stored bond is encrypted with the bond', () => {
    const model = buildTimeline(
      [
        { kind: 'connecting', at: 0, cycle: 1 },
        { kind: 'connected', at: 40, mtu: 247 },
        { kind: 'encrypted', at: 80, security: { ...security, fromBond: true } },
      ],
      scenarios,
      100,
    );
    const encrypted = model.link.find((item) => item.kind === 'encrypted');
    expect(itemLabel(encrypted!, 0)).toBe(
      'Encrypted with the bond, LE Secure Connections · authenticated · 16 octets at +80 ms',
    );
  });
});
