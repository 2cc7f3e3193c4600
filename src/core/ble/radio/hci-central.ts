// noble's HCI host stack over an HCI socket, with the HCI tap between them recording the trace
// and seeing what noble does not (docs/architecture.md, "From a button to a board and back"):
// any socket handed to it (hciCentral: a USB dongle, an H4 stream, the simulated bench's
// controller), or the Linux kernel's for one adapter (kernelCentral). Links pair by the station's
// security policy, UNATTENDED unless one is given.
import { isResolvablePrivate } from '../private-address';
import { NobleCentral, type NobleCentralOptions } from './noble-central';
import { NoAdapterCentral } from './no-adapter-central';
import {
  loadNativeHciSocket,
  nobleOverSocket,
  askMtu,
  pairThroughNoble,
  releaseProcess,
  releaseSigint,
} from '../hci/noble-over-socket';
import { HciTap, type TraceSink } from '../hci/tap';
import type { BondStore } from '../security-manager/bond-store';
import type { AdapterIdentity } from '../adapter-identity';
import { adapterKey, type IdentityKeeper } from '../adapter-identity-store';
import { PairingFailedError, type PairingUser } from '../security-manager/initiator';
import {
  askPairing,
  installStationSmp,
  keyDistribution,
  linkSecurity,
  pairingContext,
  setSecurityPolicy,
  type SecurityPolicy,
} from '../hci/noble-smp';
import type { HciSocket } from '../hci/socket';
import { errorMessage } from '../../errors/message';

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
  /**
   * What names this adapter among the station's (its spec's canonical text), for the identity
   * generated for a controller without an address of its own.
   */
  identityKey?: string;
  /** Where generated identities are kept (the data folder's); none: one per session. */
  identities?: IdentityKeeper;
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

/**
 * A bonded board's identity address for a resolvable private address (top bits 01, Vol 6,
 * Part B, 1.3.2.2); only those are tried against the IRKs, so other advertisements cost nothing.
 */
function identityResolver(bonds: BondStore, station: () => AdapterIdentity | undefined) {
  return (address: string): string | undefined => {
    if (!isResolvablePrivate(address)) return undefined;
    const identity = station();
    const board = identity && bonds.find(identity.address, address, identity.type)?.board;
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
  const tap = new HciTap(socket, options.trace, (manufacturer) => ({
    key: adapterKey(options.identityKey ?? 'adapter', manufacturer),
    keeper: options.identities,
  }));
  const { noble, bindings } = nobleOverSocket(tap, binding);
  // noble reads the identity's address from the Read BD_ADDR answer the tap hands it, but takes
  // every such address for public; its links' Security Manager reads the type from here.
  tap.on('identity', (identity) => {
    (bindings._hci as { addressType?: string }).addressType = identity.type;
  });
  installStationSmp();
  const policy = options.security ?? UNATTENDED;
  // The central is made below; a pairing only asks the person once it has links.
  const made: { central?: NobleCentral } = {};
  setSecurityPolicy(bindings._hci, {
    schedule: options.schedule,
    bonds: options.bonds?.lookup(() => tap.identity),
    ...policy,
    userFor: (id) =>
      asking(policy.userFor?.(id) ?? policy.user, () => made.central?.personAsked(id)),
    onPairing: (id, outcome) => {
      policy.onPairing?.(id, outcome);
      // A pairing that ran out of time sends no Pairing Failed (Vol 3, Part H, 3.4), so the tap
      // sees nothing: what waits on the link hears it here, in the pairing's words.
      if (outcome instanceof PairingFailedError && outcome.reason === undefined)
        made.central?.pairingTimedOut(id, outcome);
    },
  });
  // The bindings add their exit-on-SIGINT handler when they start; DeviceBench's processes stop
  // on their own terms (a batch stops safely first), so it goes once the adapter has a state.
  noble.once('stateChange', () => releaseSigint(noble));
  const central = new NobleCentral(noble, {
    identityOf: options.bonds && identityResolver(options.bonds, () => tap.identity),
    ...options,
    identity: () => tap.identity,
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
      keyDistribution: (id) => keyDistribution(bindings._hci, id),
      pairingContext: (id) => pairingContext(bindings._hci, id),
      askMtu: (id, mtu) => askMtu(bindings, id, mtu),
    },
    onClose: () => {
      release();
      releaseProcess(noble);
      options.onClose?.();
    },
  });
  made.central = central;
  return central;
}

/** The person, telling `asked` whenever the pairing waits on them. */
function asking(user: PairingUser, asked: () => void): PairingUser {
  return {
    claimAdvice: user.claimAdvice,
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
