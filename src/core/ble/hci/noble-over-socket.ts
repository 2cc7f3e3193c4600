// A real noble whose `hci-socket` host stack (lib/hci-socket: hci, gap, gatt, acl-stream, smp)
// runs unmodified over a socket we hand it: the simulated bench's virtual controller, or the
// machine's adapter behind the HCI tap. noble's hci.js takes its socket with
// `new (require('@abandonware/bluetooth-hci-socket'))()`; the module cache entry for that
// package is pointed at a constructor that returns the socket given here, so no native socket is
// ever opened for the simulated bench.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import type { HciSocket } from './socket';
import { ATT_OP } from '../att/codes';
import { ATT_MTU } from '../link-parameters';

const require = createRequire(import.meta.url);

/**
 * The socket being handed out and the constructor noble holds for it. Node's require cache, where
 * that constructor goes, is the process's, so these are kept on the process too: a second copy of
 * this module (a test runner evaluating it again for another file) hands out through the
 * constructor noble took from the first.
 */
interface HandOut {
  socket: HciSocket | null;
  /** What `new BluetoothHciSocket()` yields inside noble: the socket being handed out. */
  readonly InjectedHciSocket: () => HciSocket;
}

const HAND_OUT = Symbol.for('devicebench.noble-over-socket.hand-out');
const shared = globalThis as { [HAND_OUT]?: HandOut };
const handOut: HandOut = (shared[HAND_OUT] ??= {
  socket: null,
  // A function, not a method: noble calls it with `new`, and a method is no constructor.
  InjectedHciSocket: function (): HciSocket {
    if (!handOut.socket) throw new Error('no HCI socket to hand to noble (use nobleOverSocket)');
    return handOut.socket;
  },
});
const { InjectedHciSocket } = handOut;
let nativeSocket: (new () => HciSocket) | null | undefined;

function socketModulePath(): string {
  const hciDir = dirname(require.resolve('@abandonware/noble/lib/hci-socket/hci.js'));
  return require.resolve('@abandonware/bluetooth-hci-socket', { paths: [hciDir] });
}

/** Points the socket package's module at `InjectedHciSocket`, once, before noble loads it. */
function install(): void {
  const path = socketModulePath();
  const cached = require.cache[path];
  if (cached?.exports === InjectedHciSocket) return;
  if (nativeSocket === undefined && cached) nativeSocket = cached.exports as new () => HciSocket;
  require.cache[path] = {
    id: path,
    filename: path,
    path: dirname(path),
    loaded: true,
    exports: InjectedHciSocket,
    children: [],
    paths: [],
  } as unknown as NodeJS.Module;
}

/**
 * The native HCI socket class (Linux), loaded on first use; throws when the driver cannot load
 * (no build for this platform, no Bluetooth support in the kernel).
 */
export function loadNativeHciSocket(): new () => HciSocket {
  if (nativeSocket) return nativeSocket;
  const path = socketModulePath();
  const cached = require.cache[path];
  if (cached && cached.exports !== InjectedHciSocket) {
    nativeSocket = cached.exports as new () => HciSocket;
    return nativeSocket;
  }
  delete require.cache[path];
  try {
    nativeSocket = require(path) as new () => HciSocket;
  } finally {
    if (cached) require.cache[path] = cached;
  }
  return nativeSocket;
}

/** noble's HCI bindings object, as far as DeviceBench listens to it. */
export interface HciBindings {
  onSigIntBinded?: () => void;
  init(...args: unknown[]): unknown;
  /** noble's HCI layer: one per bindings, shared by every link's ACL stream. */
  _hci: object;
  /** Peripheral id → connection handle; per handle, the link's ACL stream and GATT client. */
  _handles: Record<string, number | undefined>;
  _aclStreams: Record<number, NobleAclStream | undefined>;
  _gatts: Record<number, NobleGatt | undefined>;
  on(event: 'onMtu', listener: (peripheralId: string, mtu: number) => void): unknown;
  off(event: 'onMtu', listener: (peripheralId: string, mtu: number) => void): unknown;
}

interface NobleAclStream {
  encrypt(): void;
  on(event: 'encrypt', listener: (encrypted: boolean) => void): unknown;
  once(event: 'encrypt' | 'encryptFail' | 'end', listener: (encrypted?: boolean) => void): unknown;
  removeListener(event: 'encrypt', listener: (encrypted: boolean) => void): unknown;
}

interface NobleGatt {
  _security: string;
  onAclStreamEncryptBinded: (encrypted: boolean) => void;
}

/**
 * Pairs with the board through noble's ACL stream (acl-stream.js `encrypt`, which the station's
 * Security Manager answers: hci/noble-smp.ts), as noble does when a board asks for encryption. noble's GATT client answers a new encryption by sending its
 * current request again and has none when pairing is asked for by itself, so it stops
 * listening for that one encryption and is told of it afterwards. False when there is no link.
 */
export function pairThroughNoble(bindings: HciBindings, peripheralId: string): boolean {
  const handle = bindings._handles[peripheralId];
  const stream = handle === undefined ? undefined : bindings._aclStreams[handle];
  const gatt = handle === undefined ? undefined : bindings._gatts[handle];
  if (!stream || !gatt) return false;
  stream.removeListener('encrypt', gatt.onAclStreamEncryptBinded);
  let restored = false;
  const restore = (encrypted?: boolean) => {
    if (restored) return;
    restored = true;
    if (encrypted) gatt._security = 'medium';
    stream.on('encrypt', gatt.onAclStreamEncryptBinded);
  };
  stream.once('encrypt', restore);
  stream.once('encryptFail', () => restore());
  stream.once('end', () => restore());
  stream.encrypt();
  return true;
}

/** noble's GATT client (gatt.js), as far as its MTU exchange goes. */
interface NobleGattClient {
  _address: string;
  _aclStream: { _hci: object };
  _mtu: number;
  _desired_mtu: number;
  mtuRequest(mtu: number): Buffer;
  _queueCommand(request: Buffer, callback: (data: Buffer) => void): void;
  emit(event: 'mtu', address: string, mtu: number): boolean;
}

/** Per noble instance (its HCI layer), the ATT MTU to ask of each board, by peripheral id. */
const mtuToAsk = new WeakMap<object, Map<string, number>>();

/**
 * The Exchange MTU Request noble's GATT client sends first thing on each new link (the one
 * exchange ATT allows the client, docs/decisions.md "MTU (asking for one)"), carrying the MTU asked
 * for this board, or noble's own when none was. The link's MTU is the smaller of the two Rx
 * MTUs; noble's own exchange keeps the board's, which can be more than this side offered.
 */
function exchangeMtu(this: NobleGattClient): void {
  const id = this._address.split(':').join('').toLowerCase();
  const ask = mtuToAsk.get(this._aclStream._hci)?.get(id) ?? this._desired_mtu;
  // noble answers a board's own Exchange MTU Request with this value too.
  this._desired_mtu = ask;
  this._queueCommand(this.mtuRequest(ask), (data) => {
    if (data[0] === ATT_OP.mtuRsp)
      this._mtu = Math.max(ATT_MTU.min, Math.min(ask, data.readUInt16LE(1)));
    this.emit('mtu', this._address, this._mtu);
  });
}

/** Points noble's GATT client at `exchangeMtu` before any link opens. */
function installMtuExchange(): void {
  const Gatt = require('@abandonware/noble/lib/hci-socket/gatt') as {
    prototype: { exchangeMtu: () => void };
  };
  Gatt.prototype.exchangeMtu = exchangeMtu as () => void;
}

/**
 * The MTU the next link to `peripheralId` asks for in its Exchange MTU Request; `undefined`
 * goes back to noble's own.
 */
export function askMtu(bindings: HciBindings, peripheralId: string, mtu: number | undefined): void {
  let asks = mtuToAsk.get(bindings._hci);
  if (!asks) mtuToAsk.set(bindings._hci, (asks = new Map()));
  if (mtu === undefined) asks.delete(peripheralId);
  else asks.set(peripheralId, mtu);
}

/**
 * A noble instance over `socket`, through noble's own HCI host stack, and its bindings.
 * `deviceId` is the kernel adapter index noble binds to (`hci1` is 1); default the first.
 */
export function nobleOverSocket(
  socket: HciSocket,
  options: { deviceId?: number } = {},
): {
  noble: NobleInstance;
  bindings: HciBindings;
} {
  install();
  installMtuExchange();
  const Bindings = require('@abandonware/noble/lib/hci-socket/bindings') as new (
    options: object,
  ) => HciBindings;
  const withBindings =
    require('@abandonware/noble/with-bindings') as typeof import('@abandonware/noble/with-bindings');
  handOut.socket = socket;
  try {
    const bindings = new Bindings(options);
    keepExitHandler(bindings);
    return { noble: withBindings(bindings as never), bindings };
  } finally {
    handOut.socket = null;
  }
}

/**
 * The `exit` handler noble's bindings add to the process when they start (it stops the scan and
 * ends the links, so a process that exits leaves its adapter clean), which noble keeps no
 * reference to: found as the one their start added.
 */
const exitHandlers = new WeakMap<HciBindings, NodeJS.ExitListener>();

function keepExitHandler(bindings: HciBindings): void {
  const init = bindings.init;
  bindings.init = (...args) => {
    const before = new Set(process.listeners('exit'));
    try {
      return init.apply(bindings, args);
    } finally {
      const added = process.listeners('exit').find((l) => !before.has(l));
      if (added) exitHandlers.set(bindings, added);
    }
  };
}

function bindingsOf(noble: NobleInstance): HciBindings | undefined {
  return (noble as unknown as { _bindings?: HciBindings })._bindings;
}

/**
 * noble's HCI bindings exit the process on SIGINT when theirs is the last handler; a caller with
 * its own safe stop (a batch in the CLI) or a closed central takes that handler away.
 */
export function releaseSigint(noble: NobleInstance): void {
  const bindings = bindingsOf(noble);
  if (bindings?.onSigIntBinded) process.removeListener('SIGINT', bindings.onSigIntBinded);
}

/**
 * A closed central's hold on the process: its SIGINT handler, and its `exit` handler, whose
 * work the close has done. A process that opens and closes centrals (the bench server's BLE
 * process, a test worker) would otherwise keep one per central.
 */
export function releaseProcess(noble: NobleInstance): void {
  releaseSigint(noble);
  const bindings = bindingsOf(noble);
  const exit = bindings && exitHandlers.get(bindings);
  if (exit) process.removeListener('exit', exit);
}
