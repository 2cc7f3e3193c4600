// BleCentral through noble's own HCI host stack (hci, acl-stream, gatt, smp) over the virtual
// controller: what real noble does with long values, indications, pairing and ATT errors, and
// what the adapter makes of it, with the HCI traffic checked where it matters.
import { afterEach, describe, expect, it } from 'vitest';
import { ATT_ERROR } from '../../../src/core/ble/att/codes';
import type { Direction } from '../../../src/core/ble/hci/btsnoop';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import {
  rig,
  board,
  sensorBoard,
  smpRecorder,
  JUST_WORKS_PAIRING,
  SENSOR_SERVICE,
  LED,
  type Rig,
} from './fixture';

const SERVICE = '5a1e0000-0d0e-4c2b-9a51-6f7e8d9c0b1a';
const LONG = '5a1e0001-0d0e-4c2b-9a51-6f7e8d9c0b1a';
const SECRET = '5a1e0002-0d0e-4c2b-9a51-6f7e8d9c0b1a';
const ALERT = '5a1e0003-0d0e-4c2b-9a51-6f7e8d9c0b1a';
const LONG_VALUE = Buffer.from('0123456789'.repeat(10)); // 100 bytes: several read blobs at MTU 23

/** A board on the smallest MTU, so long values take blobs and prepared writes. */
function longBoard(overrides: Partial<BoardSpecInput> = {}): BoardSpecInput {
  return board({
    name: 'Long Board',
    address: 'd6:3a:41:00:77:01',
    mtu: 23,
    gatt: [
      {
        uuid: SERVICE,
        characteristics: [
          {
            uuid: LONG,
            properties: ['read', 'write', 'writeWithoutResponse'],
            value: { hex: LONG_VALUE.toString('hex') },
            maxLength: 200,
          },
          {
            uuid: SECRET,
            properties: ['read', 'write'],
            permissions: { read: 'encrypted', write: 'encrypted' },
            value: { utf8: 'sesame' },
            maxLength: 20,
          },
          { uuid: ALERT, properties: ['read', 'indicate'], value: { hex: '00' }, maxLength: 1 },
        ],
      },
    ],
    notifications: { buttons: [{ characteristic: ALERT, payload: { kind: 'counter' } }] },
    ...overrides,
  });
}

let r: Rig;
afterEach(() => r.close());

/** The packets of a session, as the tap records them for the trace. */
function traced() {
  const packets: { direction: Direction; packet: Buffer }[] = [];
  return {
    packets,
    trace: (direction: Direction, packet: Uint8Array) =>
      packets.push({ direction, packet: Buffer.from(packet) }),
  };
}

async function connect(name: string) {
  const ad = await r.find({ name });
  const start = r.clock.now();
  const link = await r.drive(r.central.connect(ad.id));
  return { link, start, id: ad.id };
}

describe("noble's HCI stack over the virtual controller", () => {
  it('leaves no handler on the process once its central is closed', async () => {
    const held = () => process.listenerCount('exit') + process.listenerCount('SIGINT');
    const before = held();
    r = rig([sensorBoard()]);
    await r.find({ name: 'Test Sensor' });
    // noble's bindings added theirs when they started.
    expect(process.listenerCount('exit')).toBeGreaterThan(0);
    await r.close();
    expect(held()).toBe(before);
    r = rig([]);
  });

  it('reads and writes values longer than the MTU (read blob, prepared writes), and without response', async () => {
    r = rig([longBoard()]);
    const { link } = await connect('long');
    expect(link.mtu).toBe(23);
    expect(Buffer.from(await r.drive(link.read(SERVICE, LONG)))).toEqual(LONG_VALUE);
    const written = Buffer.from('abcdefghij'.repeat(15)); // 150 bytes: prepare + execute
    await r.drive(link.write(SERVICE, LONG, written));
    expect(Buffer.from(await r.drive(link.read(SERVICE, LONG)))).toEqual(written);
    await r.drive(link.write(SERVICE, LONG, Buffer.from('short'), { withoutResponse: true }));
    expect(Buffer.from(await r.drive(link.read(SERVICE, LONG))).toString()).toBe('short');
  });

  it('delivers indications (each confirmed) to a subscriber', async () => {
    r = rig([longBoard()]);
    const { link, id } = await connect('long');
    const values: number[] = [];
    await r.drive(link.subscribe(SERVICE, ALERT, (v) => values.push(v[0]!)));
    for (let i = 0; i < 3; i++) {
      r.bench.pressButton(id);
      await r.clock.advance(100);
    }
    expect(values).toEqual([1, 2, 3]);
  });

  it('pairs (Just Works) when the board asks for an encrypted link, then reads and writes', async () => {
    const smp = smpRecorder();
    r = rig([longBoard()], {}, { trace: smp.trace });
    const { link } = await connect('long');
    expect(Buffer.from(await r.drive(link.read(SERVICE, SECRET))).toString()).toBe('sesame');
    expect(smp.seen).toEqual(JUST_WORKS_PAIRING);
    await r.drive(link.write(SERVICE, SECRET, Buffer.from('open')));
    expect(Buffer.from(await r.drive(link.read(SERVICE, SECRET))).toString()).toBe('open');
  });

  it('fails a read of a protected value when the board will not pair, naming why', async () => {
    r = rig([longBoard({ pairing: 'refuse' })]);
    const { link } = await connect('long');
    await expect(r.drive(link.read(SERVICE, SECRET))).rejects.toMatchObject({
      name: 'BleError',
      step: 'read',
      message: expect.stringMatching(
        /needs an encrypted link and the board refused pairing: 0x05 pairing not supported/,
      ),
    });
    // noble's GATT queue would stay stuck on the refused request: the adapter ends the link.
    const reason = await r.drive(new Promise<string>((resolve) => link.onDisconnect(resolve)));
    expect(reason).toContain('0x16');
    const { link: again } = await connect('long');
    expect((await r.drive(again.read(SERVICE, LONG))).length).toBe(100);
  });

  const codes = [
    ATT_ERROR.readNotPermitted,
    ATT_ERROR.writeNotPermitted,
    ATT_ERROR.insufficientAuthorization,
    ATT_ERROR.invalidAttributeValueLength,
    ATT_ERROR.unlikelyError,
    ATT_ERROR.insufficientResources,
    ATT_ERROR.application,
  ];

  const cases = codes.map((code) => [code.toString(16).padStart(2, '0'), code] as const);

  it.each(cases)(
    'reports a read the board refuses with 0x%s as that ATT error, not an empty value',
    async (hex, code) => {
      r = rig([
        sensorBoard({ faults: { refuseAccess: { characteristic: LED, operation: 'read', code } } }),
      ]);
      const { link } = await connect('sensor');
      const err = await r.drive(link.read(SENSOR_SERVICE, LED)).catch((e: unknown) => e);
      expect(err).toMatchObject({
        name: 'BleError',
        step: 'read',
        message: expect.stringContaining(`ATT error 0x${hex}`),
      });
      expect((err as Error).message).toContain('to readReq on handle');
      expect((err as Error & { cause?: { code?: number } }).cause?.code).toBe(code);
    },
  );

  it.each(cases)(
    'fails a write the board refuses with 0x%s in under a second, not by timeout',
    async (hex, code) => {
      r = rig([
        sensorBoard({
          faults: { refuseAccess: { characteristic: LED, operation: 'write', code } },
        }),
      ]);
      const { link } = await connect('sensor');
      await r.drive(link.discover());
      const start = r.clock.now();
      const err = await r
        .drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1)))
        .catch((e: unknown) => e);
      expect(err).toMatchObject({
        name: 'BleError',
        step: 'write',
        message: expect.stringContaining(`ATT error 0x${hex}`),
      });
      // The request goes at the next event, the refusal comes back at the one after: ≤ 2 × 15 ms;
      // Insufficient Authorization makes noble pair first, then the board refuses again.
      const took = r.clock.now() - start;
      expect(took).toBeLessThan(1_000);
      if (code !== ATT_ERROR.insufficientAuthorization) expect(took).toBeLessThanOrEqual(30);
      // noble's queue moved on: the next operation on the link works.
      expect(Array.from(await r.drive(link.read(SENSOR_SERVICE, LED)))).toEqual([0]);
    },
  );

  it('refuses a connection past the adapter’s limit with a clear error; the next one after a disconnect works', async () => {
    r = rig(
      [1, 2, 3].map((n) => board({ name: `Limit ${n}`, address: `d6:3a:41:00:55:0${n}` })),
      {},
      { adapter: { maxConnections: 2 } },
    );
    const ids = [];
    for (const n of [1, 2, 3]) ids.push((await r.find({ name: `limit ${n}` })).id);
    const first = await r.drive(r.central.connect(ids[0]!));
    await r.drive(r.central.connect(ids[1]!));
    await expect(r.drive(r.central.connect(ids[2]!))).rejects.toMatchObject({
      name: 'BleError',
      step: 'connect',
      message: expect.stringMatching(/Connection Limit Exceeded \(0x9\)/i),
    });
    await r.drive(first.disconnect());
    const third = await r.drive(r.central.connect(ids[2]!));
    expect(third.id).toBe(ids[2]);
  });

  it('records every packet of the session for the trace, in both directions', async () => {
    const t = traced();
    r = rig([sensorBoard()], {}, { trace: t.trace });
    const { link } = await connect('sensor');
    await r.drive(link.read(SENSOR_SERVICE, LED));
    const kinds = new Set(t.packets.map(({ direction, packet }) => `${direction}:${packet[0]}`));
    expect([...kinds].sort()).toEqual(['received:2', 'received:4', 'sent:1', 'sent:2']);
  });
});
