// A prototype board played by a BLE peripheral host stack this project did not write (the
// `ble-host` package) on a controller it did not write (btvirt): firmware in a few lines that
// follows docs/provisioning-protocol.md for profile `devicebench-v1` — provisioning mode, the
// commit stored before it is answered, a drop and a "reboot" into product mode advertising the
// product's service UUID — plus a test service whose characteristics take 240 bytes, refuse
// every read (Read Not Permitted) and refuse every write (Write Not Permitted). Built `secure`,
// its PSDI (written in provisioning mode, read in product mode) needs an authenticated LE Secure
// Connections link, and it pairs with MITM and bonding as a keyboard board: its person types the
// passkey the bench was given (docs/decisions.md, "Proof against BlueZ's btvirt").
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';

export const PROVISIONING = {
  service: '8f1d0000-6b4e-4c5a-9d3e-2a7c5b1e0f00',
  serviceUuid: '8f1d0001-6b4e-4c5a-9d3e-2a7c5b1e0f00',
  psdiServiceUuid: '8f1d0002-6b4e-4c5a-9d3e-2a7c5b1e0f00',
  psdiCharacteristicUuid: '8f1d0003-6b4e-4c5a-9d3e-2a7c5b1e0f00',
  psdi: '8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00',
  control: '8f1d0005-6b4e-4c5a-9d3e-2a7c5b1e0f00',
  status: '8f1d0006-6b4e-4c5a-9d3e-2a7c5b1e0f00',
} as const;

/** The test service: what the proof reads, writes and is refused. */
export const BENCH = {
  service: 'b7e50000-0b1e-4d2a-8c3f-5a6b7c8d9e00',
  /** Read and write, up to 240 bytes; reads back what was written. */
  echo: 'b7e50001-0b1e-4d2a-8c3f-5a6b7c8d9e00',
  /** Readable by its properties; every read is answered with ATT 0x02. */
  refusesRead: 'b7e50002-0b1e-4d2a-8c3f-5a6b7c8d9e00',
  /** Writable by its properties; every write is answered with ATT 0x03. */
  refusesWrite: 'b7e50003-0b1e-4d2a-8c3f-5a6b7c8d9e00',
} as const;

const ECHO_MAX = 240;
const PSDI_MAX = 20;
const STATUS = { blank: 0x00, pending: 0x01, committed: 0x02, rejected: 0x80 } as const;
const ATT = { readNotPermitted: 0x02, writeNotPermitted: 0x03, badLength: 0x0d, app: 0x80 };

/** One full HCI packet per write and per 'data' event, H4 type byte first (ble-host's transport). */
export type HciTransport = EventEmitter & { write(packet: Buffer): void };

interface Connection {
  disconnect(reason?: number): void;
  on(event: 'disconnect', listener: () => void): void;
  smp: {
    on(event: 'pairingRequest', listener: (req: object, cb: (rsp: object) => void) => void): void;
    on(
      event: 'passkeyExchange',
      listener: (model: number, shown: string | null, cb: (typed?: number) => void) => void,
    ): void;
  };
}
type Callback = (status: number, value?: Buffer) => void;
interface Characteristic {
  uuid: string;
  properties: string[];
  readPerm?: string;
  writePerm?: string;
  maxLength?: number;
  value?: Buffer;
  onRead?: (connection: Connection, callback: Callback) => void;
  onWrite?: (connection: Connection, needsResponse: boolean, value: Buffer, cb: Callback) => void;
  notifyAll?: (value: Buffer) => void;
}
interface Service {
  uuid: string;
  characteristics: Characteristic[];
}
interface Manager {
  gattDb: {
    setDeviceName(name: string): void;
    addServices(services: Service[]): void;
    removeService(service: Service): void;
  };
  setAdvertisingData(data: Buffer, callback?: (status: number) => void): void;
  setScanResponseData(data: Buffer, callback?: (status: number) => void): void;
  startAdvertising(options: object, callback: (status: number, conn?: Connection) => void): void;
}
interface BleHostPackage {
  BleManager: {
    create(
      transport: HciTransport,
      options: object,
      callback: (err: Error | null, manager: Manager) => void,
    ): void;
  };
  AdvertisingDataBuilder: new () => {
    addFlags(flags: string[]): unknown;
    addLocalName(complete: boolean, name: string): unknown;
    add128BitServiceUUIDs(complete: boolean, uuids: string[]): unknown;
    build(): Buffer;
  };
}
const bleHost = createRequire(import.meta.url)('ble-host') as BleHostPackage;

/** The PSDI behind an authenticated SC link; the passkey its person types when pairing. */
export interface BoardSecurity {
  passkey: number;
}

/** ble-host's IO capability code for KeyboardOnly, and ble-host's permission for level 4. */
const KEYBOARD_ONLY = 2;
const AUTHENTICATED_SC = 'encrypted-mitm-sc';

export interface ProvisioningBoard {
  readonly name: string;
  /** What the board stored at its commit, once in product mode. */
  stored():
    | { serviceUuid: string; psdiServiceUuid: string; psdiCharacteristicUuid: string; psdi: string }
    | undefined;
}

const uuidText = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

function advertisingData(service: string): Buffer {
  const builder = new bleHost.AdvertisingDataBuilder();
  builder.addFlags(['leGeneralDiscoverableMode', 'brEdrNotSupported']);
  builder.add128BitServiceUUIDs(true, [service]);
  return builder.build();
}

function scanResponse(name: string): Buffer {
  const builder = new bleHost.AdvertisingDataBuilder();
  builder.addLocalName(true, name);
  return builder.build();
}

/** Starts the board's firmware on `transport` and has it advertise in provisioning mode. */
export function startProvisioningBoard(
  transport: HciTransport,
  name: string,
  secure?: BoardSecurity,
): Promise<ProvisioningBoard> {
  return new Promise((resolve, reject) => {
    bleHost.BleManager.create(transport, {}, (err, manager) => {
      if (err) return reject(err);
      resolve(runFirmware(manager, name, secure));
    });
  });
}

/** The board pairs with MITM and bonding, typing its passkey when it has to enter one. */
function pairAsKeyboard(conn: Connection, secure: BoardSecurity): void {
  conn.smp.on('pairingRequest', (_req, cb) =>
    cb({ ioCap: KEYBOARD_ONLY, bondingFlags: 1, mitm: true }),
  );
  conn.smp.on('passkeyExchange', (_model, _shown, typed) => typed(secure.passkey));
}

function runFirmware(
  manager: Manager,
  name: string,
  secure: BoardSecurity | undefined,
): ProvisioningBoard {
  const psdiPermission = secure ? AUTHENTICATED_SC : 'open';
  const pending = new Map<string, Buffer>();
  let stored: ReturnType<ProvisioningBoard['stored']>;
  let status: number = STATUS.blank;
  let advertised: string = PROVISIONING.service;
  let connection: Connection | undefined;
  /** Between a good commit and the reboot: the board advertises nothing (provisioning-protocol.md). */
  let rebooting = false;

  const statusCharacteristic: Characteristic = {
    uuid: PROVISIONING.status,
    properties: ['read', 'notify'],
    onRead: (_c, cb) => cb(0, Buffer.from([status])),
  };
  const setStatus = (next: number) => {
    status = next;
    statusCharacteristic.notifyAll?.(Buffer.from([status]));
  };
  const value = (uuid: string, length: (n: number) => boolean): Characteristic => ({
    uuid,
    properties: ['read', 'write'],
    ...(uuid === PROVISIONING.psdi && { readPerm: psdiPermission, writePerm: psdiPermission }),
    maxLength: uuid === PROVISIONING.psdi ? PSDI_MAX : 16,
    onRead: (_c, cb) => cb(0, pending.get(uuid) ?? Buffer.alloc(0)),
    onWrite: (_c, _needsResponse, written, cb) => {
      if (!length(written.length)) return cb(ATT.badLength);
      pending.set(uuid, Buffer.from(written));
      setStatus(STATUS.pending);
      cb(0);
    },
  });
  const provisioning: Service = {
    uuid: PROVISIONING.service,
    characteristics: [
      value(PROVISIONING.serviceUuid, (n) => n === 16),
      value(PROVISIONING.psdiServiceUuid, (n) => n === 16),
      value(PROVISIONING.psdiCharacteristicUuid, (n) => n === 16),
      value(PROVISIONING.psdi, (n) => n >= 1 && n <= PSDI_MAX),
      {
        uuid: PROVISIONING.control,
        properties: ['write'],
        onWrite: (_c, _needsResponse, written, cb) => {
          const keys = [
            PROVISIONING.serviceUuid,
            PROVISIONING.psdiServiceUuid,
            PROVISIONING.psdiCharacteristicUuid,
            PROVISIONING.psdi,
          ];
          if (written.length !== 1 || written[0] !== 0x01 || keys.some((k) => !pending.has(k))) {
            setStatus(STATUS.rejected);
            return cb(ATT.app);
          }
          // Stored before the write is answered (docs/provisioning-protocol.md, "Writes and the commit").
          stored = {
            serviceUuid: uuidText(pending.get(PROVISIONING.serviceUuid)!),
            psdiServiceUuid: uuidText(pending.get(PROVISIONING.psdiServiceUuid)!),
            psdiCharacteristicUuid: uuidText(pending.get(PROVISIONING.psdiCharacteristicUuid)!),
            psdi: pending.get(PROVISIONING.psdi)!.toString('utf8'),
          };
          setStatus(STATUS.committed);
          rebooting = true;
          cb(0);
          setTimeout(reboot, 200);
        },
      },
      statusCharacteristic,
    ],
  };
  const bench: Service = {
    uuid: BENCH.service,
    characteristics: [
      {
        uuid: BENCH.echo,
        properties: ['read', 'write'],
        maxLength: ECHO_MAX,
        value: Buffer.alloc(0),
      },
      {
        uuid: BENCH.refusesRead,
        properties: ['read'],
        onRead: (_c, cb) => cb(ATT.readNotPermitted),
      },
      {
        uuid: BENCH.refusesWrite,
        properties: ['read', 'write'],
        onRead: (_c, cb) => cb(0, Buffer.from([0])),
        onWrite: (_c, _needsResponse, _written, cb) => cb(ATT.writeNotPermitted),
      },
    ],
  };

  manager.gattDb.setDeviceName(name);
  manager.gattDb.addServices([provisioning, bench]);
  manager.setScanResponseData(scanResponse(name));

  const advertise = () => {
    manager.setAdvertisingData(advertisingData(advertised));
    manager.startAdvertising({}, (result, conn) => {
      if (result !== 0 || !conn) return;
      connection = conn;
      if (secure) pairAsKeyboard(conn, secure);
      conn.on('disconnect', () => {
        connection = undefined;
        if (!rebooting) advertise();
      });
    });
  };

  // A reboot into product mode: the provisioning service goes, the product's PSDI service comes,
  // and the board advertises the product's service UUID once the link is down.
  function reboot() {
    if (!stored) return;
    const identity = stored;
    manager.gattDb.removeService(provisioning);
    manager.gattDb.addServices([
      {
        uuid: identity.psdiServiceUuid,
        characteristics: [
          {
            uuid: identity.psdiCharacteristicUuid,
            properties: ['read'],
            readPerm: psdiPermission,
            value: Buffer.from(identity.psdi, 'utf8'),
          },
        ],
      },
    ]);
    advertised = identity.serviceUuid;
    rebooting = false;
    if (connection) connection.disconnect();
    else advertise();
  }

  advertise();
  return { name, stored: () => stored };
}
