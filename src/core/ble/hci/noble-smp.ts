// The station's own Security Manager under noble's HCI host stack: noble stays the central, but
// on the links of a noble made by `nobleOverSocket` its Smp (lib/hci-socket/smp.js, LE legacy
// Just Works only) hands each pairing to the SmpInitiator, and a board's Security Request starts
// pairing, or encryption with the bond when there is one (docs/decisions.md, "Pairing as a
// phone does"). noble's ACL stream, its GATT client's retry on encryption and its HCI commands
// are used as they are; only two methods of noble's Smp prototype are replaced.
import { createRequire } from 'node:module';
import { HCI_EVENT, HCI_PACKET, SMP_CODE } from './codes';
import type { HciTap } from './tap';
import { L2CAP_CID } from '../att/codes';
import type { BondLookup, StoredBond } from '../security-manager/bond-store';
import {
  SmpInitiator,
  type PairingOptions,
  type PairingResult,
  type PairingUser,
} from '../security-manager/initiator';
import type { LinkSecurity } from '../link-parameters';
import type { PairingContext } from '../security-manager/refusals';

const require = createRequire(import.meta.url);

/** How one noble instance pairs: the options, the person, the bonds. */
export interface SecurityPolicy {
  options: PairingOptions;
  user: PairingUser;
  /** The person for one board's pairing, where it matters which board asks; else `user`. */
  userFor?: (peripheralId: string) => PairingUser;
  bonds?: BondLookup;
  schedule?: (callback: () => void, ms: number) => () => void;
  /** A pairing on a link ended; `error` when it failed. */
  onPairing?: (peripheralId: string, outcome: PairingResult | Error) => void;
}

/** noble's Smp instance, as far as this module reads it. */
interface NobleSmp {
  _aclStream: NobleAclStream;
  _ia: Buffer;
  _iat: Buffer;
  _ra: Buffer;
  _rat: Buffer;
}

interface NobleAclStream {
  _hci: NobleHci;
  _handle: number;
  write(cid: number, data: Buffer): void;
  emit(event: 'encryptFail'): boolean;
  once(event: 'encrypt', listener: (encrypted: number | boolean) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
}

/** noble's GATT client (gatt.js), as far as its answer to a new encryption goes. */
interface NobleGattClient {
  _aclStream: { _smp: NobleSmp };
  _security: string;
  _currentCommand: object | null;
}

interface NobleHciEmitter {
  emit(event: 'encryptChange', handle: number, encrypted: number): boolean;
}

interface NobleHci {
  startLeEncryption(handle: number, random: Buffer, diversifier: Buffer, key: Buffer): void;
  /** ACL packets not yet written to the controller (hci.js's flow control). */
  _aclQueue: { handle: number }[];
  /** Per handle, packets written and not yet reported sent (Number of Completed Packets). */
  _aclConnections: Map<number, { pending: number }>;
  /** The socket noble writes to: the HCI tap, whose ACL scheduler knows what is over the air. */
  _socket?: Partial<Pick<HciTap, 'aclPending' | 'on' | 'off'>>;
}

/** Per noble HCI layer: the policy, its per-link overrides, and each link's security. */
interface Station {
  policy: SecurityPolicy;
  /** Options asked for the next pairing with a board (a `pair` request's). */
  asked: Map<string, Partial<PairingOptions>>;
  security: Map<string, LinkSecurity>;
  /** The last pairing with each board, so its failure can be said with what each side said. */
  last: Map<string, SmpInitiator>;
  /**
   * Each board's pairing whose link is encrypted and whose key distribution is under way:
   * settles when it completed on both sides (or failed).
   */
  distributing: Map<string, Promise<void>>;
}
const stations = new WeakMap<object, Station>();
/** The pairing under way on each noble Smp (one per link). */
const pairings = new WeakMap<NobleSmp, SmpInitiator>();
/** Each pairing under way's end, by noble Smp: resolves when it completed, else rejects. */
const outcomes = new WeakMap<NobleSmp, Promise<unknown>>();
/**
 * Per noble HCI layer, checks waiting on Number of Completed Packets: each answers whether it
 * is done (then it is dropped).
 */
const completedWaiters = new WeakMap<object, Set<() => boolean>>();

/**
 * Resolves once noble's HCI layer holds no ACL packet for `handle` that is unwritten, or
 * written and not yet reported sent by the controller (Number of Completed Packets, 7.7.19) —
 * and, under the HCI tap, once its ACL scheduler holds none either: the tap tells noble a packet
 * completed when it takes it (acl-scheduler.ts), so only the tap knows it went over the air.
 */
function aclSent(hci: NobleHci, handle: number): Promise<void> {
  const tap = hci._socket;
  return new Promise((resolve) => {
    const done = (): boolean => {
      const unwritten = hci._aclQueue.some((packet) => packet.handle === handle);
      if (unwritten || (hci._aclConnections.get(handle)?.pending ?? 0) > 0) return false;
      if ((tap?.aclPending?.(handle) ?? 0) > 0) return false;
      tap?.off?.('aclSent', look);
      resolve();
      return true;
    };
    const look = () => {
      if (done()) completedWaiters.get(hci)?.delete(done);
    };
    // hci.js queues a packet after an await (its ACL buffer sizes): look once that has run.
    setImmediate(() => {
      if (done()) return;
      const waiters = completedWaiters.get(hci) ?? new Set<() => boolean>();
      completedWaiters.set(hci, waiters);
      waiters.add(done);
      tap?.on?.('aclSent', look);
    });
  });
}
/**
 * Links whose next encryption the board asked for (a Security Request): noble's GATT client
 * sends its current request again on every encryption, but this one answers no refused
 * request — it may be the Exchange MTU Request still in flight, which must not go twice.
 */
const boardAsked = new WeakSet<object>();

/** "aa:bb:…" from SMP's least-significant-first octets. */
function addressOf(bytes: Buffer): string {
  return Array.from(bytes)
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}

function peripheralIdOf(smp: NobleSmp): string {
  return addressOf(smp._ra).split(':').join('');
}

/** What each side said in the last pairing with this board (for its failure's words). */
export function pairingContext(hci: object, peripheralId: string): PairingContext | undefined {
  return stations.get(hci)?.last.get(peripheralId)?.context();
}

/** The link's security, as its pairing or bond left it; undefined before either. */
export function linkSecurity(hci: object, peripheralId: string): LinkSecurity | undefined {
  return stations.get(hci)?.security.get(peripheralId);
}

/** Options for the next pairing with this board, over the policy's. */
export function askPairing(
  hci: object,
  peripheralId: string,
  options: Partial<PairingOptions>,
): void {
  // A field left out keeps the policy's.
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  stations.get(hci)?.asked.set(peripheralId, Object.fromEntries(given));
}

/** The policy a noble instance's links pair with (set when it is made, changeable later). */
export function setSecurityPolicy(hci: object, policy: SecurityPolicy): void {
  const station = stations.get(hci);
  if (station) station.policy = policy;
  else
    stations.set(hci, {
      policy,
      asked: new Map(),
      security: new Map(),
      last: new Map(),
      distributing: new Map(),
    });
}

/**
 * The key distribution under way on the board's link (its pairing encrypted the link and the
 * keys are not all exchanged yet): resolves once they were, on both sides, and the controller
 * reported the station's sent; rejects with the pairing's failure. Undefined when none is under
 * way, so a link waiting on a person is not held by it.
 */
export function keyDistribution(hci: object, peripheralId: string): Promise<void> | undefined {
  return stations.get(hci)?.distributing.get(peripheralId);
}

/** The link's security is forgotten with the link. */
const tracked = new WeakSet<NobleSmp>();
function forgetWithLink(smp: NobleSmp, station: Station, id: string): void {
  if (tracked.has(smp)) return;
  tracked.add(smp);
  smp._aclStream.once('end', () => {
    pairings.get(smp)?.linkLost('disconnected');
    station.security.delete(id);
    station.last.delete(id);
  });
}

/** Encryption with the bond's key (EDIV and Rand name a legacy LTK to the board). */
function encryptWithBond(smp: NobleSmp, station: Station, id: string, bond: StoredBond): void {
  const stream = smp._aclStream;
  const ediv = Buffer.alloc(2);
  ediv.writeUInt16LE(bond.ediv);
  stream.once('encrypt', (on) => {
    if (on)
      station.security.set(id, {
        ...bond.security,
        encrypted: true,
        fromBond: true,
        identityAddress: bond.identityAddress?.address,
      });
  });
  stream._hci.startLeEncryption(
    stream._handle,
    Buffer.from(bond.rand),
    ediv,
    Buffer.from(bond.ltk),
  );
}

function startPairing(smp: NobleSmp, station: Station): void {
  if (pairings.has(smp)) return;
  const id = peripheralIdOf(smp);
  const stream = smp._aclStream;
  const { policy } = station;
  const options = { ...policy.options, ...station.asked.get(id) };
  station.asked.delete(id);
  const initiator = new SmpInitiator(
    {
      local: { address: addressOf(smp._ia), type: smp._iat[0] === 1 ? 'random' : 'public' },
      peer: { address: addressOf(smp._ra), type: smp._rat[0] === 1 ? 'random' : 'public' },
      // Asked only of a bonding pairing: the first one makes the identity's IRK.
      identity: options.bond ? policy.bonds?.identity?.() : undefined,
      send: (pdu) => stream.write(L2CAP_CID.smp, Buffer.from(pdu)),
      sent: () => aclSent(stream._hci, stream._handle),
      encrypt: (key, ediv, rand, security) =>
        new Promise<boolean>((resolve) => {
          stream.once('encrypt', (on) => {
            // Bonded means kept: a station with no bond store keeps nothing.
            const kept = security.bonded && policy.bonds !== undefined;
            if (on) {
              station.security.set(id, { ...security, bonded: kept });
              const distributed = outcome.then(() => undefined);
              // Whoever waits on it (a pair request, a disconnect) says its failure.
              distributed.catch(() => undefined);
              station.distributing.set(id, distributed);
            }
            resolve(Boolean(on));
          });
          const diversifier = Buffer.alloc(2);
          diversifier.writeUInt16LE(ediv);
          stream._hci.startLeEncryption(
            stream._handle,
            Buffer.from(rand),
            diversifier,
            Buffer.from(key),
          );
        }),
    },
    options,
    policy.userFor?.(id) ?? policy.user,
    { schedule: policy.schedule },
  );
  pairings.set(smp, initiator);
  station.last.set(id, initiator);
  const outcome = initiator.pair();
  outcomes.set(smp, outcome);
  // Whoever waits on it says its failure; this only keeps it from being unhandled.
  outcome
    .catch(() => undefined)
    .finally(() => {
      outcomes.delete(smp);
      station.distributing.delete(id);
    });
  outcome.then(
    (result) => {
      pairings.delete(smp);
      // The identity comes in key distribution, after the link was encrypted; it finds the
      // board again only with the bond's IRK kept.
      const identityAddress = result.keys.identityAddress?.address;
      const current = station.security.get(id);
      if (current?.bonded && identityAddress)
        station.security.set(id, { ...current, identityAddress });
      if (result.bonded)
        policy.bonds?.keep(id, {
          ...result.keys,
          // From the result: the link (and its security) may already be gone.
          security: { ...result.security, bonded: true },
        });
      policy.onPairing?.(id, result);
    },
    (error: unknown) => {
      pairings.delete(smp);
      boardAsked.delete(stream);
      // Encrypted, but its keys were not all exchanged: no bond on either side.
      const current = station.security.get(id);
      if (current?.bonded) station.security.set(id, { ...current, bonded: false });
      // What noble's own Smp says on failure: its GATT client and pairThroughNoble listen.
      stream.emit('encryptFail');
      policy.onPairing?.(id, error instanceof Error ? error : new Error(String(error)));
    },
  );
}

/**
 * noble asks for encryption (its GATT client was refused for want of it, or `pair`). Bond
 * first, as a phone reconnecting does: a link not yet encrypted to a bonded board is encrypted
 * with the stored key, a `pair` request included, since Zephyr refuses a bonded peer's
 * re-pairing without MITM; a board that lost the bond answers PIN or Key Missing, which is said
 * with "forget the bond and pair again". The link pairs instead when it is encrypted already
 * (its key fell short), or when what is asked requires what the bond's key lacks (MITM, Secure
 * Connections only) (docs/decisions/ble-and-hci.md, "Pairing as a phone does").
 */
function secureLink(smp: NobleSmp, station: Station): void {
  const id = peripheralIdOf(smp);
  forgetWithLink(smp, station, id);
  const bond = station.security.get(id)?.encrypted ? undefined : station.policy.bonds?.find(id);
  const asked = { ...station.policy.options, ...station.asked.get(id) };
  const serves =
    bond !== undefined &&
    (!(asked.requireMitm ?? asked.mitm) || bond.security.authenticated) &&
    (!asked.scOnly || bond.security.key === 'sc');
  if (!serves) return startPairing(smp, station);
  station.asked.delete(id);
  encryptWithBond(smp, station, id, bond);
}

let installed = false;

/** Points noble's Smp at the station's Security Manager for links of registered stations. */
export function installStationSmp(): void {
  if (installed) return;
  installed = true;
  const Smp = require('@abandonware/noble/lib/hci-socket/smp') as {
    prototype: {
      sendPairingRequest(this: NobleSmp): void;
      onAclStreamData(this: NobleSmp, cid: number, data: Buffer): void;
    };
  };
  const nobleSend = Smp.prototype.sendPairingRequest;
  const nobleData = Smp.prototype.onAclStreamData;
  Smp.prototype.sendPairingRequest = function (this: NobleSmp) {
    const station = stations.get(this._aclStream._hci);
    if (station) secureLink(this, station);
    else nobleSend.call(this);
  };
  Smp.prototype.onAclStreamData = function (this: NobleSmp, cid: number, data: Buffer) {
    const station = stations.get(this._aclStream._hci);
    if (!station) return nobleData.call(this, cid, data);
    if (cid !== L2CAP_CID.smp) return;
    const pairing = pairings.get(this);
    if (pairing) return pairing.receive(Uint8Array.from(data));
    // A board that wants security asks for it (Vol 3, Part H, 3.6.7).
    if (
      data[0] !== SMP_CODE.securityRequest ||
      station.security.get(peripheralIdOf(this))?.encrypted
    )
      return;
    boardAsked.add(this._aclStream);
    secureLink(this, station);
  };
  const Gatt = require('@abandonware/noble/lib/hci-socket/gatt') as {
    prototype: { onAclStreamEncrypt(this: NobleGattClient, encrypted: number | boolean): void };
  };
  const nobleEncrypt = Gatt.prototype.onAclStreamEncrypt;
  // noble's HCI layer knows no Encryption Key Refresh Complete (7.7.39): a new key on an
  // encrypted link, after a pairing at a higher level, reaches its links as an encryption change.
  const Hci = require('@abandonware/noble/lib/hci-socket/hci') as {
    prototype: {
      onSocketData(this: NobleHciEmitter, data: Buffer): void;
    };
  };
  const nobleSocketData = Hci.prototype.onSocketData;
  Hci.prototype.onSocketData = function (this: NobleHciEmitter, data: Buffer) {
    if (
      stations.has(this) &&
      data.length >= 6 &&
      data[0] === HCI_PACKET.event &&
      data[1] === HCI_EVENT.encryptionKeyRefreshComplete
    ) {
      this.emit('encryptChange', data.readUInt16LE(4) & 0x0fff, data[3] === 0 ? 1 : 0);
      return;
    }
    nobleSocketData.call(this, data);
    // A pairing's keys reported sent: the pairing may end, and the link with it.
    if (data[0] === HCI_PACKET.event && data[1] === HCI_EVENT.numberOfCompletedPackets) {
      const waiters = completedWaiters.get(this);
      for (const done of [...(waiters ?? [])]) if (done()) waiters?.delete(done);
    }
  };
  Gatt.prototype.onAclStreamEncrypt = function (this: NobleGattClient, encrypted) {
    // A pairing is a bond on both sides before the link does anything else: the request noble
    // paired for goes again once key distribution completed (docs/decisions/ble-and-hci.md,
    // "A pairing is a bond on both sides"); a pairing that fails says so through the tap.
    const underway = outcomes.get(this._aclStream._smp);
    if (underway) {
      underway.then(
        () => onEncrypted.call(this, encrypted),
        () => undefined,
      );
      return;
    }
    onEncrypted.call(this, encrypted);
  };
  function onEncrypted(this: NobleGattClient, encrypted: number | boolean): void {
    // A pairing at a higher level after a refused request (noble-connection.ts) comes when
    // noble has already answered that request: there is none to send again.
    if (!this._currentCommand) {
      if (encrypted) this._security = 'medium';
      return;
    }
    if (!boardAsked.has(this._aclStream)) return nobleEncrypt.call(this, encrypted);
    boardAsked.delete(this._aclStream);
    if (encrypted) this._security = 'medium';
  }
}
