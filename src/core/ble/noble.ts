// The centrals the app uses: a NobleCentral (noble-central.ts) with noble's HCI host stack over
// the machine's adapter (loaded lazily so a missing driver is a state, not a crash) or over the
// simulated bench's virtual controller, with the HCI tap between them; or, with no usable
// adapter, a central that says why.
import { createRequire } from 'node:module';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import {
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type ScanFilter,
  type ScanHandle,
} from './port';
import {
  loadNativeHciSocket,
  nobleOverSocket,
  askMtu,
  pairThroughNoble,
  releaseSigint,
} from './hci/noble-over-socket';
import { HciTap, type TraceSink } from './hci/tap';
import type { BondStore } from './security-manager/bond-store';
import type { PairingUser } from './security-manager/initiator';
import {
  askPairing,
  installStationSmp,
  linkSecurity,
  pairingContext,
  setSecurityPolicy,
  type SecurityPolicy,
} from './hci/noble-smp';
import type { HciSocket } from './hci/socket';
import type { AdapterProfileInput } from './sim/adapter-profile';
import type { SimulatedBench } from './sim/bench';
import { NobleCentral, type NobleCentralOptions } from './noble-central';
import { errorMessage } from '../errors/message';

const require = createRequire(import.meta.url);

/** A central for a machine with no usable adapter: every call says why. */
export class NoAdapterCentral implements BleCentral {
  constructor(readonly reason: string) {}

  state(): AdapterState {
    return 'noAdapter';
  }

  stateReason(): string {
    return this.reason;
  }

  onStateChange(): () => void {
    return () => undefined;
  }

  async startScan(
    _filter: ScanFilter,
    _onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    throw new BleError('adapter', `no Bluetooth adapter: ${this.reason}`);
  }

  async connect(id: string): Promise<BleConnection> {
    throw new BleError('adapter', `no Bluetooth adapter: ${this.reason}`, id);
  }

  async close(): Promise<void> {}
}

/**
 * The machine's own adapter, loaded only now: on Linux noble's HCI host stack over the kernel's
 * HCI socket with the tap between them (as in the simulated bench), elsewhere noble's default
 * binding. A driver that fails to load (no HCI socket, no permission, unsupported OS) gives a
 * `noAdapter` central.
 */
export function createHardwareCentral(
  options: HciCentralOptions = {},
): NobleCentral | NoAdapterCentral {
  if (process.platform === 'linux') return kernelCentral(undefined, options);
  let noble: NobleInstance;
  try {
    noble = require('@abandonware/noble') as NobleInstance;
  } catch (err) {
    return new NoAdapterCentral(`the Bluetooth driver could not be loaded (${errorMessage(err)})`);
  }
  return new NobleCentral(noble, options);
}

/**
 * noble's HCI host stack over Linux's kernel HCI socket bound to adapter `index` (`hci1` is 1;
 * undefined: the first), with the tap between them. A driver that cannot load, or an index the
 * kernel does not list, gives a `noAdapter` central that says so.
 */
export function kernelCentral(
  index: number | undefined,
  options: HciCentralOptions = {},
): NobleCentral | NoAdapterCentral {
  let socket: HciSocket;
  try {
    socket = new (loadNativeHciSocket())();
  } catch (err) {
    return new NoAdapterCentral(`the Bluetooth driver could not be loaded (${errorMessage(err)})`);
  }
  if (index !== undefined) {
    let known: number[];
    try {
      known = socket.getDeviceList().map((d) => d.devId);
    } catch (err) {
      return new NoAdapterCentral(
        `the kernel's adapters could not be listed (${errorMessage(err)})`,
      );
    }
    if (!known.includes(index))
      return new NoAdapterCentral(
        `there is no adapter hci${index}: ${
          known.length
            ? `this machine has ${known.map((i) => `hci${i}`).join(', ')}`
            : 'the kernel lists none (plug one in, or check `hciconfig -a`)'
        }`,
      );
  }
  return hciCentral(socket, options, () => socket.stop(), { deviceId: index });
}

export interface HciCentralOptions extends NobleCentralOptions {
  /** Where the tap records the HCI traffic (a btsnoop trace writer). */
  trace?: TraceSink;
  /** How links pair; default UNATTENDED. */
  security?: SecurityPolicy;
  /** Where bonds are kept, per this adapter's identity address; none: nothing is kept. */
  bonds?: BondStore;
}

/**
 * Pairing with no person at the station, as noble's own did (no input, no output, asking to
 * bond so the board hands out its key) but offering LE Secure Connections; with no bond store
 * nothing is kept.
 */
export const UNATTENDED: SecurityPolicy = {
  options: { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
  user: {
    displayPasskey: () => undefined,
    enterPasskey: () => Promise.reject(new Error('no one at the station to enter a passkey')),
    confirmNumber: () => Promise.resolve(false),
  },
};

export interface SimulatedCentralOptions extends HciCentralOptions {
  /** The simulated controller's limits (connections, interval, buffers); defaults documented there. */
  adapter?: AdapterProfileInput;
}

/**
 * A bonded board's identity address for a resolvable private address (top bits 01, Vol 6,
 * Part B, 1.3.2.2); only those are tried against the IRKs, so other advertisements cost nothing.
 */
function identityResolver(bonds: BondStore, station: () => string) {
  return (address: string): string | undefined => {
    if ((parseInt(address.slice(0, 2), 16) & 0xc0) !== 0x40) return undefined;
    const board = bonds.find(station(), address)?.board;
    return board === address ? undefined : board;
  };
}

/** noble's HCI host stack over `socket`, with the tap between them. */
export function hciCentral(
  socket: HciSocket,
  options: HciCentralOptions,
  release: () => void,
  binding: { deviceId?: number } = {},
): NobleCentral {
  const tap = new HciTap(socket, options.trace);
  const { noble, bindings } = nobleOverSocket(tap, binding);
  installStationSmp();
  const policy = options.security ?? UNATTENDED;
  // The central is made below; a pairing only asks the person once it has links.
  const made: { central?: NobleCentral } = {};
  setSecurityPolicy(bindings._hci, {
    schedule: options.schedule,
    bonds: options.bonds?.lookup(() => noble.address),
    ...policy,
    userFor: (id) =>
      asking(policy.userFor?.(id) ?? policy.user, () => made.central?.personAsked(id)),
  });
  // The bindings add their exit-on-SIGINT handler when they start; DeviceBench's processes stop
  // on their own terms (a batch stops safely first), so it goes once the adapter has a state.
  noble.once('stateChange', () => releaseSigint(noble));
  const central = new NobleCentral(noble, {
    identityOf: options.bonds && identityResolver(options.bonds, () => noble.address),
    ...options,
    hci: tap,
    mtu: bindings,
    link: {
      linkState: (id) => tap.linkState(id),
      sendLinkRequest: (id, request) => tap.sendLinkRequest(id, request),
      pair: (id, request) => {
        if (request) askPairing(bindings._hci, id, request);
        return pairThroughNoble(bindings, id);
      },
      linkSecurity: (id) => linkSecurity(bindings._hci, id),
      pairingContext: (id) => pairingContext(bindings._hci, id),
      askMtu: (id, mtu) => askMtu(bindings, id, mtu),
    },
    onClose: () => {
      release();
      releaseSigint(noble);
      options.onClose?.();
    },
  });
  made.central = central;
  return central;
}

/** The person, telling `asked` whenever the pairing waits on them. */
function asking(user: PairingUser, asked: () => void): PairingUser {
  return {
    displayPasskey: (passkey) => {
      asked();
      user.displayPasskey(passkey);
    },
    enterPasskey: () => {
      asked();
      return user.enterPasskey();
    },
    confirmNumber: (value) => {
      asked();
      return user.confirmNumber(value);
    },
  };
}

/**
 * A real noble over a virtual LE controller on the simulated bench: noble's own HCI host stack
 * runs above it, the same code path as a Linux adapter.
 */
export function createSimulatedCentral(
  bench: SimulatedBench,
  options: SimulatedCentralOptions = {},
): NobleCentral {
  const controller = bench.createController(options.adapter);
  return hciCentral(
    controller,
    {
      now: () => bench.clock.now(),
      schedule: (callback, ms) => {
        const timer = bench.clock.setTimeout(callback, ms);
        return () => bench.clock.clearTimeout(timer);
      },
      ...options,
    },
    () => controller.dispose(),
  );
}
