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

const require = createRequire(import.meta.url);

let handOut: HciSocket | null = null;
let nativeSocket: (new () => HciSocket) | null | undefined;

/** What `new BluetoothHciSocket()` yields inside noble: the socket being handed out. */
function InjectedHciSocket(): HciSocket {
  if (!handOut) throw new Error('no HCI socket to hand to noble (use nobleOverSocket)');
  return handOut;
}

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
  on(event: 'onMtu', listener: (peripheralId: string, mtu: number) => void): unknown;
  off(event: 'onMtu', listener: (peripheralId: string, mtu: number) => void): unknown;
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
  const Bindings = require('@abandonware/noble/lib/hci-socket/bindings') as new (
    options: object,
  ) => HciBindings;
  const withBindings =
    require('@abandonware/noble/with-bindings') as typeof import('@abandonware/noble/with-bindings');
  handOut = socket;
  try {
    const bindings = new Bindings(options);
    return { noble: withBindings(bindings as never), bindings };
  } finally {
    handOut = null;
  }
}

/**
 * noble's HCI bindings exit the process on SIGINT when theirs is the last handler; a caller with
 * its own safe stop (a batch in the CLI) or a closed central takes that handler away.
 */
export function releaseSigint(noble: NobleInstance): void {
  const bindings = (noble as unknown as { _bindings?: HciBindings })._bindings;
  if (bindings?.onSigIntBinded) process.removeListener('SIGINT', bindings.onSigIntBinded);
}
