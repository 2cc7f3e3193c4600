// An independent GATT server to hold the board's ATT server against: the `ble-host` package's
// peripheral, run over a minimal HCI transport that plays the controller. It answers ble-host's
// initialisation commands with Command Complete, hands it an LE Connection Complete in the
// peripheral role once it advertises, and carries ATT over ACL (L2CAP CID 4) with Number Of
// Completed Packets, so a test can send the same request PDU to both servers.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { L2CAP_CID } from '../../../src/core/ble/att/codes';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, LE_SUBEVENT } from '../../../src/core/ble/hci/codes';
import type { GattServiceSpec } from '../../../src/core/ble/sim/gatt-database';
import { expandUuid, type CharacteristicProperty } from '../../../src/core/ble/port';

/** The parts of ble-host's API the harness uses (the package ships no types). */
interface BleHostManager {
  gattDb: { setDeviceName(name: string): void; addServices(services: unknown[]): void };
  startAdvertising(options: object, callback: (status: number) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
}
interface BleHost {
  BleManager: {
    create(
      transport: EventEmitter & { write(packet: Buffer): void },
      options: object,
      callback: (err: Error | null, manager: BleHostManager) => void,
    ): void;
  };
}
const bleHost = createRequire(import.meta.url)('ble-host') as BleHost;

const CONNECTION_HANDLE = 0x0040;
/** LE ACL buffers offered to ble-host: 251 bytes, enough for any PDU at ATT_MTU 247. */
const ACL_LENGTH = 251;

const le16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];

function event(code: number, params: number[]): Buffer {
  return Buffer.from([HCI_PACKET.event, code, params.length, ...params]);
}

/** What a characteristic reads and writes in both servers, plus refusals by the application. */
export interface CrossCheckValue {
  value?: Uint8Array;
  /** Application error (0x80–0x9f) the board answers to every read. */
  readError?: number;
  /** Application error the board answers to every write. */
  writeError?: number;
}

/** The board-style services in ble-host's declaration form, descriptors in our server's order. */
function bleHostServices(
  services: readonly GattServiceSpec[],
  values: (service: string, characteristic: string) => CrossCheckValue,
): unknown[] {
  const uuid = (u: string) => {
    if (u.length === 4) return parseInt(u, 16);
    const x = expandUuid(u).toUpperCase();
    return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
  };
  const names: Record<string, string> = {
    read: 'read',
    write: 'write',
    writeWithoutResponse: 'write-without-response',
    notify: 'notify',
    indicate: 'indicate',
  };
  return services.map((s) => ({
    uuid: uuid(s.uuid),
    characteristics: s.characteristics.map((c) => {
      const v = values(s.uuid, c.uuid);
      const can = (...ps: CharacteristicProperty[]) => ps.some((p) => c.properties.includes(p));
      return {
        uuid: uuid(c.uuid),
        properties: c.properties.map((p) => names[p]),
        maxLength: c.maxLength,
        readPerm: can('read') ? (c.permissions?.read ?? 'open') : undefined,
        writePerm: can('write', 'writeWithoutResponse')
          ? (c.permissions?.write ?? 'open')
          : undefined,
        ...(v.readError !== undefined
          ? { onRead: (_c: unknown, cb: (err: number) => void) => cb(v.readError!) }
          : { value: Buffer.from(v.value ?? []) }),
        ...(v.writeError !== undefined && {
          onWrite: (_c: unknown, _r: boolean, _v: Buffer, cb: (err: number) => void) =>
            cb(v.writeError!),
        }),
        descriptors: [
          ...(can('notify', 'indicate') ? [{ uuid: 0x2902 }] : []),
          ...(c.name !== undefined
            ? [{ uuid: 0x2901, value: Buffer.from(c.name), writePerm: 'not-permitted' }]
            : []),
        ],
      };
    }),
  }));
}

class HciTransport extends EventEmitter {
  /** ATT PDUs ble-host sent that are not its own requests, oldest first. */
  readonly received: Buffer[] = [];
  private waiter: (() => void) | null = null;

  write(packet: Buffer): void {
    // A controller answers after the write returns, never inside it.
    setImmediate(() => this.fromHost(packet));
  }

  sendAtt(pdu: Uint8Array): void {
    const l2cap = [...le16(pdu.length), ...le16(L2CAP_CID.att), ...pdu];
    // Packet boundary 0b10: the first fragment of an automatically flushable packet.
    const header = [...le16(CONNECTION_HANDLE | 0x2000), ...le16(l2cap.length)];
    this.emit('data', Buffer.from([HCI_PACKET.acl, ...header, ...l2cap]));
  }

  /** The next PDU ble-host sends, or null if none comes within `ms`. */
  async next(ms: number): Promise<Buffer | null> {
    if (!this.received.length)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    return this.received.shift() ?? null;
  }

  private fromHost(packet: Buffer): void {
    if (packet[0] === HCI_PACKET.command) this.command(packet.readUInt16LE(1), packet.subarray(4));
    else if (packet[0] === HCI_PACKET.acl) this.acl(packet);
  }

  private command(op: number, params: Buffer): void {
    const ret =
      op === HCI_CMD.leReadBufferSize
        ? [...le16(ACL_LENGTH), 8]
        : op === HCI_CMD.readBdAddr
          ? [0x01, 0x00, 0x00, 0x00, 0xce, 0xf4]
          : new Array<number>(8).fill(0);
    this.emit('data', event(HCI_EVENT.commandComplete, [1, ...le16(op), 0x00, ...ret]));
    if (op === HCI_CMD.leSetAdvertisingEnable && params[0] === 1)
      setImmediate(() =>
        this.emit(
          'data',
          // LE Connection Complete, role 0x01 (peripheral), a central at c0:00:00:00:00:01.
          event(HCI_EVENT.leMeta, [
            LE_SUBEVENT.connectionComplete,
            0x00,
            ...le16(CONNECTION_HANDLE),
            0x01,
            0x01,
            ...[0x01, 0x00, 0x00, 0x00, 0x00, 0xc0],
            ...le16(24),
            ...le16(0),
            ...le16(400),
            0x00,
          ]),
        ),
      );
  }

  private acl(packet: Buffer): void {
    // Every ACL packet leaves the controller's buffer at once.
    this.emit(
      'data',
      event(HCI_EVENT.numberOfCompletedPackets, [1, ...le16(CONNECTION_HANDLE), ...le16(1)]),
    );
    // One fragment per PDU: ble-host's PDUs fit the 251-byte buffers offered.
    if (packet.readUInt16LE(7) !== L2CAP_CID.att) return;
    const pdu = packet.subarray(9);
    this.received.push(pdu);
    this.waiter?.();
    this.waiter = null;
  }
}

export interface BleHostPeripheral {
  /** Sends one ATT PDU; the PDU ble-host answers with, or null within `ms` (commands). */
  request(pdu: Uint8Array, ms?: number): Promise<Uint8Array | null>;
  close(): void;
}

/** ble-host's peripheral serving `services` (after its own GATT and GAP services), connected. */
export async function startBleHostPeripheral(
  services: readonly GattServiceSpec[],
  values: (service: string, characteristic: string) => CrossCheckValue,
  deviceName: string,
): Promise<BleHostPeripheral> {
  const transport = new HciTransport();
  const manager = await new Promise<BleHostManager>((resolve, reject) =>
    bleHost.BleManager.create(transport, {}, (err, m) => (err ? reject(err) : resolve(m))),
  );
  manager.on('error', () => undefined);
  manager.gattDb.setDeviceName(deviceName);
  manager.gattDb.addServices(bleHostServices(services, values));
  await new Promise<void>((resolve, reject) =>
    manager.startAdvertising({}, (status) =>
      status ? reject(new Error(`advertising status ${status}`)) : resolve(),
    ),
  );
  return {
    async request(pdu, ms = 200) {
      transport.sendAtt(pdu);
      return transport.next(ms);
    },
    close() {
      transport.emit('close');
    },
  };
}
