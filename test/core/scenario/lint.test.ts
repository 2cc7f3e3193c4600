// Validation before upload: the set rules the PUT does not check, and lint against a board's
// GATT table as noble discovers it on the simulated bench. Each rule fires on a set or board
// built to break it and stays quiet on a clean one.
import { afterEach, describe, expect, it } from 'vitest';
import { rig, board, type Rig } from '../ble/fixture';
import { lintAgainstBoard, type BoardGatt } from '../../../src/core/scenario/board-lint';
import { setRules } from '../../../src/core/scenario/rules';
import {
  scenarioSetInputSchema,
  type ScenarioSetInput,
} from '../../../src/core/platform/things/schema';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';

const SVC = '5a1e0000-0000-4000-8000-000000000000';
const RW = '5a1e0001-0000-4000-8000-000000000000';
const NOTIFY = '5a1e0002-0000-4000-8000-000000000000';
const OTHER_SVC = '5a1e9999-0000-4000-8000-000000000000';

const set = (input: unknown): ScenarioSetInput => scenarioSetInputSchema.parse(input);
const rules = (input: unknown) => setRules(set(input)).map((f) => [f.rule, f.field, f.severity]);

const clean = {
  autoClose: true,
  suppressionInterval: 1_000,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: SVC, characteristicUuid: RW, data: 'AQID' },
        { type: 'GATT_READ', serviceUuid: SVC, characteristicUuid: RW },
      ],
    },
    {
      trigger: { type: 'BLE_NOTIFICATION', serviceUuid: SVC, characteristicUuid: NOTIFY },
      actions: [],
    },
  ],
};

describe('set rules', () => {
  it('stay quiet on a clean set', () => {
    expect(rules(clean)).toEqual([]);
    expect(rules({ ...clean, autoClose: false, suppressionInterval: 0 })).toEqual([]);
  });

  it('suppressionInterval must be 0 when autoClose is false', () => {
    expect(rules({ ...clean, autoClose: false })).toEqual([
      ['suppression-without-auto-close', 'suppressionInterval', 'error'],
    ]);
  });

  it('with autoClose, a set of only BLE_NOTIFICATION scenarios never starts', () => {
    expect(rules({ ...clean, scenarios: [clean.scenarios[1]] })).toEqual([
      ['auto-close-needs-immediate', 'scenarios', 'error'],
    ]);
    // Without autoClose the client stays connected and waits for notifications: fine.
    expect(
      rules({ autoClose: false, suppressionInterval: 0, scenarios: [clean.scenarios[1]] }),
    ).toEqual([]);
  });

  it('actions may be empty only for notification-collecting scenarios', () => {
    const empty = { trigger: { type: 'IMMEDIATE' }, actions: [] };
    expect(rules({ ...clean, scenarios: [clean.scenarios[0], empty] })).toEqual([
      ['auto-close-one-immediate', 'scenarios', 'warning'],
      ['empty-actions', 'scenarios[1].actions', 'error'],
    ]);
  });

  it('refuses data the PUT takes as base64 that was not meant as base64', () => {
    const writing = (data: string) => ({
      ...clean,
      scenarios: [
        {
          trigger: { type: 'IMMEDIATE' },
          actions: [{ type: 'GATT_WRITE', serviceUuid: SVC, characteristicUuid: RW, data }],
        },
      ],
    });
    for (const data of ['0x01', 'AR=='])
      expect(rules(writing(data))).toEqual([
        ['data-not-meant-as-base64', 'scenarios[0].actions[0].data', 'error'],
      ]);
    expect(setRules(set(writing('0x01')))[0]?.message).toContain('looks like hex, not base64');
    expect(rules(writing('AQ=='))).toEqual([]);
  });

  it('warns that autoClose runs only the first IMMEDIATE scenario, and about an empty set', () => {
    expect(rules({ ...clean, scenarios: [clean.scenarios[0], clean.scenarios[0]] })).toEqual([
      ['auto-close-one-immediate', 'scenarios', 'warning'],
    ]);
    expect(rules({ autoClose: false, suppressionInterval: 0, scenarios: [] })).toEqual([
      ['no-scenarios', 'scenarios', 'warning'],
    ]);
  });
});

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

/** The board's GATT table and MTU as noble discovers them over the simulated link. */
async function discovered(spec: BoardSpecInput): Promise<BoardGatt> {
  r = rig([spec]);
  const ad = await r.find({ name: 'lint' });
  const link = await r.drive(r.central.connect(ad.id));
  const services = await r.drive(link.discover());
  await r.drive(link.disconnect());
  return { mtu: link.mtu, services };
}

const lintBoard = (characteristics: BoardSpecInput['gatt'], mtu = 247): BoardSpecInput =>
  board({ name: 'lint board', mtu, gatt: characteristics });

const goodGatt: BoardSpecInput['gatt'] = [
  {
    uuid: SVC,
    characteristics: [
      { uuid: RW, properties: ['read', 'write'] },
      { uuid: NOTIFY, properties: ['notify'] },
    ],
  },
];

const lint = async (spec: BoardSpecInput, input: unknown = clean) =>
  lintAgainstBoard(set(input), await discovered(spec)).map((f) => [f.rule, f.field]);

describe('lint against a board', () => {
  it('stays quiet on a board that has everything the set uses', async () => {
    expect(await lint(lintBoard(goodGatt))).toEqual([]);
  });

  it('accepts a 16-bit UUID on the board for the same 128-bit UUID in the set', async () => {
    const battery = '0000180f-0000-1000-8000-00805f9b34fb';
    const level = '00002a19-0000-1000-8000-00805f9b34fb';
    const spec = lintBoard([
      { uuid: '180f', characteristics: [{ uuid: '2a19', properties: ['read'] }] },
    ]);
    const input = {
      autoClose: false,
      suppressionInterval: 0,
      scenarios: [
        {
          trigger: { type: 'IMMEDIATE' },
          actions: [{ type: 'GATT_READ', serviceUuid: battery, characteristicUuid: level }],
        },
      ],
    };
    expect(await lint(spec, input)).toEqual([]);
  });

  it('flags a service the board does not have', async () => {
    const spec = lintBoard([{ uuid: OTHER_SVC, characteristics: goodGatt[0]!.characteristics }]);
    expect(await lint(spec)).toEqual([
      ['no-such-service', 'scenarios[0].actions[0].serviceUuid'],
      ['no-such-service', 'scenarios[0].actions[1].serviceUuid'],
      ['no-such-service', 'scenarios[1].trigger.serviceUuid'],
    ]);
  });

  it('flags a characteristic the board does not have', async () => {
    const spec = lintBoard([
      { uuid: SVC, characteristics: [{ uuid: RW, properties: ['read', 'write'] }] },
    ]);
    expect(await lint(spec)).toEqual([
      ['no-such-characteristic', 'scenarios[1].trigger.characteristicUuid'],
    ]);
  });

  it('flags GATT_WRITE without write, GATT_READ without read, a trigger without notify', async () => {
    const spec = lintBoard([
      {
        uuid: SVC,
        characteristics: [
          { uuid: RW, properties: ['broadcast'] },
          { uuid: NOTIFY, properties: ['read'] },
        ],
      },
    ]);
    expect(await lint(spec)).toEqual([
      ['write-not-permitted', 'scenarios[0].actions[0].characteristicUuid'],
      ['read-not-permitted', 'scenarios[0].actions[1].characteristicUuid'],
      ['notify-not-supported', 'scenarios[1].trigger.characteristicUuid'],
    ]);
    // Write without response and indicate are enough.
    const enough = lintBoard([
      {
        uuid: SVC,
        characteristics: [
          { uuid: RW, properties: ['read', 'writeWithoutResponse'] },
          { uuid: NOTIFY, properties: ['indicate'] },
        ],
      },
    ]);
    expect(await lint(enough)).toEqual([]);
  });

  it('flags data longer than the board MTU carries in one write', async () => {
    const long = {
      ...clean,
      scenarios: [
        {
          trigger: { type: 'IMMEDIATE' },
          actions: [
            {
              type: 'GATT_WRITE',
              serviceUuid: SVC,
              characteristicUuid: RW,
              data: Buffer.alloc(21).toString('base64'),
            },
          ],
        },
      ],
    };
    // MTU 23 carries 20 bytes: 21 is one too many; the default 247 carries them all.
    const findings = lintAgainstBoard(set(long), await discovered(lintBoard(goodGatt, 23)));
    expect(findings).toEqual([
      expect.objectContaining({
        rule: 'data-exceeds-mtu',
        field: 'scenarios[0].actions[0].data',
        message: expect.stringContaining('is 21 bytes'),
      }),
    ]);
    await r?.close();
    r = undefined;
    expect(lintAgainstBoard(set(long), await discovered(lintBoard(goodGatt)))).toEqual([]);
  });
});
