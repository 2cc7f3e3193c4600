// noble's own GATT client (lib/hci-socket/gatt.js, the code that runs on a Linux adapter) against
// the board's ATT server, joined by a stand-in for noble's ACL stream: every procedure noble
// runs on hardware — discovery, long reads and writes, CCCDs, notifications, pairing on
// Insufficient Authentication — answered by the server's bytes.
import { EventEmitter, once } from 'node:events';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { AttServer, type GattServiceSpec } from '../../../src/core/ble/sim/att-server';
import type { AttResult, WriteResult } from '../../../src/core/ble/sim/att-server';
import { L2CAP_CID } from '../../../src/core/ble/att/codes';

/** The parts of noble's Gatt class the test drives (noble ships no types for it). */
interface NobleGatt extends EventEmitter {
  exchangeMtu(): void;
  discoverServices(uuids: string[]): void;
  discoverCharacteristics(service: string, uuids: string[]): void;
  discoverDescriptors(service: string, characteristic: string): void;
  read(service: string, characteristic: string): void;
  write(service: string, characteristic: string, data: Buffer, withoutResponse: boolean): void;
  notify(service: string, characteristic: string, on: boolean): void;
}
const Gatt = createRequire(import.meta.url)('@abandonware/noble/lib/hci-socket/gatt.js') as new (
  address: string,
  aclStream: EventEmitter,
) => NobleGatt;

const SERVICE = '8f1d00006b4e4c5a9d3e2a7c5b1e0f00';
const LONG_VALUE = '8f1d00016b4e4c5a9d3e2a7c5b1e0f00';
const SECRET = '8f1d00046b4e4c5a9d3e2a7c5b1e0f00';
const REFUSING = '8f1d00056b4e4c5a9d3e2a7c5b1e0f00';
const INDICATING = '8f1d00066b4e4c5a9d3e2a7c5b1e0f00';
const SERVICES: GattServiceSpec[] = [
  {
    uuid: '180f',
    characteristics: [
      { uuid: '2a19', name: 'Battery Level', properties: ['read', 'notify'], maxLength: 1 },
    ],
  },
  {
    uuid: SERVICE,
    characteristics: [
      { uuid: LONG_VALUE, properties: ['read', 'write'], maxLength: 512 },
      { uuid: SECRET, properties: ['read'], permissions: { read: 'encrypted' }, maxLength: 20 },
      { uuid: REFUSING, properties: ['read', 'write'], maxLength: 20 },
      { uuid: INDICATING, properties: ['indicate'], maxLength: 20 },
    ],
  },
];

function connect(serverMtu = 23) {
  const values = new Map<string, Uint8Array>([
    ['2a19', Uint8Array.of(0x64)],
    [LONG_VALUE, Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz')],
    [SECRET, Buffer.from('PSDI-0001')],
  ]);
  const board = {
    read: (_s: string, c: string): AttResult =>
      c === REFUSING
        ? { ok: false, code: 0x80 }
        : { ok: true, data: values.get(c) ?? new Uint8Array() },
    write: (_s: string, c: string, data: Uint8Array): WriteResult => {
      if (c === REFUSING) return { ok: false, code: 0x81 };
      values.set(c, Uint8Array.from(data));
      return { ok: true, data: new Uint8Array() };
    },
    setNotify: (): AttResult => ({ ok: true, data: new Uint8Array() }),
  };
  let encrypted = false;
  const pairings = { count: 0 };
  const server = new AttServer(SERVICES, board, { encrypted: () => encrypted }, { serverMtu });
  const acl = Object.assign(new EventEmitter(), {
    // Both directions one connection event later, as a controller would carry them.
    write(cid: number, pdu: Buffer) {
      expect(cid).toBe(L2CAP_CID.att);
      setImmediate(() => {
        const outcome = server.handle(pdu);
        if (outcome.kind === 'respond') acl.emit('data', L2CAP_CID.att, Buffer.from(outcome.pdu));
      });
    },
    // What SMP would end with: Just Works pairing, then the link encrypted.
    encrypt() {
      pairings.count++;
      setImmediate(() => {
        encrypted = true;
        acl.emit('encrypt', true);
      });
    },
  });
  const gatt = new Gatt('d2:5a:7e:00:30:01', acl);
  const push = (service: string, characteristic: string, data: Uint8Array) => {
    const pdu = server.push(service, characteristic, data);
    if (pdu) acl.emit('data', L2CAP_CID.att, Buffer.from(pdu));
  };
  return { gatt, server, values, pairings, push };
}

async function discover(gatt: NobleGatt) {
  gatt.discoverServices([]);
  const [, services] = (await once(gatt, 'servicesDiscover')) as [string, string[]];
  for (const service of services) {
    gatt.discoverCharacteristics(service, []);
    await once(gatt, 'characteristicsDiscover');
  }
  return services;
}

describe("noble's GATT client against the board's ATT server", () => {
  it('discovers services, characteristics and descriptors', async () => {
    const { gatt } = connect();
    expect(await discover(gatt)).toEqual(['180f', SERVICE]);
    gatt.discoverCharacteristics(SERVICE, []);
    const [, , characteristics] = (await once(gatt, 'characteristicsDiscover')) as [
      string,
      string,
      { uuid: string; properties: string[] }[],
    ];
    expect(characteristics).toEqual([
      { uuid: LONG_VALUE, properties: ['read', 'write'] },
      { uuid: SECRET, properties: ['read'] },
      { uuid: REFUSING, properties: ['read', 'write'] },
      { uuid: INDICATING, properties: ['indicate'] },
    ]);
    gatt.discoverDescriptors('180f', '2a19');
    const [, , , descriptors] = (await once(gatt, 'descriptorsDiscover')) as unknown[];
    expect(descriptors).toEqual(['2902', '2901']);
  });

  it('reads and writes a value longer than one PDU (Read Blob, Prepare and Execute Write)', async () => {
    const { gatt, values } = connect();
    await discover(gatt);
    gatt.read(SERVICE, LONG_VALUE);
    const [, , , first] = (await once(gatt, 'read')) as [string, string, string, Buffer];
    expect(first.toString()).toBe('0123456789abcdefghijklmnopqrstuvwxyz');
    const long = Buffer.from('a value of forty-eight bytes, written in parts!!');
    gatt.write(SERVICE, LONG_VALUE, long, false);
    await once(gatt, 'write');
    expect(Buffer.from(values.get(LONG_VALUE)!).toString()).toBe(long.toString());
  });

  it('exchanges the MTU, then reads the long value in one response', async () => {
    const { gatt, server } = connect(247);
    gatt.exchangeMtu();
    const [, mtu] = (await once(gatt, 'mtu')) as [string, number];
    expect([mtu, server.mtu]).toEqual([247, 247]);
    await discover(gatt);
    gatt.read(SERVICE, LONG_VALUE);
    const [, , , value] = (await once(gatt, 'read')) as [string, string, string, Buffer];
    expect(value.length).toBe(36);
  });

  it('subscribes through the CCCD and receives notifications', async () => {
    const { gatt, push } = connect();
    await discover(gatt);
    gatt.notify('180f', '2a19', true);
    await once(gatt, 'notify');
    const notification = once(gatt, 'notification');
    push('180f', '2a19', Uint8Array.of(0x63));
    const [, , , data] = (await notification) as [string, string, string, Buffer];
    expect(data).toEqual(Buffer.of(0x63));
  });

  it('confirms indications, and the next one goes out after each confirmation', async () => {
    const { gatt, push } = connect();
    await discover(gatt);
    gatt.notify(SERVICE, INDICATING, true);
    await once(gatt, 'notify');
    const received: string[] = [];
    gatt.on('notification', (_a: string, _s: string, _c: string, data: Buffer) =>
      received.push(data.toString('hex')),
    );
    const confirmed = new Promise<void>((resolve) => {
      let confirmations = 0;
      gatt.on('handleConfirmation', () => ++confirmations === 3 && resolve());
    });
    for (const byte of [1, 2, 3]) push(SERVICE, INDICATING, Uint8Array.of(byte));
    await confirmed;
    expect(received).toEqual(['01', '02', '03']);
  });

  it('pairs on Insufficient Authentication and reads the encrypted value after', async () => {
    const { gatt, pairings } = connect();
    await discover(gatt);
    gatt.read(SERVICE, SECRET);
    const [, , , value] = (await once(gatt, 'read')) as [string, string, string, Buffer];
    expect(pairings.count).toBe(1);
    expect(value.toString()).toBe('PSDI-0001');
  });

  it("reports a refused read as an empty read, as noble does (the HCI tap's job to correct)", async () => {
    const { gatt } = connect();
    await discover(gatt);
    gatt.read(SERVICE, REFUSING);
    const [, , , value] = (await once(gatt, 'read')) as [string, string, string, Buffer];
    expect(value.length).toBe(0);
  });
});
