// The central's side of pairing (Bluetooth Core Specification v5.3, Vol 3, Part H, 2.3 and 3):
// LE Secure Connections (Just Works, Numeric Comparison, Passkey Entry either way) and LE legacy
// (Just Works, Passkey Entry), with the IO capability, bonding, MITM, Secure Connections and key
// size chosen per link. Transport-free: it is fed the board's SMP PDUs and given a way to send
// PDUs and to start encryption, so it runs under noble's HCI stack and in tests alike.
import { randomBytes } from 'node:crypto';
import { SMP_CODE, SMP_FAILURE } from '../hci/codes';
import {
  addressBytes,
  addressWithType,
  c1,
  ecdhKeyPair,
  f4,
  f5,
  f6,
  g2,
  masked,
  passkeyValue,
  s1,
  sameValue,
  type EcdhKeyPair,
} from './crypto';
import {
  IO_CAPABILITIES,
  isAuthenticated,
  pairingMethod,
  type IoCapability,
  type PairingFeatures,
  type PairingMethod,
} from './pairing-method';
import { pairingFailureMessage, type PairingContext } from './refusals';
import type { LinkSecurity } from '../link-parameters';
import {
  KEY_ENC,
  KEY_ID,
  KEY_PDU_NAMES,
  KEY_SIGN,
  receiveBoardKeys,
  stationIdentityPdus,
  type BondKeys,
  type StationIdentityKeys,
} from './key-distribution';

/** What the station asks for on one link. */
export interface PairingOptions {
  io: IoCapability;
  bond: boolean;
  /** Ask for MITM protection (the AuthReq flag): a request, as the board's flag is. */
  mitm: boolean;
  /**
   * Refuse a pairing that cannot give MITM: what the station itself needs. Left out, asking
   * for MITM needs it too.
   */
  requireMitm?: boolean;
  /** Offer LE Secure Connections. */
  sc: boolean;
  /** Refuse a legacy pairing (the board does not speak Secure Connections). */
  scOnly?: boolean;
  /** Largest key size offered, 7–16 octets; 16 by default. */
  maxKeySize?: number;
}

/** Where a person takes part: a passkey to show or type, six digits to compare. */
export interface PairingUser {
  /** This side chose the passkey: show it, the board's user types it. */
  displayPasskey(passkey: number): void;
  /** The passkey the board shows (or the one both sides type). */
  enterPasskey(): Promise<number>;
  /** Whether the board shows these six digits too. */
  confirmNumber(value: number): Promise<boolean>;
  /**
   * How this front end lets its person claim a keyboard, for a pairing refused for want of one
   * (refusals.ts); without it, the command line's words.
   */
  claimAdvice?: string;
}

export interface SmpLink {
  local: { address: string; type: 'public' | 'random' };
  peer: { address: string; type: 'public' | 'random' };
  /** The station's identity to hand out when it bonds; none, and it hands out no keys. */
  identity?: StationIdentityKeys;
  send(pdu: Uint8Array): void;
  /**
   * Resolves once the controller reported every PDU sent on the link so far as sent (HCI
   * Number of Completed Packets for its handle); a pairing keeps the link until then. Without
   * it (a transport with no controller), a PDU counts as sent when handed to `send`.
   */
  sent?(): Promise<void>;
  /**
   * LE Enable Encryption with the key; true once Encryption Change says the link is encrypted.
   * `security` is what the link has once it is.
   */
  encrypt(
    key: Uint8Array,
    ediv: number,
    rand: Uint8Array,
    security: LinkSecurity,
  ): Promise<boolean>;
}

export interface PairingResult {
  sc: boolean;
  method: PairingMethod['model'];
  authenticated: boolean;
  keySize: number;
  /** Both sides asked to bond; `keys` is then what to keep. */
  bonded: boolean;
  keys: BondKeys;
  /** What the link has now: the same facts as the link card shows them. */
  security: LinkSecurity;
}

/** A pairing that ended without keys, with the SMP reason (or a timeout). */
export class PairingFailedError extends Error {
  constructor(
    /** The Pairing Failed reason, undefined for the SMP timeout. */
    readonly reason: number | undefined,
    /** Whether the board sent the Pairing Failed (else this side did, or the timer ran out). */
    readonly byBoard: boolean,
    {
      waitedOnPerson = false,
      context,
      awaiting,
    }: {
      /** The timer ran out while the pairing waited on the person at the station. */
      waitedOnPerson?: boolean;
      /** What each side said, so the words blame the side that caused it. */
      context?: PairingContext;
      /** The timer ran out in key distribution, waiting for this (a PDU's name). */
      awaiting?: string;
    } = {},
  ) {
    super(
      reason !== undefined
        ? pairingFailureMessage(reason, byBoard, context)
        : waitedOnPerson
          ? 'pairing timed out: no answer at the station within 30 s (the SMP timeout) — pair again and answer the prompt in time'
          : awaiting !== undefined
            ? keyDistributionIncomplete(`no ${awaiting} within 30 s (the SMP timeout)`)
            : 'pairing timed out: the board stopped answering for 30 s (the SMP timeout)',
    );
    this.name = 'PairingFailedError';
  }
}

/**
 * A pairing whose link was encrypted but whose key distribution did not complete on both sides:
 * neither side may keep a bond (docs/decisions/ble-and-hci.md, "A pairing is a bond on both
 * sides").
 */
function keyDistributionIncomplete(why: string): string {
  return `the board did not complete key distribution: ${why}; no bond was kept — pair again`;
}

const AUTH_BONDING = 0x01;
const AUTH_MITM = 0x04;
const AUTH_SC = 0x08;
const MIN_KEY_SIZE = 7;
/** The SMP timeout (Vol 3, Part H, 3.4). */
export const SMP_TIMEOUT_MS = 30_000;
const PDU_LENGTH: Partial<Record<number, number>> = {
  [SMP_CODE.pairingResponse]: 7,
  [SMP_CODE.pairingConfirm]: 17,
  [SMP_CODE.pairingRandom]: 17,
  [SMP_CODE.encryptionInformation]: 17,
  [SMP_CODE.centralIdentification]: 11,
  [SMP_CODE.identityInformation]: 17,
  [SMP_CODE.identityAddressInformation]: 8,
  [SMP_CODE.signingInformation]: 17,
  [SMP_CODE.pairingPublicKey]: 65,
  [SMP_CODE.pairingDhKeyCheck]: 17,
};

export interface InitiatorDependencies {
  random?: (bytes: number) => Uint8Array;
  keyPair?: () => EcdhKeyPair;
  timeoutMs?: number;
  /** Runs `callback` after `ms` on the link's clock (the sim's in tests); returns a cancel. */
  schedule?: (callback: () => void, ms: number) => () => void;
}

function realTimer(callback: () => void, ms: number): () => void {
  const timer = setTimeout(callback, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
}

export class SmpInitiator {
  private readonly random: (bytes: number) => Uint8Array;
  private readonly keyPair: () => EcdhKeyPair;
  private readonly timeoutMs: number;
  private readonly inbox: Uint8Array[] = [];
  private waiter: ((pdu: Uint8Array | Error) => void) | null = null;
  private failure: Error | null = null;
  /** Rejects with the failure once the pairing ends without keys. */
  private readonly failed: Promise<never>;
  private rejectFailed: (error: Error) => void = () => undefined;
  private readonly schedule: (callback: () => void, ms: number) => () => void;
  private cancelTimer: (() => void) | undefined;
  /** What the board said in its Pairing Response, once it said it. */
  private board: PairingFeatures | undefined;
  /** In key distribution: what the pairing waits for now, for the timeout's words. */
  private awaiting: string | undefined;

  constructor(
    private readonly link: SmpLink,
    private readonly options: PairingOptions,
    private readonly user: PairingUser,
    dependencies: InitiatorDependencies = {},
  ) {
    this.random = dependencies.random ?? ((n) => new Uint8Array(randomBytes(n)));
    this.keyPair = dependencies.keyPair ?? (() => ecdhKeyPair());
    this.timeoutMs = dependencies.timeoutMs ?? SMP_TIMEOUT_MS;
    this.schedule = dependencies.schedule ?? realTimer;
    this.failed = new Promise<never>((_resolve, reject) => (this.rejectFailed = reject));
    // Only a pending wait listens to it; the pairing's own promise carries the error.
    this.failed.catch(() => undefined);
  }

  /** One SMP PDU from the board. */
  receive(pdu: Uint8Array): void {
    const code = pdu[0];
    // An empty PDU, a reserved code, a Security Request or a keypress mid-pairing: nothing to
    // answer (Vol 3, Part H, 3.3 and 3.5.8).
    if (code === undefined || code === 0 || code > SMP_CODE.keypressNotification) return;
    if (code === SMP_CODE.securityRequest || code === SMP_CODE.keypressNotification) return;
    if (code === SMP_CODE.pairingFailed) {
      this.abort(
        new PairingFailedError(pdu[1] ?? SMP_FAILURE.unspecifiedReason, true, {
          context: this.context(),
        }),
      );
      return;
    }
    this.inbox.push(Uint8Array.from(pdu));
    this.deliver();
  }

  /** What each side said so far: the station's options, the board's response. */
  context(): PairingContext {
    return { station: this.options, board: this.board, claimAdvice: this.user.claimAdvice };
  }

  /** The link went away: the pairing ends without a Pairing Failed. */
  linkLost(reason: string): void {
    this.abort(
      new Error(
        this.awaiting !== undefined
          ? keyDistributionIncomplete(`the link closed (${reason}) before ${this.awaiting}`)
          : `the link closed during pairing (${reason})`,
      ),
    );
  }

  /** Runs one pairing from the Pairing Request to the last distributed key. */
  async pair(): Promise<PairingResult> {
    try {
      return await this.run();
    } finally {
      this.stopTimer();
    }
  }

  private async run(): Promise<PairingResult> {
    const { options } = this;
    const maxKeySize = options.maxKeySize ?? 16;
    const authReq =
      (options.bond ? AUTH_BONDING : 0) |
      (options.mitm ? AUTH_MITM : 0) |
      (options.sc ? AUTH_SC : 0);
    const keys = options.bond ? KEY_ENC | KEY_ID | KEY_SIGN : 0;
    // A bonding station hands out its identity, as a phone does: no LTK of its own, since it
    // is never the board's peripheral (docs/decisions/ble-and-hci.md, "The station's identity
    // in pairing").
    const ownKeys = options.bond && this.link.identity ? KEY_ID : 0;
    const preq = Uint8Array.of(
      SMP_CODE.pairingRequest,
      IO_CAPABILITIES.indexOf(options.io),
      0,
      authReq,
      maxKeySize,
      ownKeys,
      keys,
    );
    this.send(preq);
    const pres = await this.next(SMP_CODE.pairingResponse);
    const [, ioByte = 0, oob = 0, rspAuth = 0, rspKeySize = 0, rspOwnKeys = 0, rspKeys = 0] = pres;
    const boardIo = IO_CAPABILITIES[ioByte];
    if (!boardIo || rspKeySize < MIN_KEY_SIZE || rspKeySize > 16 || oob > 1)
      return this.fail(SMP_FAILURE.invalidParameters);
    this.board = {
      io: boardIo,
      oob: oob === 1,
      mitm: (rspAuth & AUTH_MITM) !== 0,
      sc: (rspAuth & AUTH_SC) !== 0,
    };
    const sc = options.sc && (rspAuth & AUTH_SC) !== 0;
    if (options.scOnly && !sc) return this.fail(SMP_FAILURE.authenticationRequirements);
    const keySize = Math.min(maxKeySize, rspKeySize);
    const method = pairingMethod(
      { io: options.io, oob: false, mitm: options.mitm, sc: options.sc },
      this.board,
    );
    // This side has no OOB data to give; a board that claims to have some cannot.
    if (method.model === 'oob') return this.fail(SMP_FAILURE.oobNotAvailable);
    // The board's MITM flag is a request too: where the two IO capabilities leave Just Works, the
    // pairing goes on and each side judges the key by its own needs (Vol 3, Part H, 2.3.5.1);
    // the station stops only what it needs itself.
    if ((options.requireMitm ?? options.mitm) && !isAuthenticated(method))
      return this.fail(SMP_FAILURE.authenticationRequirements);
    const ia = addressBytes(this.link.local.address);
    const ra = addressBytes(this.link.peer.address);
    const iat = this.link.local.type === 'random' ? 1 : 0;
    const rat = this.link.peer.type === 'random' ? 1 : 0;
    const key = sc
      ? await this.secureConnections(method, { preq, pres, ia, ra, iat, rat })
      : await this.legacy((await this.passkeyFor(method)) ?? 0, { preq, pres, ia, ra, iat, rat });
    const linkKey = masked(key, keySize);
    const bonded = options.bond && (rspAuth & AUTH_BONDING) !== 0;
    const security: LinkSecurity = {
      encrypted: true,
      key: sc ? 'sc' : 'legacy',
      authenticated: isAuthenticated(method),
      keySize,
      method: method.model,
      bonded,
    };
    this.stopTimer();
    if (!(await this.link.encrypt(linkKey, 0, new Uint8Array(8), security)))
      throw new Error('the link did not become encrypted with the key pairing gave');
    // Secure Connections derives the LTK on both sides, so no EncKey is sent (3.6.1).
    const agreed = rspKeys & keys & (sc ? ~KEY_ENC : 0xff);
    this.restartTimer();
    const received = await receiveBoardKeys(agreed, (code) => {
      this.awaiting = `${KEY_PDU_NAMES[code] ?? 'key'} from the board`;
      return this.next(code);
    });
    if (rspOwnKeys & ownKeys & KEY_ID && this.link.identity)
      for (const pdu of stationIdentityPdus(this.link.identity)) this.send(pdu);
    // The board's bond is made when its last key came and the station's keys reached it: the
    // link is kept until the controller says they went, so nothing closes it before then.
    this.awaiting = 'report (Number of Completed Packets) that the station’s keys were sent';
    await this.untilFailed(this.link.sent?.() ?? Promise.resolve());
    this.awaiting = undefined;
    return {
      sc,
      method: method.model,
      authenticated: isAuthenticated(method),
      keySize,
      bonded,
      keys: sc ? { ...received, ltk: linkKey, ediv: 0, rand: new Uint8Array(8) } : received,
      security,
    };
  }

  private async passkeyFor(method: PairingMethod): Promise<number | undefined> {
    if (method.model !== 'passkeyEntry') return undefined;
    if (method.display === 'initiator') {
      const passkey = new DataView(this.random(4).buffer).getUint32(0, true) % 1_000_000;
      this.user.displayPasskey(passkey);
      return passkey;
    }
    const passkey = await this.whileWaiting(this.user.enterPasskey());
    if (passkey === undefined || !Number.isInteger(passkey) || passkey < 0 || passkey > 999_999)
      return this.fail(SMP_FAILURE.passkeyEntryFailed);
    return passkey;
  }

  private async legacy(passkey: number, p: Addresses): Promise<Uint8Array> {
    const tk = passkeyValue(passkey);
    const mrand = this.random(16);
    const confirm = (r: Uint8Array) =>
      c1({ k: tk, r, preq: p.preq, pres: p.pres, iat: p.iat, rat: p.rat, ia: p.ia, ra: p.ra });
    this.send(Uint8Array.of(SMP_CODE.pairingConfirm, ...confirm(mrand)));
    const sconfirm = (await this.next(SMP_CODE.pairingConfirm)).subarray(1);
    this.send(Uint8Array.of(SMP_CODE.pairingRandom, ...mrand));
    const srand = (await this.next(SMP_CODE.pairingRandom)).subarray(1);
    if (!sameValue(confirm(srand), sconfirm)) return this.fail(SMP_FAILURE.confirmValueFailed);
    return s1(tk, srand, mrand);
  }

  private async secureConnections(method: PairingMethod, p: Addresses): Promise<Uint8Array> {
    const own = this.keyPair();
    this.send(Uint8Array.of(SMP_CODE.pairingPublicKey, ...own.publicKey));
    const peerKey = (await this.next(SMP_CODE.pairingPublicKey)).subarray(1);
    const dhKey = own.dhKey(peerKey);
    // A point off the curve, or the board echoing this side's own key (Vol 3, Part H, 2.3.5.6.1).
    if (!dhKey || sameValue(peerKey, own.publicKey)) return this.fail(SMP_FAILURE.dhKeyCheckFailed);
    const pka = own.publicKey.subarray(0, 32);
    const pkb = peerKey.subarray(0, 32);
    // Only now: a board shows its passkey once the public keys are exchanged (Vol 3, Part H,
    // 2.3.5.6.3; Zephyr's smp.c calls passkey_display there), so a person asked earlier would
    // wait for digits that never appear (docs/decisions/ble-and-hci.md).
    const passkey = await this.passkeyFor(method);
    let na: Uint8Array;
    let nb: Uint8Array;
    if (passkey === undefined) {
      const cb = (await this.next(SMP_CODE.pairingConfirm)).subarray(1);
      na = this.random(16);
      this.send(Uint8Array.of(SMP_CODE.pairingRandom, ...na));
      nb = (await this.next(SMP_CODE.pairingRandom)).subarray(1);
      if (!sameValue(f4(pkb, pka, nb, 0), cb)) return this.fail(SMP_FAILURE.confirmValueFailed);
      if (method.model === 'numericComparison') {
        const same = await this.whileWaiting(this.user.confirmNumber(g2(pka, pkb, na, nb)));
        if (same !== true) return this.fail(SMP_FAILURE.numericComparisonFailed);
      }
    } else {
      // Twenty rounds, one bit of the passkey each (Vol 3, Part H, 2.3.5.6.3).
      na = new Uint8Array(16);
      nb = new Uint8Array(16);
      for (let bit = 0; bit < 20; bit++) {
        const r = 0x80 | ((passkey >> bit) & 1);
        na = this.random(16);
        this.send(Uint8Array.of(SMP_CODE.pairingConfirm, ...f4(pka, pkb, na, r)));
        const cb = (await this.next(SMP_CODE.pairingConfirm)).subarray(1);
        this.send(Uint8Array.of(SMP_CODE.pairingRandom, ...na));
        nb = (await this.next(SMP_CODE.pairingRandom)).subarray(1);
        if (!sameValue(f4(pkb, pka, nb, r), cb)) return this.fail(SMP_FAILURE.confirmValueFailed);
      }
    }
    const a = addressWithType(p.ia, p.iat === 1);
    const b = addressWithType(p.ra, p.rat === 1);
    const { macKey, ltk } = f5(dhKey, na, nb, a, b);
    const r = passkeyValue(passkey ?? 0);
    const ea = f6(macKey, na, nb, r, p.preq.subarray(1, 4), a, b);
    this.send(Uint8Array.of(SMP_CODE.pairingDhKeyCheck, ...ea));
    const eb = (await this.next(SMP_CODE.pairingDhKeyCheck)).subarray(1);
    if (!sameValue(f6(macKey, nb, na, r, p.pres.subarray(1, 4), b, a), eb))
      return this.fail(SMP_FAILURE.dhKeyCheckFailed);
    return ltk;
  }

  private send(pdu: Uint8Array): void {
    if (this.failure) throw this.failure;
    this.restartTimer();
    this.link.send(pdu);
  }

  /** The next PDU, which must be `code`: anything else ends the pairing (Vol 3, Part H, 3.5). */
  private async next(code: number): Promise<Uint8Array> {
    const pdu = await new Promise<Uint8Array>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiter = (got) => (got instanceof Error ? reject(got) : resolve(got));
      this.deliver();
    });
    if (pdu[0] !== code) return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== PDU_LENGTH[code]) return this.fail(SMP_FAILURE.invalidParameters);
    return pdu;
  }

  /**
   * A person's answer, undefined when they cancelled; a Pairing Failed or the SMP timeout
   * meanwhile ends the wait. PDUs that arrive meanwhile wait in the inbox.
   */
  private async whileWaiting<T>(answer: Promise<T>): Promise<T | undefined> {
    // The person answers in real time, whatever clock the link runs on (the simulated bench's
    // runs ahead when nothing is due).
    this.stopTimer();
    this.cancelTimer = realTimer(
      () => this.abort(new PairingFailedError(undefined, false, { waitedOnPerson: true })),
      this.timeoutMs,
    );
    try {
      return await Promise.race([answer.catch(() => undefined), this.failed]);
    } finally {
      if (!this.failure) this.restartTimer();
    }
  }

  /** `work`, unless the pairing fails first (the SMP timeout, the link lost). */
  private async untilFailed(work: Promise<void>): Promise<void> {
    await Promise.race([work, this.failed]);
  }

  private deliver(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    if (this.failure) {
      this.waiter = null;
      waiter(this.failure);
      return;
    }
    const pdu = this.inbox.shift();
    if (!pdu) return;
    this.waiter = null;
    this.restartTimer();
    waiter(pdu);
  }

  /** This side gives up: Pairing Failed to the board, and the pairing ends. */
  private fail(reason: number): never {
    const error = new PairingFailedError(reason, false, { context: this.context() });
    if (!this.failure) this.link.send(Uint8Array.of(SMP_CODE.pairingFailed, reason));
    this.abort(error);
    throw error;
  }

  private abort(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.stopTimer();
    this.rejectFailed(error);
    this.deliver();
  }

  private restartTimer(): void {
    this.stopTimer();
    this.cancelTimer = this.schedule(
      () => this.abort(new PairingFailedError(undefined, false, { awaiting: this.awaiting })),
      this.timeoutMs,
    );
  }

  private stopTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }
}

interface Addresses {
  preq: Uint8Array;
  pres: Uint8Array;
  ia: Uint8Array;
  ra: Uint8Array;
  iat: 0 | 1;
  rat: 0 | 1;
}
