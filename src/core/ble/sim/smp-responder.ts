// The board's side of pairing (Bluetooth Core Specification v5.3, Vol 3, Part H, 2.3 and 3):
// fed one reassembled SMP PDU (L2CAP CID 6) at a time, it answers as a peripheral of the board
// file's security block would — LE legacy or Secure Connections, Just Works, Numeric Comparison
// (the board's person says yes) or Passkey Entry with the board showing its passkey — derives
// the key the controller encrypts the link with, hands out a legacy LTK the central asked for
// once the link is encrypted, and takes a bonding central's identity (IRK and address). Zephyr's refusals are kept: legacy on an SC-only board, a bonded
// central pairing again without MITM, a new central when the bond table is full.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { SMP_CODE, SMP_FAILURE } from '../hci/codes';
import { describeFieldErrors, fieldErrors } from '../../platform/field-errors';
import {
  smpOptionsSchema,
  type BoardBond,
  type SmpResponderOptions,
} from './smp-responder-options';
import {
  KEY_DIST_ENC_KEY,
  KEY_DIST_ID_KEY,
  centralIdentityKey,
  identityKeys,
  legacyKeys,
  masked,
  passkeyValue,
  type KeyStrength,
} from './smp-key-distribution';

import {
  addressBytes,
  addressWithType,
  c1,
  ecdhKeyPair,
  f4,
  f5,
  f6,
  s1,
  type EcdhKeyPair,
} from '../security-manager/crypto';
import {
  IO_CAPABILITIES,
  isAuthenticated,
  pairingMethod,
  type PairingMethod,
} from '../security-manager/pairing-method';

export type { BoardBond, BoardIdentity, SmpResponderOptions } from './smp-responder-options';

/** Pairing Request/Response fields (Vol 3, Part H, 3.5.1 and 3.5.2). */
const IO_CAPABILITY_MAX = 0x04;
const AUTH_REQ_BONDING_FLAGS = 0x03;
const BONDING = 0x01;
const AUTH_MITM = 0x04;
const AUTH_SC = 0x08;
const PASSKEY_ROUNDS = 20;
const PUBLIC_KEY_PDU_LENGTH = 65;
const MIN_KEY_SIZE = 7;
const MAX_KEY_SIZE = 16;
const PAIRING_PDU_LENGTH = 7;
const VALUE_PDU_LENGTH = 17;

export type SmpState = 'idle' | 'pairing' | 'paired' | 'failed';

/** What the pairing so far has settled; the phase says which PDU comes next. */
interface Exchange {
  phase: 'awaitConfirm' | 'awaitRandom' | 'awaitPublicKey' | 'awaitDhKeyCheck';
  preq: Uint8Array;
  pres: Uint8Array;
  keySize: number;
  /** The responder key distribution both sides agreed on. */
  responderKeys: number;
  /** Both sides asked to bond. */
  bonding: boolean;
  /** The initiator key distribution agreed on: the central's IdKey, when bonding. */
  centralKeys: number;
  mconfirm?: Uint8Array;
  srand?: Uint8Array;
  method: PairingMethod;
  sc: boolean;
  /** The legacy TK or the SC passkey: the passkey shown, or zero. */
  passkey: number;
  /** Secure Connections: the board's key pair, both public keys (X), the DHKey, the passkey round. */
  own?: EcdhKeyPair;
  pka?: Uint8Array;
  dhKey?: Uint8Array;
  round: number;
  na?: Uint8Array;
  nb?: Uint8Array;
}

/** The outcome of a completed pairing: the STK now, the keys to distribute later. */
interface Paired {
  stk: Uint8Array;
  /** What the key is: ATT's permissions look at it. */
  strength: KeyStrength;
  keys: Uint8Array[];
  /** What the board keeps when both sides bond and its LTK is handed out. */
  bond?: BoardBond;
  /** The central's identity keys still to come, and its IRK once it came. */
  centralKeys: number;
  centralIrk?: Uint8Array;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export class SmpResponder {
  private readonly options: z.output<typeof smpOptionsSchema>;
  private readonly ia: Uint8Array;
  private readonly ra: Uint8Array;
  private current: SmpState = 'idle';
  private reason: number | undefined;
  private exchange: Exchange | undefined;
  private result: Paired | undefined;

  constructor(options: SmpResponderOptions) {
    const parsed = smpOptionsSchema.safeParse({
      ...options,
      random: options.random ?? ((bytes: number) => new Uint8Array(randomBytes(bytes))),
    });
    if (!parsed.success)
      throw new Error(`SMP responder options: ${describeFieldErrors(fieldErrors(parsed.error))}`);
    this.options = parsed.data;
    this.ia = addressBytes(parsed.data.initiator.address);
    this.ra = addressBytes(parsed.data.responder.address);
  }

  get state(): SmpState {
    return this.current;
  }

  /** The reason code of the Pairing Failed sent or received, while the state is 'failed'. */
  get failure(): number | undefined {
    return this.reason;
  }

  /** The STK once both randoms are exchanged and the confirm checked, else undefined. */
  get stk(): Uint8Array | undefined {
    return this.result?.stk;
  }

  /** What the pairing's key is, once paired. */
  get strength(): Paired['strength'] | undefined {
    return this.result?.strength;
  }

  /**
   * The bond this pairing makes, only when both sides asked to bond, and only once key
   * distribution completed on both sides: the central's identity keys, when it agreed to send
   * them, came too. Zephyr stores the keys when the pairing completes (smp_pairing_complete),
   * so a central that drops the link before sending its keys leaves no bond on the board.
   */
  get bond(): BoardBond | undefined {
    return this.result?.centralKeys === 0 ? this.result.bond : undefined;
  }

  /**
   * After the link is encrypted: Encryption Information and Central Identification if the
   * central asked for the board's encryption key in its Pairing Request; nothing before pairing
   * completes.
   */
  keyDistribution(): Uint8Array[] {
    return this.result?.keys ?? [];
  }

  /** One SMP PDU from the central; returns the PDUs the board sends back (maybe none). */
  handle(pdu: Uint8Array): Uint8Array[] {
    const code = pdu[0];
    switch (code) {
      case SMP_CODE.pairingRequest:
        return this.onPairingRequest(pdu);
      case SMP_CODE.pairingConfirm:
        return this.onPairingConfirm(pdu);
      case SMP_CODE.pairingRandom:
        return this.onPairingRandom(pdu);
      case SMP_CODE.pairingFailed:
        return this.onPairingFailed(pdu);
      case SMP_CODE.identityInformation:
      case SMP_CODE.identityAddressInformation:
        return this.onCentralIdentity(pdu);
      case SMP_CODE.pairingResponse:
      case SMP_CODE.encryptionInformation:
      case SMP_CODE.centralIdentification:
      case SMP_CODE.signingInformation:
        // The central's own command, or keys from a central the board asked for none.
        return this.fail(SMP_FAILURE.unspecifiedReason);
      case SMP_CODE.pairingPublicKey:
      case SMP_CODE.pairingDhKeyCheck:
        // Secure Connections commands are beyond a legacy-only board.
        if (this.options.mode === 'legacy') return this.fail(SMP_FAILURE.commandNotSupported);
        return code === SMP_CODE.pairingPublicKey ? this.onPublicKey(pdu) : this.onDhKeyCheck(pdu);
      case SMP_CODE.securityRequest:
      case SMP_CODE.keypressNotification:
        // The peripheral's own request, and keypresses from a central the board shows to.
        return this.fail(SMP_FAILURE.commandNotSupported);
      default:
        // An empty PDU has no command to answer, and a reserved code is ignored (Vol 3, Part H, 3.3).
        return [];
    }
  }

  private onPairingRequest(pdu: Uint8Array): Uint8Array[] {
    // A new request is welcome unless a pairing is under way.
    if (this.current === 'pairing') return this.fail(SMP_FAILURE.unspecifiedReason);
    this.exchange = undefined;
    this.result = undefined;
    this.reason = undefined;
    if (this.options.pairing === 'refuse') return this.fail(SMP_FAILURE.pairingNotSupported);
    if (pdu.length !== PAIRING_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const [, ioCapability = 0, oobFlag = 0, authReq = 0, maxKeySize = 0, , responderKeys = 0] = pdu;
    if (ioCapability > IO_CAPABILITY_MAX || oobFlag > 1 || maxKeySize > MAX_KEY_SIZE)
      return this.fail(SMP_FAILURE.invalidParameters);
    const keySize = Math.min(maxKeySize, MAX_KEY_SIZE);
    if (keySize < MIN_KEY_SIZE) return this.fail(SMP_FAILURE.encryptionKeySize);
    const { mode, io, bonded } = this.options;
    const sc = mode !== 'legacy' && (authReq & AUTH_SC) !== 0;
    // Zephyr's CONFIG_BT_SMP_SC_ONLY answers a legacy request so.
    if (mode === 'sc-only' && !sc) return this.fail(SMP_FAILURE.authenticationRequirements);
    const bonding = (authReq & AUTH_REQ_BONDING_FLAGS) === BONDING;
    // A board that can show something asks for MITM, as Zephyr does for such IO capabilities.
    const mitm = io !== 'noInputNoOutput';
    const method = pairingMethod(
      {
        io: IO_CAPABILITIES[ioCapability]!,
        oob: false,
        mitm: (authReq & AUTH_MITM) !== 0,
        sc: (authReq & AUTH_SC) !== 0,
      },
      { io, oob: false, mitm, sc: mode !== 'legacy' },
    );
    // The board has no keyboard: a passkey it would have to type cannot be entered.
    if (method.model === 'passkeyEntry' && method.display !== 'responder')
      return this.fail(SMP_FAILURE.passkeyEntryFailed);
    if (method.model === 'oob') return this.fail(SMP_FAILURE.oobNotAvailable);
    if (bonded && !this.mayReplace(bonded, method, sc, keySize))
      return this.fail(SMP_FAILURE.authenticationRequirements);
    // Zephyr's remote_sec_level_reachable: an SC-only board needs level 4 of every pairing, a
    // full-size key and not Just Works (it refuses before its Pairing Response).
    if (mode === 'sc-only' && keySize !== MAX_KEY_SIZE)
      return this.fail(SMP_FAILURE.encryptionKeySize);
    if (mode === 'sc-only' && !isAuthenticated(method))
      return this.fail(SMP_FAILURE.authenticationRequirements);
    if (!bonded && bonding && this.options.bondTableFull)
      return this.fail(SMP_FAILURE.unspecifiedReason);
    // Secure Connections derives the LTK on both sides: no EncKey is handed out (3.6.1). The
    // IdKey only from a board with privacy.
    const agreedKeys =
      responderKeys & ((sc ? 0 : KEY_DIST_ENC_KEY) | (this.options.identity ? KEY_DIST_ID_KEY : 0));
    // The central's identity, as Zephyr takes it from a bonding central (its RECV_KEYS).
    const centralKeys = bonding ? (pdu[5] ?? 0) & KEY_DIST_ID_KEY : 0;
    const pres = Uint8Array.of(
      SMP_CODE.pairingResponse,
      IO_CAPABILITIES.indexOf(io),
      0x00,
      (bonding ? BONDING : 0x00) | (mitm ? AUTH_MITM : 0) | (mode !== 'legacy' ? AUTH_SC : 0),
      MAX_KEY_SIZE,
      centralKeys,
      agreedKeys,
    );
    this.exchange = {
      phase: sc ? 'awaitPublicKey' : 'awaitConfirm',
      preq: Uint8Array.from(pdu),
      pres,
      keySize,
      responderKeys: agreedKeys,
      bonding,
      centralKeys,
      method,
      sc,
      passkey:
        method.model === 'passkeyEntry'
          ? (this.options.passkey ?? new DataView(this.random(4).buffer).getUint32(0, true) % 1e6)
          : 0,
      round: 0,
    };
    this.current = 'pairing';
    return [pres];
  }

  /**
   * Zephyr's update_keys_check: a bonded central's new pairing may not weaken the key it has
   * (shorter, legacy after SC, Just Works after an authenticated one), nor, unless the board
   * allows it, replace it by Just Works at all.
   */
  private mayReplace(
    bond: BoardBond,
    method: PairingMethod,
    sc: boolean,
    keySize: number,
  ): boolean {
    const authenticated = isAuthenticated(method);
    if (bond.keySize > keySize || (bond.sc && !sc)) return false;
    if (bond.authenticated && !authenticated) return false;
    return authenticated || this.options.allowUnauthOverwrite;
  }

  private onPairingConfirm(pdu: Uint8Array): Uint8Array[] {
    const exchange = this.exchange;
    if (this.current !== 'pairing' || exchange?.phase !== 'awaitConfirm')
      return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== VALUE_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const srand = this.random(16);
    exchange.mconfirm = Uint8Array.from(pdu.subarray(1));
    exchange.srand = srand;
    exchange.phase = 'awaitRandom';
    const confirm = exchange.sc
      ? f4(this.pkb(exchange), exchange.pka!, srand, this.passkeyBit(exchange))
      : this.confirm(exchange, srand);
    return [Uint8Array.of(SMP_CODE.pairingConfirm, ...confirm)];
  }

  private onPairingRandom(pdu: Uint8Array): Uint8Array[] {
    const exchange = this.exchange;
    if (this.current !== 'pairing' || exchange?.phase !== 'awaitRandom' || !exchange.srand)
      return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== VALUE_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const mrand = Uint8Array.from(pdu.subarray(1));
    const srand = exchange.srand;
    if (exchange.sc) return this.onScRandom(exchange, mrand, srand);
    if (!exchange.mconfirm || !equalBytes(this.confirm(exchange, mrand), exchange.mconfirm))
      return this.fail(SMP_FAILURE.confirmValueFailed);
    const stk = masked(s1(passkeyValue(exchange.passkey), srand, mrand), exchange.keySize);
    const strength = this.strengthOf(exchange);
    this.result = {
      stk,
      strength,
      centralKeys: exchange.centralKeys,
      ...legacyKeys({ ...exchange, strength }, this.options.identity, (bytes) =>
        this.random(bytes),
      ),
    };
    this.exchange = undefined;
    this.current = 'paired';
    return [Uint8Array.of(SMP_CODE.pairingRandom, ...srand)];
  }

  /** Secure Connections: the central's public key, answered with the board's (2.3.5.6.1). */
  private onPublicKey(pdu: Uint8Array): Uint8Array[] {
    const exchange = this.exchange;
    if (this.current !== 'pairing' || exchange?.phase !== 'awaitPublicKey')
      return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== PUBLIC_KEY_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const own = ecdhKeyPair();
    const peer = pdu.subarray(1);
    const dhKey = own.dhKey(peer);
    if (!dhKey || equalBytes(peer, own.publicKey)) return this.fail(SMP_FAILURE.dhKeyCheckFailed);
    exchange.own = own;
    exchange.pka = Uint8Array.from(peer.subarray(0, 32));
    exchange.dhKey = dhKey;
    const out = [Uint8Array.of(SMP_CODE.pairingPublicKey, ...own.publicKey)];
    if (exchange.method.model === 'passkeyEntry') {
      exchange.phase = 'awaitConfirm';
      return out;
    }
    // Just Works and Numeric Comparison: the board commits to its nonce at once (2.3.5.6.2).
    const nb = this.random(16);
    exchange.srand = nb;
    exchange.phase = 'awaitRandom';
    out.push(
      Uint8Array.of(SMP_CODE.pairingConfirm, ...f4(this.pkb(exchange), exchange.pka, nb, 0)),
    );
    return out;
  }

  private onScRandom(exchange: Exchange, na: Uint8Array, nb: Uint8Array): Uint8Array[] {
    const reply = [Uint8Array.of(SMP_CODE.pairingRandom, ...nb)];
    if (exchange.method.model === 'passkeyEntry') {
      const expected = f4(exchange.pka!, this.pkb(exchange), na, this.passkeyBit(exchange));
      if (!exchange.mconfirm || !equalBytes(expected, exchange.mconfirm))
        return this.fail(SMP_FAILURE.confirmValueFailed);
      exchange.round += 1;
      if (exchange.round < PASSKEY_ROUNDS) {
        exchange.phase = 'awaitConfirm';
        return reply;
      }
    }
    // Numeric Comparison: the board's person sees the same six digits and says yes.
    exchange.na = na;
    exchange.nb = nb;
    exchange.phase = 'awaitDhKeyCheck';
    return reply;
  }

  /** Secure Connections: the central's DHKey Check, answered with the board's (2.3.5.6.5). */
  private onDhKeyCheck(pdu: Uint8Array): Uint8Array[] {
    const exchange = this.exchange;
    if (this.current !== 'pairing' || exchange?.phase !== 'awaitDhKeyCheck')
      return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== VALUE_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const { initiator, responder } = this.options;
    const a = addressWithType(this.ia, initiator.type === 'random');
    const b = addressWithType(this.ra, responder.type === 'random');
    const na = exchange.na!;
    const nb = exchange.nb!;
    const { macKey, ltk } = f5(exchange.dhKey!, na, nb, a, b);
    const r = passkeyValue(exchange.passkey);
    const ea = f6(macKey, na, nb, r, exchange.preq.subarray(1, 4), a, b);
    if (!equalBytes(ea, pdu.subarray(1))) return this.fail(SMP_FAILURE.dhKeyCheckFailed);
    const eb = f6(macKey, nb, na, r, exchange.pres.subarray(1, 4), b, a);
    const key = masked(ltk, exchange.keySize);
    const strength = this.strengthOf(exchange);
    this.result = {
      stk: key,
      strength,
      keys: identityKeys(exchange.responderKeys, this.options.identity),
      centralKeys: exchange.centralKeys,
      bond: exchange.bonding
        ? { ltk: key, ediv: 0, rand: new Uint8Array(8), ...strength }
        : undefined,
    };
    this.exchange = undefined;
    this.current = 'paired';
    return [Uint8Array.of(SMP_CODE.pairingDhKeyCheck, ...eb)];
  }

  /** The central's IRK and identity address, once the board's keys went: kept with the bond. */
  private onCentralIdentity(pdu: Uint8Array): Uint8Array[] {
    const result = this.result;
    if (this.current !== 'paired' || !result || (result.centralKeys & KEY_DIST_ID_KEY) === 0)
      return this.fail(SMP_FAILURE.unspecifiedReason);
    const taken = centralIdentityKey({ irk: result.centralIrk }, pdu);
    if (!taken) return this.fail(SMP_FAILURE.invalidParameters);
    result.centralIrk = taken.irk;
    if (taken.identity) {
      result.centralKeys = 0;
      if (result.bond) result.bond.central = taken.identity;
    }
    return [];
  }

  private pkb(exchange: Exchange): Uint8Array {
    return exchange.own!.publicKey.subarray(0, 32);
  }

  /** The passkey bit of this round, as f4's Z (0x80 | bit); zero outside Passkey Entry. */
  private passkeyBit(exchange: Exchange): number {
    if (exchange.method.model !== 'passkeyEntry') return 0;
    return 0x80 | ((exchange.passkey >> exchange.round) & 1);
  }

  private strengthOf(exchange: Exchange): Paired['strength'] {
    return {
      authenticated: isAuthenticated(exchange.method),
      sc: exchange.sc,
      keySize: exchange.keySize,
    };
  }

  private onPairingFailed(pdu: Uint8Array): Uint8Array[] {
    // The central gives up, nothing is sent back (Vol 3, Part H, 3.5.5). After the board's
    // random it may still: that is where the central checks the board's confirm.
    if (this.current !== 'pairing' && this.current !== 'paired') return [];
    this.fail(pdu[1] ?? SMP_FAILURE.unspecifiedReason);
    return [];
  }

  /** Ends the pairing: no key survives a failure. */
  private fail(reason: number): Uint8Array[] {
    this.current = 'failed';
    this.reason = reason;
    this.exchange = undefined;
    this.result = undefined;
    return [Uint8Array.of(SMP_CODE.pairingFailed, reason)];
  }

  private confirm(exchange: Exchange, r: Uint8Array): Uint8Array {
    const { initiator, responder } = this.options;
    return c1({
      k: passkeyValue(exchange.passkey),
      r,
      preq: exchange.preq,
      pres: exchange.pres,
      iat: initiator.type === 'random' ? 1 : 0,
      rat: responder.type === 'random' ? 1 : 0,
      ia: this.ia,
      ra: this.ra,
    });
  }

  private random(bytes: number): Uint8Array {
    const out = this.options.random(bytes);
    if (out.length !== bytes)
      throw new Error(`SMP responder options: random returned ${out.length} bytes for ${bytes}`);
    return Uint8Array.from(out);
  }
}
